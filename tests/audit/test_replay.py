"""Replays: each strategy starts from the group's current ownership (GroupRunner.adopt)."""

from __future__ import annotations

from assignframe.audit import audit_group, read_snapshot
from assignframe.audit.rerun import AuditContext, replay_strategy


def test_range_replay_of_a_range_group_moves_nothing(context, make_snapshot):
    outcome = replay_strategy(read_snapshot(make_snapshot()), "range", context)
    assert outcome.error is None
    assert outcome.metrics["partitions_moved"] == 0 and outcome.metrics["valid"]


def test_sticky_strategies_keep_the_current_owners(context, make_snapshot):
    row = make_snapshot()
    row["members"][0]["assignment"]["hex"] = row["members"][1]["assignment"]["hex"]  # swap a
    row["members"][1]["assignment"]["hex"] = make_snapshot()["members"][0]["assignment"]["hex"]
    snapshot = read_snapshot(row)  # a owns t-2, b owns t-0 and t-1: range would move them all
    assert replay_strategy(snapshot, "range", context).metrics["partitions_moved"] == 3
    for name in ("sticky", "cooperative-sticky"):
        outcome = replay_strategy(snapshot, name, context)
        assert outcome.error is None, outcome.error
        assert outcome.metrics["partitions_moved"] == 0, name


def test_cooperative_replay_counts_follow_up_rounds(context, make_snapshot):
    row = make_snapshot()
    row["members"][1]["assignment"]["hex"] = "00030000000000000000"  # b owns nothing, a two
    row["members"][0]["assignment"]["hex"] = _hex_assignment([("t", 0), ("t", 1), ("t", 2)])
    outcome = replay_strategy(read_snapshot(row), "cooperative-sticky", context)
    assert outcome.metrics["rounds"] == 2 and outcome.settled


def _hex_assignment(pairs):
    import assignframe_codec as codec

    return codec.encode_assignment(pairs, version=3).hex()


def test_a_failing_strategy_is_a_row_not_a_crash(context, make_snapshot):
    from assignframe.audit.rerun import AuditContext

    broken = AuditContext(context.pm, ("no-such-strategy",))
    rows, _ = audit_group(1, make_snapshot(), broken)
    assert rows[0]["error"].startswith("UnknownStrategyError")
    assert rows[0]["recommendation"] is None


def test_detail_holds_every_assignment(context, make_snapshot):
    rows, detail = audit_group(7, make_snapshot(), context, detail=True)
    assert len(rows) == len(context.strategies)
    assert detail["input_row"] == 7
    assert detail["current"]["assignment"]["a"] == [["t", 0], ["t", 1]]
    assert {s["strategy"] for s in detail["strategies"]} == set(context.strategies)
    assert detail["recommendation"]["strategy"] in context.strategies


def test_default_strategy_set_and_all(context):
    from assignframe.audit.rerun import DEFAULT_STRATEGIES, AuditContext

    installed = context.pm.strategy_names()
    assert AuditContext.create().strategies == tuple(
        n for n in DEFAULT_STRATEGIES if n in installed
    )
    assert AuditContext.create(("all",)).strategies == installed
    assert AuditContext.create(("sticky", "range")).strategies == ("sticky", "range")


def _captured_redundant_group(protocol="redundant"):
    """A redundant group whose three members each run with replicas=2, as captured: their
    JoinGroup and SyncGroup bytes (played by the runner), read back as a snapshot."""
    from assignframe import Cluster, Consumer, GroupRunner
    from assignframe.snapshot import (
        CapturedMember,
        MemberWire,
        snapshot_from_wire,
        snapshot_to_dict,
    )

    runner = GroupRunner("redundant", cluster=Cluster({"docs": 6}))
    final = runner.rebalance(
        [Consumer(f"indexer-{i}", ("docs",), options={"replicas": 2}) for i in range(3)]
    ).final
    members = [
        CapturedMember(m, None, MemberWire(final.subscriptions[m], final.assignment_bytes[m]))
        for m in final.group.members
    ]
    snapshot = snapshot_from_wire("search", final.generation, protocol, members, {"docs": 6})
    return snapshot_to_dict(snapshot)


def test_a_replay_runs_each_member_with_the_options_its_user_data_advertised(context):
    snapshot = read_snapshot(_captured_redundant_group())
    outcome = replay_strategy(snapshot, "redundant", context)
    assert outcome.error is None and outcome.note is None
    assert outcome.owners_per_partition == 2
    assert outcome.metrics["partitions_moved"] == 0 and outcome.metrics["valid"]
    assert outcome.assignment == snapshot.current


def test_options_in_another_strategys_user_data_are_unknown_and_the_row_says_so(context):
    row = _captured_redundant_group(protocol="range")  # the bytes are not redundant's
    outcome = replay_strategy(read_snapshot(row), "redundant", context)
    assert outcome.owners_per_partition == 1
    assert outcome.note == (
        "redundant: the members' own replicas are unknown (their user data is range's); "
        "replayed with replicas=1"
    )
    rows, _ = audit_group(0, row, AuditContext.create(("range", "redundant")))
    assert {r["strategy"]: r["note"] for r in rows} == {"range": None, "redundant": outcome.note}


def test_the_summary_counts_replays_with_a_note_and_the_cli_says_so(tmp_path, capsys):
    import json

    from assignframe.cli import main

    source = tmp_path / "decoded.jsonl"
    rows = [_captured_redundant_group(), _captured_redundant_group(protocol="range")]
    rows[1]["group_id"] = "search-2"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "out"
    argv = ["audit", str(source), "--out", str(out), "--strategies", "range,redundant"]
    assert main([*argv, "--processes", "1", "--no-parquet"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert {n: s["with_note"] for n, s in summary["strategies"].items()} == {
        "range": 0,
        "redundant": 1,
    }
    assert "redundant: 1 group(s) with a note on the replay" in capsys.readouterr().out
