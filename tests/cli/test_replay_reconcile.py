"""``assignframe replay`` on member reconciliation cases (golden ``kip848/reconcile.jsonl``)."""

from __future__ import annotations

import json

import pytest

from assignframe.cli import main
from assignframe.testing.paths import shared_path

GOLDEN = shared_path(__file__) / "golden" / "kip848" / "reconcile.jsonl"


def _cases():
    return [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]


def test_the_golden_file_is_detected_and_every_step_equals_the_recording(capsys):
    assert main(["replay", str(GOLDEN), "--json"]) == 0
    replays = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    cases = _cases()
    assert [r["id"] for r in replays] == [c["id"] for c in cases]
    for replay, case in zip(replays, cases, strict=True):
        assert set(replay) == {"id", "steps"}
        assert [s["output"] for s in replay["steps"]] == [s["output"] for s in case["steps"]]
        assert not any("difference" in s for s in replay["steps"])


def test_a_step_that_differs_from_the_recording_says_how(tmp_path, capsys):
    case = next(c for c in _cases() if c["category"] == "stable-revoke")
    case["steps"][0]["output"]["member_epoch"] += 1
    case["steps"][0]["output"]["assigned"].append(["not-a-topic", 99])
    path = tmp_path / "altered.jsonl"
    path.write_text(json.dumps(case) + "\n")
    assert main(["replay", str(path), "--json"]) == 0
    (step,) = json.loads(capsys.readouterr().out)["steps"]
    difference = step["difference"]
    assert set(difference) == {"member_epoch", "assigned"}
    assert difference["member_epoch"]["replayed"] + 1 == difference["member_epoch"]["recorded"]
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "DIFFERENT: member_epoch, assigned" in out
    assert "1 cases, 1 steps: 0 equal to the recorded output, 1 different" in out


def test_the_text_view_shows_each_transition(tmp_path, capsys):
    case = next(c for c in _cases() if c["category"] == "sim-slow-revoker")
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(case) + "\n")
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "STABLE -> UNREVOKED_PARTITIONS" in out and "(unchanged)" in out
    assert f"1 cases, {len(case['steps'])} steps: {len(case['steps'])} equal" in out


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda s: s["input"]["member"].pop("state"), "steps[0].input.member.state: missing"),
        (
            lambda s: s["input"].update(target_epoch="11"),
            "steps[0].input.target_epoch: expected an integer, got '11'",
        ),
        (
            lambda s: s["input"].update(owned_topic_partitions=[["t", 0, 1]]),
            "steps[0].input.owned_topic_partitions[0]: expected [topic, partition]",
        ),
        (
            lambda s: s["input"]["member"]["assigned_epochs"].clear(),
            "steps[0].input.member.assigned_epochs: no epoch for",
        ),
        (
            lambda s: s["input"]["partition_owner_epochs"].update({"nocolon": 1}),
            "key 'nocolon' is not 'topic:partition'",
        ),
    ],
)
def test_bad_input_is_one_clear_error_naming_the_line_and_field(tmp_path, capsys, mangle, message):
    cases = _cases()
    good, bad = cases[1], cases[2]
    mangle(bad["steps"][0])
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    assert main(["replay", str(path), "--json"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("assignframe: error: ")
    assert message in err[0] and f"({path}:2)" in err[0]


def test_a_line_of_another_kind_and_flags_that_do_not_apply_are_errors(tmp_path, capsys):
    path = tmp_path / "mixed.jsonl"
    path.write_text(json.dumps(_cases()[0]) + "\n" + '{"id": "x"}\n')
    assert main(["replay", str(path), "--json"]) == 2
    assert f"not a reconcile case (steps with an input member and target_epoch) ({path}:2)" in (
        capsys.readouterr().err
    )
    assert main(["replay", str(GOLDEN), "--strategy", "server:uniform"]) == 2
    assert "--strategy does not apply to reconciliation cases" in capsys.readouterr().err


def test_json_nested_too_deeply_is_an_error_not_a_crash(tmp_path, capsys):
    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps(_cases()[0]) + "\n" + "[" * 100_000 + "]" * 100_000 + "\n")
    assert main(["replay", str(path), "--json"]) == 2
    assert f"not JSON: nested too deeply to read ({path}:2)" in capsys.readouterr().err
