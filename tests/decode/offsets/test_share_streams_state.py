"""Share and Streams groups rebuilt from __consumer_offsets records, their invariants, and their
snapshot lines (``decode offsets --json``).

The records are written by the codec's encoder from hand-written values shaped as Kafka 4.3.1
writes them (tests/kafka43/test_offsets_live.py reads the broker's own); the expected states are
written out by hand.
"""

from __future__ import annotations

import io
import json
from typing import Any

from rich.console import Console

from assignframe.decode.commands import offsets_command
from assignframe.decode.offsets.group_state import GroupRebuild, check_group
from assignframe.decode.offsets.records import read_offsets_file
from assignframe.decode.offsets.snapshots import TopicInfo, offsets_snapshots
from assignframe.decode.problems import Problems
from assignframe.snapshot import read_snapshot
from assignframe.snapshot.share import ShareSnapshot
from assignframe.snapshot.streams import StreamsSnapshot

from .test_group_state import line

TOPIC_ID = "Oy93eD9YTMyw_KS_Xbvgnw"  # a topic id as Kafka 4.3.1 wrote one for topic "q"


def key(group: str, member: str | None = None) -> dict[str, str]:
    return {"group_id": group} if member is None else {"group_id": group, "member_id": member}


# ------------------------------------------------------------------------------ share group "sg"
def share_member(client_id: str) -> dict[str, Any]:
    return {"rack_id": None, "client_id": client_id, "client_host": "/127.0.0.1",
            "subscribed_topic_names": ["q"]}


def share_current(epoch: int, *partitions: int) -> dict[str, Any]:
    return {"member_epoch": epoch, "previous_member_epoch": epoch - 1, "state": 0,
            "assigned_partitions": [{"topic_id": TOPIC_ID, "partitions": list(partitions)}]
            if partitions else []}


def share_target(*partitions: int) -> dict[str, Any]:
    return {"topic_partitions": [{"topic_id": TOPIC_ID, "partitions": list(partitions)}]}


STATE_PARTITIONS = {"initializing_topics": [], "deleting_topics": [], "initialized_topics": [
    {"topic_id": TOPIC_ID, "topic_name": "q", "partitions": [0, 1, 2]}]}

SHARE = [
    line(10, key("sg", "s1"), share_member("sh-1")),
    line(11, key("sg"), {"epoch": 2, "metadata_hash": 7}),
    line(13, key("sg", "s1"), share_target(0, 1, 2)),
    line(12, key("sg"), {"assignment_epoch": 2}),
    line(14, key("sg", "s1"), share_current(2, 0, 1, 2)),
    line(15, key("sg"), STATE_PARTITIONS),
    line(10, key("sg", "s2"), share_member("sh-2")),
    line(11, key("sg"), {"epoch": 3, "metadata_hash": 7}),
    line(13, key("sg", "s1"), share_target(0, 1)),
    line(13, key("sg", "s2"), share_target(2)),
    line(12, key("sg"), {"assignment_epoch": 3}),
    line(14, key("sg", "s2"), share_current(3, 2)),
]


# ---------------------------------------------------------------------------- Streams group "app"
def streams_member(client_id: str, process: str) -> dict[str, Any]:
    return {"instance_id": None, "rack_id": None, "client_id": client_id,
            "client_host": "/127.0.0.1", "rebalance_timeout_ms": 300000, "topology_epoch": 0,
            "process_id": process, "user_endpoint": None, "client_tags": []}


def tasks(*partitions: int, subtopology: str = "0") -> list[dict[str, Any]]:
    return [{"subtopology_id": subtopology, "partitions": list(partitions)}] if partitions else []


def streams_target(*active: int) -> dict[str, Any]:
    return {"active_tasks": tasks(*active), "standby_tasks": [], "warmup_tasks": []}


def streams_current(epoch: int, *active: int, pending: tuple[int, ...] = ()) -> dict[str, Any]:
    return {"member_epoch": epoch, "previous_member_epoch": epoch - 1, "state": 0,
            "active_tasks": tasks(*active), "standby_tasks": [], "warmup_tasks": [],
            "active_tasks_pending_revocation": tasks(*pending),
            "standby_tasks_pending_revocation": [], "warmup_tasks_pending_revocation": []}


TOPOLOGY = {"epoch": 0, "subtopologies": [
    {"subtopology_id": "0", "source_topics": ["clicks"], "source_topic_regex": [],
     "state_changelog_topics": [], "repartition_sink_topics": ["app-rep"],
     "repartition_source_topics": [], "copartition_groups": []},
    {"subtopology_id": "1", "source_topics": [], "source_topic_regex": [],
     "state_changelog_topics": [{"name": "app-store-changelog", "partitions": -1,
                                 "replication_factor": -1, "topic_configs": []}],
     "repartition_sink_topics": [],
     "repartition_source_topics": [{"name": "app-rep", "partitions": 2,
                                    "replication_factor": -1, "topic_configs": []}],
     "copartition_groups": []}]}

STREAMS = [
    line(19, key("app", "t1"), streams_member("st-1-StreamThread-1-consumer", "p1")),
    line(19, key("app", "t2"), streams_member("st-2-StreamThread-1-consumer", "p2")),
    line(23, key("app"), TOPOLOGY),
    line(17, key("app"), {"epoch": 4, "metadata_hash": 9}),
    line(21, key("app", "t1"), streams_target(0, 1)),
    line(21, key("app", "t2"), streams_target(2, 3)),
    line(20, key("app"), {"assignment_epoch": 4}),
    # t1 still revokes 2 (its old task) at epoch 3; t2 waits for it
    line(22, key("app", "t1"), streams_current(3, 0, 1, pending=(2,))),
    line(22, key("app", "t2"), streams_current(4, 3)),
]


def rebuilt(lines: list[str]) -> GroupRebuild:
    problems = Problems()
    rebuild = GroupRebuild()
    for record in read_offsets_file(lines, "records.txt", problems):
        rebuild.add(record)
    assert problems.items == []
    return rebuild


def test_share_group_rebuilt_from_its_records() -> None:
    group = rebuilt(SHARE).share["sg"]
    assert (group.group_epoch, group.assignment_epoch, group.deleted) == (3, 3, False)
    assert group.members["s2"].client_id == "sh-2"
    assert group.members["s1"].subscribed_topic_names == ("q",)
    assert group.topic_names == {TOPIC_ID: "q"}
    assert group.target == {"s1": ((TOPIC_ID, 0), (TOPIC_ID, 1)), "s2": ((TOPIC_ID, 2),)}
    # s1 has not heartbeated since the new target: it still holds 2 at epoch 2, as does s2 at 3;
    # a partition held by two share members is no violation
    assert group.current["s1"].assigned == ((TOPIC_ID, 0), (TOPIC_ID, 1), (TOPIC_ID, 2))
    assert (group.current["s1"].member_epoch, group.current["s2"].member_epoch) == (2, 3)
    assert check_group(group) == []
    assert rebuilt(SHARE).states() == []  # no consumer-protocol group among them


def test_share_snapshot_line() -> None:
    found = offsets_snapshots(rebuilt(SHARE), {"q": TopicInfo(None, 3)})
    [raw] = found.lines
    assert (raw["source"], raw["committed_offsets"]) == ("__consumer_offsets", [])
    snapshot = read_snapshot(raw)
    assert isinstance(snapshot, ShareSnapshot)
    assert (snapshot.group_id, snapshot.group_epoch, snapshot.assignment_epoch) == ("sg", 3, 3)
    assert (snapshot.state, snapshot.assignor, snapshot.backlog) == (None, None, {})
    assert snapshot.subscribed == {"q": 3} and snapshot.topic_ids == {"q": TOPIC_ID}
    assert [(m.member_id, m.client_id, m.client_host, m.member_epoch, m.subscribed,
             [(tp.topic, tp.partition) for tp in m.partitions]) for m in snapshot.members] == [
        ("s1", "sh-1", "/127.0.0.1", 2, ("q",), [("q", 0), ("q", 1), ("q", 2)]),
        ("s2", "sh-2", "/127.0.0.1", 3, ("q",), [("q", 2)])]
    assert [m.member_id for m in snapshot.behind()] == ["s1"]
    assert raw["backlog"] is None
    assert any("backlog unknown" in note for note in snapshot.notes)
    assert any("records hold no group state" in note for note in snapshot.notes)


def test_share_topic_unnamed_without_state_partition_metadata_or_metadata() -> None:
    lines = [text for text in SHARE if text != line(15, key("sg"), STATE_PARTITIONS)]
    [raw] = offsets_snapshots(rebuilt(lines)).lines
    snapshot = read_snapshot(raw)
    assert isinstance(snapshot, ShareSnapshot)
    assert snapshot.members[1].partitions[0].topic == TOPIC_ID
    assert f"topic ids not named (no Metadata for them): {TOPIC_ID}" in snapshot.notes
    assert "partition count of q not read (no Metadata)" in snapshot.notes
    assert snapshot.subscribed == {} and snapshot.topic_ids == {}
    # Metadata names the topic id where the records did not
    named = offsets_snapshots(rebuilt(lines), {"q": TopicInfo(TOPIC_ID, 3)}).lines[0]
    assert named["members"][1]["partitions"] == [["q", 2]] and named["subscribed"] == {"q": 3}


def test_streams_group_rebuilt_from_its_records() -> None:
    group = rebuilt(STREAMS).streams["app"]
    assert (group.group_epoch, group.assignment_epoch, group.topology_epoch) == (4, 4, 0)
    # a sub-topology reading a repartition topic has it as its input; one with a changelog
    # keeps state
    assert group.subtopologies == {"0": ("clicks",), "1": ("app-rep",)}
    assert group.stateful == ("1",)
    assert group.members["t2"].process_id == "p2"
    assert group.target["t2"] == {"active": ("0_2", "0_3"), "standby": (), "warmup": ()}
    assert group.current["t1"].tasks["active"] == ("0_0", "0_1")
    assert group.current["t1"].pending_revocation["active"] == ("0_2",)
    assert check_group(group) == []


def test_streams_active_task_held_twice_and_epoch_beyond_target() -> None:
    # t2 took 0_2 while t1 still revokes it: one task, two owners
    group = rebuilt(STREAMS + [line(22, key("app", "t2"), streams_current(5, 2, 3))])
    assert check_group(group.streams["app"]) == [
        "member t2 is at epoch 5, beyond the target assignment epoch 4",
        "active task 0_2 is held by both t1 and t2"]
    twice = rebuilt(STREAMS + [line(22, key("app", "t2"), streams_current(4, 3, pending=(3,)))])
    assert check_group(twice.streams["app"]) == ["active task 0_3 is held by t2, 2 times"]


def test_streams_snapshot_line() -> None:
    commit_free = offsets_snapshots(rebuilt(STREAMS), {"clicks": TopicInfo(None, 4)})
    [raw] = commit_free.lines
    snapshot = read_snapshot(raw)
    assert isinstance(snapshot, StreamsSnapshot)
    assert (snapshot.group_id, snapshot.group_epoch, snapshot.assignment_epoch,
            snapshot.topology_epoch) == ("app", 4, 4, 0)
    assert snapshot.subtopologies == {"0": ("clicks",), "1": ("app-rep",)}
    assert snapshot.stateful == ("1",) and snapshot.partitions == {"clicks": 4}
    assert (snapshot.num_standby_replicas, snapshot.assignor, snapshot.state) == (None, None, None)
    assert [(m.member_id, m.client_id, m.process_id, m.member_epoch, m.tasks["active"],
             m.target["active"]) for m in snapshot.members] == [
        ("t1", "st-1-StreamThread-1-consumer", "p1", 3, ("0_0", "0_1"), ("0_0", "0_1")),
        ("t2", "st-2-StreamThread-1-consumer", "p2", 4, ("0_3",), ("0_2", "0_3"))]
    # what the snapshot derives: t2 waits for 0_2, which t1 (behind the epoch) has not given up
    assert snapshot.waited_for() == {"t2": ["0_2"]}
    assert snapshot.not_given_up() == {"t1": ["0_2"]}
    assert raw["lag"]["tasks"] == {"0_0": None, "0_1": None, "0_3": None}
    assert "end offsets not read: task lag unknown" in snapshot.notes
    assert "partition count of app-rep not read (no Metadata)" in snapshot.notes


def test_tombstones_delete_members_and_groups() -> None:
    leave = [line(10, key("sg", "s2"), None), line(13, key("sg", "s2"), None),
             line(14, key("sg", "s2"), None), line(11, key("sg"), {"epoch": 4, "metadata_hash": 7})]
    group = rebuilt(SHARE + leave).share["sg"]
    assert set(group.members) == set(group.current) == set(group.target) == {"s1"}
    assert group.group_epoch == 4
    # the whole group deleted: its records tombstoned, the group's metadata last
    deleted = [line(10, key("sg", "s1"), None), line(13, key("sg", "s1"), None),
               line(14, key("sg", "s1"), None), line(12, key("sg"), None),
               line(15, key("sg"), None), line(11, key("sg"), None)]
    streams_gone = [line(19, key("app", m), None) for m in ("t1", "t2")] + \
        [line(22, key("app", m), None) for m in ("t1", "t2")] + \
        [line(23, key("app"), None), line(17, key("app"), None)]
    rebuild = rebuilt(SHARE + leave + deleted + STREAMS + streams_gone)
    assert rebuild.share["sg"].deleted and rebuild.share["sg"].members == {}
    assert rebuild.streams["app"].deleted and rebuild.streams["app"].topology_epoch is None
    assert check_group(rebuild.share["sg"]) == [] == check_group(rebuild.streams["app"])
    found = offsets_snapshots(rebuild)
    assert found.lines == []
    assert found.without_members == {"app": "deleted (tombstone); no offsets",
                                     "sg": "deleted (tombstone); no offsets"}


def test_a_member_with_one_of_its_records_is_left_out_and_named() -> None:
    lonely = rebuilt(SHARE + [line(10, key("sg", "s3"), share_member("sh-3"))])
    [raw] = offsets_snapshots(lonely).lines
    assert [m["member_id"] for m in raw["members"]] == ["s1", "s2"]
    assert ("member(s) with only one of their metadata and current assignment records, left "
            "out: s3") in raw["notes"]
    only = rebuilt([line(17, key("app"), {"epoch": 1, "metadata_hash": 0}),
                    line(20, key("app"), {"assignment_epoch": 1}),
                    line(22, key("app", "t9"), streams_current(1, 0))])
    assert offsets_snapshots(only).without_members == {"app": (
        "streams, no members (group epoch 1); member(s) with only one of their metadata and "
        "current assignment records, left out: t9; no offsets")}


def test_a_group_whose_epochs_are_not_in_the_records_is_named() -> None:
    # the records of a share group without its ShareGroupMetadata (e.g. a file cut short)
    cut = [text for text in SHARE if not text.startswith(line(11, key("sg"), None).split()[0])]
    rebuild = rebuilt(cut)
    assert rebuild.share["sg"].group_epoch is None
    assert offsets_snapshots(rebuild).without_members == {
        "sg": "share, group epoch not in the records; no offsets"}


def test_offsets_command_prints_and_checks_share_and_streams_groups(tmp_path: Any) -> None:
    path = tmp_path / "records.txt"
    path.write_text("".join(SHARE + STREAMS
                            + [line(22, key("app", "t2"), streams_current(4, 2, 3))]))
    out, err = io.StringIO(), io.StringIO()
    status = offsets_command(Console(file=out, width=200), Console(file=err, width=300),
                             file=str(path), records_json=True)
    assert status == 1
    assert "active task 0_2 is held by both t1 and t2" in err.getvalue()
    states = [json.loads(text) for text in out.getvalue().splitlines()]
    share = [s for s in states if "share_group_state" in s]
    streams = [s for s in states if "streams_group_state" in s]
    assert [s["share_group_state"]["group_id"] for s in share] == ["sg"]
    assert share[0]["problems"] == []
    assert streams[0]["problems"] == ["active task 0_2 is held by both t1 and t2"]
    assert streams[0]["streams_group_state"]["current_assignment"]["t1"]["pending_revocation"] \
        == {"active": ["0_2"], "standby": [], "warmup": []}
