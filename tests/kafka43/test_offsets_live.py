"""``decode offsets --bootstrap-server`` on Apache Kafka 4.3.1's own ``__consumer_offsets``, for a
share group of two real KafkaShareConsumer members and a Streams group of two real Kafka Streams
members (two sub-topologies): the share and Streams groups rebuilt from their records equal what
``inspect`` reads of the same groups through ShareGroupDescribe and StreamsGroupDescribe
(members, client ids and hosts, process ids, member and group epochs, partitions and tasks,
targets, topology), what the members themselves print, and ``assignframe audit`` judges the
decoded lines as it judges inspect's. A stateful Streams app's standby tasks, the same way.

Record types Kafka 4.3.1 writes for these groups (measured): ShareGroupMemberMetadata (10),
ShareGroupMetadata (11), ShareGroupTargetAssignmentMetadata (12) and Member (13),
ShareGroupCurrentMemberAssignment (14), ShareGroupStatePartitionMetadata (15, which names the
topic ids); StreamsGroupMetadata (17), StreamsGroupMemberMetadata (19),
StreamsGroupTargetAssignmentMetadata (20) and Member (21), StreamsGroupCurrentMemberAssignment
(22), StreamsGroupTopology (23), and the Streams group's offset commits.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from kafka43_cluster import create_topics, member_named, produce, verdict
from runners import start_stateful_streams, wait_until

from assignframe.cli import main
from assignframe.model import TopicPartition
from assignframe.snapshot.share import ShareSnapshot
from assignframe.snapshot.streams import StreamsSnapshot

SHARE_GROUP, QUEUE = "offs43-share", "offs43-q"
APP, FIRST, SECOND, OUT = "offs43-streams", "offs43-clicks", "offs43-views", "offs43-out"
SHARE_TYPES = {10: "ShareGroupMemberMetadata", 11: "ShareGroupMetadata",
               12: "ShareGroupTargetAssignmentMetadata", 13: "ShareGroupTargetAssignmentMember",
               14: "ShareGroupCurrentMemberAssignment", 15: "ShareGroupStatePartitionMetadata"}
STREAMS_TYPES = {1: "offset_commit", 17: "StreamsGroupMetadata", 19: "StreamsGroupMemberMetadata",
                 20: "StreamsGroupTargetAssignmentMetadata",
                 21: "StreamsGroupTargetAssignmentMember",
                 22: "StreamsGroupCurrentMemberAssignment", 23: "StreamsGroupTopology"}


def _share_settled(kafka: str, runners: dict) -> Any:
    """Two share members, none behind, every partition held, each runner's own assignment equal
    to what inspect read for it."""
    def probe():
        view = verdict(kafka, SHARE_GROUP).share_streams
        if not isinstance(view, ShareSnapshot) or len(view.members) != 2 or view.behind() \
                or view.unassigned():
            return None
        for client_id, runner in runners.items():
            member, line = member_named(view, client_id), runner.last("assignment")
            held = {TopicPartition(t, p) for t, p in line["assignment"]} if line else set()
            if member is None or set(member.partitions) != held:
                return None
        return view
    return wait_until("2 settled share members", probe, 150, pause=1)


def _streams_settled(kafka: str, runners: tuple) -> Any:
    """Two Streams members holding every task, none reconciling, each thread's own active tasks
    equal to what inspect read for it."""
    def probe():
        view = verdict(kafka, APP).share_streams
        if not isinstance(view, StreamsSnapshot) or len(view.members) != 2 or \
                view.reconciling() or view.unassigned():
            return None
        printed = {}
        for r in runners:
            for thread, tasks in ((r.last("tasks") or {}).get("threads") or {}).items():
                printed[thread] = tasks["active"]
        read = {m.client_id: list(m.tasks["active"]) for m in view.members}
        return view if printed == read else None
    return wait_until("2 settled Streams members", probe, 150, pause=1)


def _lines(capsys, *args: str) -> tuple[int, dict[str, dict], str]:
    code = main([*args, "--timeout", "20"])
    out, err = capsys.readouterr()
    lines = {}
    for text in out.splitlines():
        row = json.loads(text)
        if "group_id" in row:
            lines[row["group_id"]] = row
    return code, lines, err


def _share_view(line: dict) -> dict:
    """What the records and the describe both hold of a share group."""
    return {"group_type": line["group_type"], "group_epoch": line["group_epoch"],
            "assignment_epoch": line["assignment_epoch"], "subscribed": line["subscribed"],
            "topic_ids": line["topic_ids"],
            "members": {m["member_id"]: (m["client_id"], m["client_host"], m["member_epoch"],
                                         m["subscribed"], m["partitions"])
                        for m in line["members"]}}


def _streams_view(line: dict) -> dict:
    """What the records and the describe both hold of a Streams group."""
    return {"group_type": line["group_type"], "group_epoch": line["group_epoch"],
            "assignment_epoch": line["assignment_epoch"],
            "topology_epoch": line["topology_epoch"], "subtopologies": line["subtopologies"],
            "stateful": line["stateful"], "topic_partitions": line["topic_partitions"],
            "members": {m["member_id"]: (m["client_id"], m["client_host"], m["process_id"],
                                         m["member_epoch"], m["tasks"], m["target"])
                        for m in line["members"]}}


def _none_about_ours(code: int, err: str, groups) -> None:
    """decode read the whole topic: a problem (exit 1) may be another test's group in the
    session's broker, never one of ``groups`` or an unreadable topic (exit 2)."""
    assert code in (0, 1), err
    assert code == 0 or not any(g in line for line in err.splitlines() for g in groups), err


def _agreeing(kafka: str, capsys, views: dict[str, Callable[[dict], dict]],
              ) -> tuple[dict, dict]:
    """decode's lines and inspect's for the groups of ``views`` (group id -> what both hold of
    it) once they agree (a member's heartbeat may land between the two reads; every read has
    its deadline)."""
    seen: list = []

    def probe():
        code, inspected, err = _lines(capsys, "inspect", "--bootstrap-server", kafka,
                                      "--group", f"^({'|'.join(views)})$", "--json")
        assert code == 0, err
        code, decoded, err = _lines(capsys, "decode", "offsets", "--bootstrap-server", kafka,
                                    "--json")
        _none_about_ours(code, err, views)
        ours = {g: decoded.get(g) for g in views}
        theirs = {g: inspected.get(g) for g in views}
        seen[:] = [ours, theirs]
        if None in (*ours.values(), *theirs.values()):
            return None
        if any(view(ours[g]) != view(theirs[g]) for g, view in views.items()):
            return None
        return ours, theirs

    try:
        return wait_until("decode and inspect agreeing", probe, 90, pause=2)
    except AssertionError:
        ours, theirs = seen or ({}, {})
        assert {g: view(ours[g]) if ours.get(g) else None for g, view in views.items()} == \
            {g: view(theirs[g]) if theirs.get(g) else None for g, view in views.items()}
        raise


def test_share_and_streams_groups_rebuilt_from_the_records_equal_the_describes(
        kafka43, runner, tmp_path, capsys):
    kafka = kafka43.bootstrap
    create_topics(kafka, {QUEUE: 4, FIRST: 4, SECOND: 2, OUT: 1})
    produce(kafka, QUEUE, 4, 5)
    produce(kafka, FIRST, 4, 5)
    produce(kafka, SECOND, 2, 5)
    shares = {c: runner("run-share-consumer.sh", kafka, SHARE_GROUP, QUEUE, c)
              for c in ("offs43-sh-1", "offs43-sh-2")}
    streams = tuple(runner("run-streams-member.sh", kafka, APP, FIRST, OUT, client,
                           env={"CLIENTS43_INPUT2": SECOND}) for client in ("offs43-st-1",
                                                                           "offs43-st-2"))
    for member in shares.values():
        member.wait_for(lambda line: line.get("event") == "assignment" and line["assignment"],
                        150)
    for member in streams:
        member.wait_for(lambda line: line.get("event") == "tasks" and line["active"], 150)
    _share_settled(kafka, shares)
    _streams_settled(kafka, streams)

    # the record types read for these groups
    code, out, err = _lines_of_records(capsys, kafka)
    _none_about_ours(code, err, (SHARE_GROUP, APP))
    for group_id, expected in ((SHARE_GROUP, SHARE_TYPES), (APP, STREAMS_TYPES)):
        seen = {(r["key_version"], r["record_type"]) for r in out
                if "record_type" in r and _group_of(r) == group_id}
        assert seen == set(expected.items()), (group_id, seen)
    states = {s[k]["group_id"]: s for s in out for k in s if k.endswith("_group_state")}
    assert states[SHARE_GROUP]["problems"] == [] and states[APP]["problems"] == []

    ours, theirs = _agreeing(kafka, capsys, {SHARE_GROUP: _share_view, APP: _streams_view})
    share, streams_line = ours[SHARE_GROUP], ours[APP]
    # the share group: both members, every partition held once, named from the records
    assert sorted(m["client_id"] for m in share["members"]) == sorted(shares)
    held = sorted(tuple(p) for m in share["members"] for p in m["partitions"])
    assert held == [(QUEUE, p) for p in range(4)]
    for member in share["members"]:
        printed = shares[member["client_id"]].last("assignment")["assignment"]
        assert sorted(member["partitions"]) == sorted(printed)
    assert share["subscribed"] == {QUEUE: 4} and set(share["topic_ids"]) == {QUEUE}
    # what the records do not hold is unknown, said so; inspect read it
    assert (share["group_state"], share["assignor"], share["backlog"]) == (None, None, None)
    assert theirs[SHARE_GROUP]["assignor"] == "simple"
    assert any("backlog unknown" in note for note in share["notes"])
    assert (share["source"], share["committed_offsets"]) == ("__consumer_offsets", [])
    # the Streams group: two sub-topologies, six tasks, one process per instance
    assert streams_line["subtopologies"] == {"0": [FIRST], "1": [SECOND]}
    assert sorted(t for m in streams_line["members"] for t in m["tasks"]["active"]) == \
        ["0_0", "0_1", "0_2", "0_3", "1_0", "1_1"]
    assert len({m["process_id"] for m in streams_line["members"]}) == 2
    assert streams_line["num_standby_replicas"] is None
    assert set(streams_line["lag"]["tasks"].values()) == {None}
    assert {(t, p) for t, p, _ in streams_line["committed_offsets"]} <= \
        {(FIRST, p) for p in range(4)} | {(SECOND, p) for p in range(2)}

    # the audit reads the decoded lines and judges them as it judges inspect's: the broker's
    # assignor replayed on the group as the records leave it equals what the broker assigned
    rows = {}
    for name, lines in (("decoded", ours), ("inspected", theirs)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(lines[g]) + "\n" for g in (SHARE_GROUP, APP)))
        code = main(["audit", str(path), "--out", str(tmp_path / name), "--json",
                     "--processes", "1"])
        printed = capsys.readouterr().out.splitlines()
        assert code == 0, printed
        summary = json.loads(printed[-1])["summary"]
        assert summary["groups"] == 2 and summary["malformed"] == 0, summary
        written = (tmp_path / name / "rows.jsonl").read_text().splitlines()
        rows[name] = {(r["group_id"], r["strategy"]): r for r in map(json.loads, written)}
    judged = ("group_type", "members", "partitions", "current_valid", "valid",
              "partitions_moved", "partitions_kept", "reconciling_members")
    assert set(rows["decoded"]) == set(rows["inspected"])
    for key, inspected in rows["inspected"].items():
        decoded = rows["decoded"][key]
        assert {k: decoded[k] for k in judged} == {k: inspected[k] for k in judged}, key
    for key, assignor in ((SHARE_GROUP, "server:simple"), (APP, "streams:sticky")):
        row, described = rows["decoded"][(key, assignor)], rows["inspected"][(key, assignor)]
        assert described["note"] == (f"{assignor} replayed on the group as it is equals what "
                                     "the broker assigned"), described["note"]
        assert row["current_valid"] and row["members"] == 2
        # the Streams group's standby replicas are not in what was decoded: the audit says so
        if key == APP:
            assert row["note"].startswith(described["note"] + "; ") and \
                "streams.num.standby.replicas not read" in row["note"], row["note"]
        else:
            assert row["note"] == described["note"]


def _group_of(record: dict) -> str | None:
    key = record.get("key") or {}
    return key.get("group") or key.get("group_id")


def _lines_of_records(capsys, kafka: str) -> tuple[int, list[dict], str]:
    code = main(["decode", "offsets", "--bootstrap-server", kafka, "--records",
                 "--timeout", "20"])
    out, err = capsys.readouterr()
    return code, [json.loads(text) for text in out.splitlines()], err


def test_a_stateful_streams_groups_standby_tasks_rebuilt_from_the_records(kafka43, tmp_path,
                                                                          capsys):
    """Two members of a stateful app (``streams.num.standby.replicas=1``): each one's active and
    standby tasks and its sub-topology's state, as decoded, equal what inspect reads and what
    the members print."""
    kafka, app, topic = kafka43.bootstrap, "offs43-stateful", "offs43-stateful-in"
    create_topics(kafka, {topic: 4})
    produce(kafka, topic, 4, 5)
    members = []
    try:
        for client in ("offs43-sb-1", "offs43-sb-2"):
            members.append(start_stateful_streams(kafka, app, topic, client, 1,
                                                  tmp_path / f"{client}.log"))
        for member in members:
            member.wait_for(lambda line: line.get("event") == "tasks" and line["active"], 150)

        def settled():
            view = verdict(kafka, app).share_streams
            if not isinstance(view, StreamsSnapshot) or len(view.members) != 2 or \
                    view.reconciling() or view.unassigned() or \
                    any(len(m.tasks["standby"]) != 2 for m in view.members):
                return None
            printed = {thread: {k: tasks[k] for k in ("active", "standby")}
                       for r in members
                       for thread, tasks in ((r.last("tasks") or {}).get("threads")
                                             or {}).items()}
            read = {m.client_id: {k: list(m.tasks[k]) for k in ("active", "standby")}
                    for m in view.members}
            return view if printed == read else None
        wait_until("2 settled stateful members", settled, 180, pause=1)

        ours, theirs = _agreeing(kafka, capsys, {app: _streams_view})
    finally:
        for member in members:
            member.kill()
    line = ours[app]
    assert line["stateful"] == ["0"] and line["subtopologies"] == {"0": [topic]}
    for member in line["members"]:  # each process keeps a copy of what the other runs
        other = [m for m in line["members"] if m is not member][0]
        assert member["tasks"]["standby"] == other["tasks"]["active"]
        assert member["target"] == member["tasks"]
    # the group config is read by inspect, not in what decode reads
    assert (line["num_standby_replicas"], theirs[app]["num_standby_replicas"]) == (None, 1)
