"""Standby tasks on Apache Kafka 4.3.1: a stateful Kafka Streams app (its sub-topology counts into
an in-memory store, ``java/StatefulStreamsRunner.java``: no RocksDB) with the group config
``streams.num.standby.replicas=1``, one instance, then two, then one again (kill -9).

inspect reads every member's active and standby tasks as the members themselves print them and as
Kafka's Admin describes them; a standby never sits on the process running its task. Every target
the broker computed (the join and the kill) equals what ``streams:sticky`` predicts from the
broker's previous target, with the members in the order the coordinator filled its map in (its
member table's, as StreamsGroupDescribe lists it; a member joining on the computing heartbeat
last, as for consumer-protocol groups: ``tests/e2e/test_member_order.py``).
"""

from __future__ import annotations

import json

from kafka43_cluster import create_topics, produce, verdict
from runners import describe, start_stateful_streams, wait_until

from assignframe.cli import main
from assignframe.plugins import get_plugin_manager
from assignframe.streams_assignor import (
    TASK_KINDS,
    MemberTasks,
    StreamsGroupSpec,
    StreamsMember,
    Subtopology,
    parse_task_label,
    task_label,
)

APP, TOPIC, PARTITIONS = "standby-app", "standby-in", 4
ALL_TASKS = [f"0_{p}" for p in range(PARTITIONS)]


def _printed(runners) -> dict[str, dict[str, list[str]]]:
    """Each member's (stream thread's) tasks by kind, as its instance last printed them."""
    held: dict[str, dict[str, list[str]]] = {}
    for r in runners:
        line = r.last("tasks") or {}
        for thread, tasks in line.get("threads", {}).items():
            held[thread] = {"active": tasks["active"], "standby": tasks["standby"]}
    return held


def _settled(kafka, runners, standbys_each: int):
    """The verdict once the runners' members hold their targets (every task active once, each
    member ``standbys_each`` standby tasks), the broker's description equal to what each
    member printed."""
    def probe():
        v = verdict(kafka, APP)
        view = v.share_streams
        if view is None or len(view.members) != len(runners) or v.state != "Stable" or \
                view.reconciling() or view.unassigned():
            return None
        read = {m.client_id: {k: list(m.tasks[k]) for k in ("active", "standby")}
                for m in view.members}
        if any(len(m.tasks["standby"]) != standbys_each for m in view.members):
            return None
        return v if read == _printed(runners) else None
    return wait_until(f"{len(runners)} settled stateful member(s)", probe, 180, pause=1)


def _targets(view) -> dict[str, dict[str, tuple[str, ...]]]:
    return {m.member_id: {k: tuple(m.target.get(k, ())) for k in TASK_KINDS}
            for m in view.members}


def _predictions(before, after, joined: str | None) -> list[dict]:
    """``streams:sticky``'s targets for ``after``'s members from ``before``'s targets, once per
    order the coordinator can have filled its member map in (its table's; with ``joined``
    last when that member's own heartbeat computed the target)."""
    previous = _targets(before.share_streams) if before is not None else {}
    members = {m.member_id: m for m in after.share_streams.members}
    table = list(members)
    orders = [table]
    if joined is not None and table[-1] != joined:
        orders.append([m for m in table if m != joined] + [joined])
    plugin = get_plugin_manager().streams_assignor("streams:sticky")
    predicted = []
    for order in orders:
        spec = StreamsGroupSpec(
            tuple(StreamsMember(
                m, members[m].process_id,
                MemberTasks(**{k: [parse_task_label(t) for t in previous.get(m, {}).get(k, ())]
                               for k in TASK_KINDS}))
                  for m in order),
            (Subtopology("0", PARTITIONS, stateful=True),), num_standby_replicas=1)
        result = plugin.assign(spec)
        predicted.append({m: {k: tuple(map(task_label, getattr(tasks, k))) for k in TASK_KINDS}
                          for m, tasks in result.members.items()})
    return predicted


def test_standby_tasks_are_read_and_every_target_predicted(kafka43, tmp_path):
    kafka = kafka43.bootstrap
    create_topics(kafka, {TOPIC: PARTITIONS})
    produce(kafka, TOPIC, PARTITIONS, 10)
    started = []

    def start(client: str):
        member = start_stateful_streams(kafka, APP, TOPIC, client, 1, tmp_path / f"{client}.log")
        started.append(member)
        member.wait_for(lambda line: line.get("event") == "tasks" and line["active"], 150)
        return member

    try:
        one = start("sb-1")
        alone = _settled(kafka, [one], 0)  # one process: nowhere to put a standby
        assert [list(m.tasks["active"]) for m in alone.share_streams.members] == [ALL_TASKS]

        two = start("sb-2")
        pair = _settled(kafka, [one, two], 2)
        view = pair.share_streams
        processes = {m.process_id for m in view.members}
        assert len(processes) == 2
        for member in view.members:  # each process keeps a copy of what the other runs
            other = [m for m in view.members if m is not member][0]
            assert len(member.tasks["active"]) == 2
            assert sorted(member.tasks["standby"]) == sorted(other.tasks["active"])
        assert sorted(t for m in view.members for t in m.tasks["active"]) == ALL_TASKS
        assert view.spread("standby") == 0 and pair.problems == []

        # Kafka's Admin (describeStreamsGroups) reads the same tasks of both kinds
        admin = describe(kafka, "streams", APP)
        assert {m["member_id"]: (sorted(m["active"]), sorted(m["standby"]))
                for m in admin["members"]} == \
            {m.member_id: (sorted(m.tasks["active"]), sorted(m.tasks["standby"]))
             for m in view.members}

        joiner = [m.member_id for m in view.members if m.client_id.startswith("sb-2")][0]
        assert _targets(view) in _predictions(alone, pair, joiner), (
            f"broker {_targets(view)} != streams:sticky {_predictions(alone, pair, joiner)}")

        # the group as a snapshot line (its standby replicas read from the group's config, its
        # sub-topology stateful from the topology's changelog) and the audit beside it:
        # streams:sticky given the group as the broker describes it keeps every target
        assert main(["inspect", "--bootstrap-server", kafka, "--group", APP,
                     "--out", str(tmp_path / "out")]) == 0
        (line,) = [json.loads(x) for x in (tmp_path / "out" / "snapshots.jsonl").read_text()
                   .splitlines()]
        assert (line["group_type"], line["num_standby_replicas"], line["stateful"]) == (
            "streams", 1, ["0"])
        (row,) = [json.loads(x) for x in (tmp_path / "out" / "audit" / "rows.jsonl")
                  .read_text().splitlines()]
        assert (row["group_type"], row["strategy"], row["members"], row["partitions"]) == (
            "streams", "streams:sticky", 2, PARTITIONS)
        assert row["current_valid"] and row["reconciling_members"] == 0
        assert row["note"] == ("streams:sticky replayed on the group as it is equals what the "
                               "broker assigned"), row["note"]

        two.kill()  # kill -9: fenced after the session timeout; its tasks come back to sb-1
        back = _settled(kafka, [one], 0)
        assert sorted(back.share_streams.members[0].tasks["active"]) == ALL_TASKS
        assert _targets(back.share_streams) in _predictions(pair, back, None)
    finally:
        for member in started:
            member.kill()
