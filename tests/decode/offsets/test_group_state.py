"""A consumer-protocol group rebuilt from __consumer_offsets records, and its invariants.

The records are written by the codec's encoder (golden-tested against Apache Kafka's own bytes)
from hand-written values; the expected states below are written out by hand.
"""

from __future__ import annotations

import io
import json
from typing import Any

import assignframe_codec as codec
from rich.console import Console

from assignframe.decode.commands import offsets_command
from assignframe.decode.offsets.group_state import check_group, rebuild_groups
from assignframe.decode.offsets.records import decode_offsets_record, read_offsets_file
from assignframe.decode.problems import Problems
from assignframe.model import MemberAssignment, TopicPartition

from ..conftest import GOLDEN

GOLDEN_KIP848 = GOLDEN / "kip848"
TOPIC_ID = "HDr5R0_tTDOur8tt93uqdw"


def _partitions(*numbers: int) -> list[dict[str, Any]]:
    return [{"topic_id": TOPIC_ID, "partitions": list(numbers)}] if numbers else []


def line(record_type: int, key: dict[str, Any], value: dict[str, Any] | None) -> str:
    encoded_key, encoded_value = codec.encode_coordinator_record(
        record_type, key, value, None if value is None else 0)
    return f"{encoded_key.hex()} {encoded_value.hex() if encoded_value else 'null'}\n"


def member(member_id: str) -> dict[str, str]:
    return {"group_id": "g", "member_id": member_id}


def current(epoch: int, *numbers: int, pending: tuple[int, ...] = ()) -> dict[str, Any]:
    return {"member_epoch": epoch, "previous_member_epoch": epoch - 1, "state": 0,
            "assigned_partitions": _partitions(*numbers),
            "partitions_pending_revocation": _partitions(*pending)}


def metadata(client_id: str) -> dict[str, Any]:
    return {"instance_id": None, "rack_id": "r1", "client_id": client_id, "client_host": "/h",
            "subscribed_topic_names": ["orders"], "subscribed_topic_regex": None,
            "rebalance_timeout_ms": 45000, "server_assignor": "uniform",
            "classic_member_metadata": None}


PARTITION_METADATA = {"topics": [{"topic_id": TOPIC_ID, "topic_name": "orders",
                                  "num_partitions": 4, "partition_metadata": []}]}

HEALTHY = [
    line(3, {"group_id": "g"}, {"epoch": 3}),
    line(4, {"group_id": "g"}, PARTITION_METADATA),
    line(5, member("m1"), metadata("a")),
    line(5, member("m2"), metadata("b")),
    line(7, member("m1"), {"topic_partitions": _partitions(0, 1)}),
    line(7, member("m2"), {"topic_partitions": _partitions(2, 3)}),
    line(6, {"group_id": "g"}, {"assignment_epoch": 3}),
    line(8, member("m1"), current(3, 0, 1, pending=(2,))),
    line(8, member("m2"), current(2, 3)),
]


def rebuilt(lines: list[str]) -> Any:
    problems = Problems()
    records = list(read_offsets_file(lines, "records.txt", problems))
    assert problems.items == []
    [group] = rebuild_groups(records)
    return group


def test_state_rebuilt_from_records() -> None:
    group = rebuilt(HEALTHY)
    assert (group.group_epoch, group.assignment_epoch) == (3, 3)
    assert group.members["m1"].client_id == "a"
    assert group.members["m2"].server_assignor == "uniform"
    assert group.members["m2"].subscribed_topic_names == ("orders",)
    assert group.target == {"m1": MemberAssignment((TopicPartition("orders", 0),
                                                    TopicPartition("orders", 1))),
                            "m2": MemberAssignment((TopicPartition("orders", 2),
                                                    TopicPartition("orders", 3)))}
    assert group.current["m1"].assigned == (("orders", 0), ("orders", 1))
    assert group.current["m1"].pending_revocation == (("orders", 2),)
    assert group.current["m2"].member_epoch == 2
    assert check_group(group) == []
    # what decode prints of the group keeps its shape: plain [topic, partition] pairs
    printed = group.to_dict()
    assert printed["target_assignment"]["m2"] == [["orders", 2], ["orders", 3]]
    assert printed["current_assignment"]["m1"] == {
        "member_epoch": 3, "previous_member_epoch": 2, "state": 0,
        "assigned": [["orders", 0], ["orders", 1]], "pending_revocation": [["orders", 2]]}
    assert printed["members"]["m1"]["subscribed_topic_names"] == ["orders"]
    assert printed["members"]["m1"]["rebalance_timeout_ms"] == 45000


def test_tombstones_remove_members_and_an_empty_groups_target_may_lag() -> None:
    # the records Kafka 4.1 writes when the last members leave or are fenced: member tombstones
    # and a new group epoch, no new target (none is computed until a member heartbeats)
    leave = [line(5, member("m1"), None), line(7, member("m1"), None), line(8, member("m1"), None),
             line(5, member("m2"), None), line(7, member("m2"), None), line(8, member("m2"), None),
             line(3, {"group_id": "g"}, {"epoch": 4})]
    group = rebuilt(HEALTHY + leave)
    assert group.members == {} and group.current == {} and group.target == {}
    assert (group.group_epoch, group.assignment_epoch) == (4, 3)
    assert check_group(group) == []
    ahead = rebuilt([*HEALTHY, *leave, line(6, {"group_id": "g"}, {"assignment_epoch": 5})])
    assert check_group(ahead) == ["assignment epoch 5 is ahead of group epoch 4"]


def test_partition_in_two_current_assignments_and_epoch_beyond_target() -> None:
    group = rebuilt(HEALTHY + [line(8, member("m2"), current(5, 1, 3))])
    assert sorted(check_group(group)) == [
        "member m2 is at epoch 5, beyond the target assignment epoch 3",
        "partition orders-1 is in the current assignment of both m1 and m2",
    ]


def test_a_partition_listed_twice_for_one_member_is_held_twice() -> None:
    # the core's validity check counts a partition given twice to one member as double-owned;
    # the rebuilt group's own owner map used to keep one owner per partition and missed it
    group = rebuilt(HEALTHY + [line(8, member("m2"), current(2, 3, 3))])
    assert check_group(group) == [
        "partition orders-3 is in the current assignment of m2, 2 times"]
    three = rebuilt(HEALTHY + [line(5, member("m3"), metadata("c")),
                               line(8, member("m2"), current(2, 1)),
                               line(8, member("m3"), current(2, 1))])
    assert check_group(three) == [
        "partition orders-1 is in the current assignment of m1, m2 and m3"]


def test_offsets_command_reports_broken_invariants(tmp_path: Any) -> None:
    path = tmp_path / "records.txt"
    path.write_text("".join(HEALTHY + [line(8, member("m2"), current(3, 1))]))
    out, err = io.StringIO(), io.StringIO()
    status = offsets_command(Console(file=out, width=200), Console(file=err, width=200),
                             file=str(path), records_json=True)
    assert status == 1
    assert "partition orders-1 is in the current assignment of both m1 and m2" in err.getvalue()
    assert '"consumer_group_state"' in out.getvalue()


def test_every_golden_coordinator_record_decodes() -> None:
    lines = (GOLDEN_KIP848 / "codec.jsonl").read_text().splitlines()
    cases = [c for c in map(json.loads, lines)
             if c["kind"] == "coordinator_record" and c["record_type"] >= 3]
    assert cases
    for case in cases:
        value = None if case.get("value_hex") is None else bytes.fromhex(case["value_hex"])
        record = decode_offsets_record(bytes.fromhex(case["key_hex"]), value, case["case"])
        assert record.error is None, (case["case"], record.error)
        assert record.record_type == case["key_type"].removesuffix("Key")
        assert record.tombstone == case["tombstone"]


def _offset_commit(group: str, topic: str, partition: int, offset: int | None) -> str:
    key = codec.encode_record("OffsetCommitKey", {"group": group, "topic": topic,
                                                  "partition": partition}, version=1)
    if offset is None:
        return f"{key.hex()} null\n"
    value = codec.encode_record("OffsetCommitValue", {
        "offset": offset, "leader_epoch": -1, "metadata": "", "commit_timestamp": 1}, version=3)
    return f"{key.hex()} {value.hex()}\n"


def test_json_is_one_snapshot_per_group_that_audit_reads(tmp_path: Any) -> None:
    """--json: the consumer group g as a snapshot (the records' epochs, members, current and
    target assignments, committed offsets); a group with offsets only is named on stderr."""
    from assignframe.snapshot import read_snapshot

    path = tmp_path / "records.txt"
    commits = [_offset_commit("g", "orders", 0, 7), _offset_commit("g", "orders", 1, 9),
               _offset_commit("g", "orders", 1, None), _offset_commit("only-offsets", "t", 0, 3)]
    path.write_text("".join([line(4, {"group_id": "g"}, PARTITION_METADATA), *HEALTHY,
                             *commits]))
    out, err = io.StringIO(), io.StringIO()
    status = offsets_command(Console(file=out, width=200), Console(file=err, width=400),
                             file=str(path), as_json=True)
    assert status == 0, err.getvalue()
    [raw] = [json.loads(text) for text in out.getvalue().splitlines()]
    assert raw["committed_offsets"] == [["orders", 0, 7]]  # the tombstone deleted orders-1
    snapshot = read_snapshot(raw)
    assert (snapshot.group_id, snapshot.group_type, snapshot.generation) == ("g", "consumer", 3)
    assert (snapshot.target_epoch, snapshot.assignor) == (3, "uniform")
    owned = {m: sorted((tp.topic, tp.partition) for tp in snapshot.current.partitions_of(m))
             for m in snapshot.members}
    assert owned == {"m1": [("orders", 0), ("orders", 1)], "m2": [("orders", 3)]}
    assert snapshot.target is not None
    assert sorted(tp.partition for tp in snapshot.target.partitions_of("m2")) == [2, 3]
    assert snapshot.info("m2").member_epoch == 2 and snapshot.info("m1").client_id == "a"
    assert snapshot.cluster.partitions_per_topic == {"orders": 4}
    note = err.getvalue().strip()
    assert note.startswith("assignframe: note: 1 group(s) have no members"), note
    assert "only-offsets (no group metadata; 1 committed offset(s))" in note
