"""``inspect --problem KINDS`` filters on problem kinds, the same for every group type (issue 31
review, finding 3): a Streams group's "active task(s) held by no member" is ``unowned``, its
"member(s) without active tasks" ``idle``, a share group's "member(s) behind assignment epoch"
``reconciling``; the words of the text no longer decide. Against the loopback responder
(tests/cluster/responder.py), whose every body is Java's; an unknown kind needs no broker."""

from __future__ import annotations

import json

import pytest

from assignframe.cli import main
from assignframe.snapshot.problems import PROBLEM_KINDS

from .responder import LoopbackCluster, classic_group, failures, kip848_group

#: what each type's problem text says, as the review quotes it -> the kind it is
WORDING = {"held by no member": "unowned", "unowned ": "unowned", "idle member": "idle",
           "without active tasks": "idle", "behind assignment epoch": "reconciling",
           "reconciling toward epoch": "reconciling", "not given up": "reconciling",
           "not yet released": "reconciling"}


@pytest.fixture
def loop():
    with LoopbackCluster() as cluster:
        # Java's rand_06 bodies: the share group has idle and behind members; the Streams group
        # an active task held by no member, members without active tasks, reconciling ones
        cluster.add(classic_group(), kip848_group("share", "share-a"),
                    kip848_group("streams", "streams-a"))
        yield cluster
        assert failures(cluster) == []


def _rows(capsys, loop: LoopbackCluster, *args: str) -> list[str]:
    main(["inspect", "--bootstrap-server", loop.bootstrap, "--timeout", "30", "--format", "tsv",
          *args])
    out, _ = capsys.readouterr()
    return sorted(line.split("\t")[0] for line in out.splitlines()[1:])


def test_problem_kinds_are_the_same_for_every_group_type(loop, capsys, tmp_path):
    main(["inspect", "--bootstrap-server", loop.bootstrap, "--timeout", "30", "--out",
          str(tmp_path), "--format", "tsv"])
    capsys.readouterr()
    groups = {g["group_id"]: g for g in
              json.loads((tmp_path / "verdicts.json").read_text())["groups"]}
    for group in groups.values():  # each text's kind, whatever the type's wording
        said = {kind for text in group["problems"] for words, kind in WORDING.items()
                if words in text}
        assert said <= set(group["problem_kinds"]), group
        assert all(k in PROBLEM_KINDS for k in group["problem_kinds"]), group
    assert {"unowned", "idle", "reconciling"} <= set(groups["streams-a"]["problem_kinds"])
    assert {"idle", "reconciling"} <= set(groups["share-a"]["problem_kinds"])
    for kind in ("unowned", "idle", "reconciling"):
        expected = sorted(g for g, v in groups.items() if kind in v["problem_kinds"])
        assert _rows(capsys, loop, "--problem", kind) == expected, kind
    assert "streams-a" in _rows(capsys, loop, "--problem", "unowned")
    assert _rows(capsys, loop, "--problem", "idle,reconciling") == ["share-a", "streams-a"]
    assert _rows(capsys, loop, "--problem", "any") == \
        sorted(g for g, v in groups.items() if v["problems"] or v["unreadable"])


def test_an_unknown_problem_kind_is_one_error_line(capsys):
    """Checked before any connection: the closed port is never tried."""
    code = main(["inspect", "--bootstrap-server", "127.0.0.1:9", "--problem", "idle,lag"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.splitlines() == [
        "assignframe: error: unknown problem kind lag; expected any, "
        + ", ".join(PROBLEM_KINDS) + " (--problem)"]
