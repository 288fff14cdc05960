"""The CLI: plugins, assign, replay; one-line errors with the right exit codes."""

from __future__ import annotations

import io
import json
import sys

import pytest

import assignframe.plugins.manager
from assignframe.cli import main
from assignframe.testing import shared_path

GROUP_YAML = """\
strategy: modulo
partitions_per_topic: {t0: 3, t1: 2}
lags: {t0: [5, 0, 1]}
members:
  C0: {topics: [t0, t1], rack: r0}
  C1: {topics: [t0], owned_partitions: [[t0, 1]], generation: 3}
"""


@pytest.fixture(autouse=True)
def cli_pm(spm, monkeypatch):
    """The CLI's process-wide manager = the isolated manager holding the test strategies."""
    monkeypatch.setattr(assignframe.plugins.manager, "_shared_manager", spm)
    return spm


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_plugins_json(capsys):
    code, out, _ = run(capsys, "plugins", "--json")
    assert code == 0
    assert [info["name"] for info in json.loads(out)] == [
        "cooperative-balance",
        "modulo",
        "restless",
    ]


def test_plugins_table(capsys):
    code, out, _ = run(capsys, "plugins")
    assert code == 0 and "cooperative-balance" in out and "eager, cooperative" in out


def test_assign_json(tmp_path, capsys):
    group = tmp_path / "group.yaml"
    group.write_text(GROUP_YAML)
    code, out, _ = run(capsys, "assign", str(group), "--json", "--option", "replicas=2")
    assert code == 0
    output = json.loads(out)
    assert output["strategy"] == "modulo" and output["generation"] == 1
    assert output["assignment"] == {
        "C0": [["t0", 0], ["t0", 2], ["t1", 0], ["t1", 1]],
        "C1": [["t0", 1]],
    }
    assert output["metrics"]["lag_per_member"] == {"C0": 6, "C1": 0}
    assert output["user_data"] == {"C0": None, "C1": None}


def test_assign_table_with_strategy_override(tmp_path, capsys):
    group = tmp_path / "group.json"
    group.write_text(
        json.dumps({"partitions_per_topic": {"t": 4}, "members": {"a": {"topics": ["t"]}}})
    )
    code, out, _ = run(capsys, "assign", str(group), "--strategy", "cooperative-balance")
    assert code == 0 and "t: 0-3" in out and "balance score 0" in out


def test_replay_json_from_stdin(capsys, monkeypatch):
    golden = shared_path(__file__) / "golden" / "assign.jsonl"
    lines = golden.read_text(encoding="utf-8").splitlines()[:3]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    code, out, _ = run(capsys, "replay", "-", "--strategy", "modulo", "--json")
    assert code == 0
    replays = [json.loads(line) for line in out.splitlines()]
    assert [r["id"] for r in replays] == [json.loads(line)["id"] for line in lines]
    first = replays[0]
    assert first["strategy"] == "modulo"
    assert set(first["rounds"][0]) >= {"round", "followup", "generation", "result", "metrics"}
    assert first["rounds"][0]["result"] == {
        "C0": [["t0", 0], ["t0", 2], ["t1", 0], ["t1", 2]],
        "C1": [["t0", 1], ["t1", 1]],
    }
    assert first["rounds"][0]["metrics"]["validity"]["valid"] is True


def test_replay_tables(tmp_path, capsys):
    scenario = {
        "id": "coop",
        "assignor": "cooperative-balance",
        "partitions_per_topic": {"t": 4},
        "rounds": [
            {"members": {"a": {"topics": ["t"]}}},
            {"members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}},
        ],
    }
    path = tmp_path / "coop.json"
    path.write_text(json.dumps(scenario, indent=2))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0 and "coop (cooperative-balance)" in out and "(follow-up)" in out


# Input errors, one line and exit 2 in every command: test_errors.py.


def test_misbehaving_strategy_exits_1(tmp_path, capsys, cli_pm):
    from assignframe import Strategy, hookimpl

    class Broken(Strategy):
        name = "broken"

        def assign(self, group):
            return {}

    class Plugin:
        @hookimpl
        def register_strategies(self, registry):
            registry.add(Broken)

    cli_pm.register(Plugin())
    group = tmp_path / "g.yaml"
    group.write_text(GROUP_YAML)
    code, _, err = run(capsys, "assign", str(group), "-s", "broken")
    assert code == 1 and "strategy 'broken'" in err and "returned dict" in err


def test_usage_error_exits_2(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["frobnicate"])
    assert caught.value.code == 2

