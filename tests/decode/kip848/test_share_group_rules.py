"""The share-group (KIP-932) rules decode follows, on ShareGroupHeartbeat bodies written by the
codec's encoder (its golden tests hold it to Kafka 4.3.1's bytes): a member epoch of -1 leaves,
no owned partitions and no reconciliation check (the coordinator hands a share member its target
at once), a partition held by several members is shared, not double-owned."""

from __future__ import annotations

from typing import Any

import assignframe_codec as codec

from assignframe.decode.kip848.share import share_metrics, shared_partitions, unheld_partitions
from assignframe.decode.kip848.timeline import build_consumer_timelines
from assignframe.decode.traffic.frames import KafkaFrame
from assignframe.decode.traffic.messages import read_message
from assignframe.model import Cluster, GroupAssignment, Member, TopicPartition
from assignframe.snapshot import GroupSnapshot, snapshot_metrics

TOPIC_ID = "HDr5R0_tTDOur8tt93uqdw"  # named by no Metadata response: the id stays
_counter = iter(range(1, 10_000))


def _frame(kind: str, value: dict[str, Any], request: KafkaFrame | None = None) -> KafkaFrame:
    api = kind.removesuffix("Request").removesuffix("Response")
    number = next(_counter)
    return KafkaFrame("a:1->b:9092", number * 100, float(number), number, request is None,
                      codec.api_key(api), 1, number, "s", codec.encode(kind, value, 1), request)


def heartbeat(member_id: str, epoch: int, answer_epoch: int, assignment: list[int] | None,
              error: int = 0) -> list[Any]:
    sent = {"group_id": "g", "member_id": member_id, "member_epoch": epoch, "rack_id": None,
            "subscribed_topic_names": ["t"] if epoch == 0 else None}
    request = _frame("ShareGroupHeartbeatRequest", sent)
    got = {"throttle_time_ms": 0, "error_code": error, "error_message": None,
           "member_id": member_id, "member_epoch": answer_epoch, "heartbeat_interval_ms": 1000,
           "assignment": None if assignment is None else
           {"topic_partitions": [{"topic_id": TOPIC_ID, "partitions": assignment}]}}
    return [read_message(request), read_message(_frame("ShareGroupHeartbeatResponse", got,
                                                       request))]


def test_a_share_group_joins_shares_and_leaves():
    messages = [
        *heartbeat("m1", 0, 1, [0, 1]),
        *heartbeat("m2", 0, 2, [0, 1]),  # both hold both partitions at once: no revocation
        *heartbeat("m1", 1, 2, None),
        *heartbeat("m2", -1, -1, None),  # a share member leaves with -1 (no static members)
        *heartbeat("m1", 2, 3, [0, 1]),
    ]
    (group,) = build_consumer_timelines(messages)
    assert group.group_type == "share"
    kinds = [(e["member_id"], e["event"]) for e in group.events]
    assert kinds == [("m1", "join"), ("m1", "assignment"), ("m2", "join"),
                     ("m2", "assignment"), ("m1", "epoch"), ("m2", "leave"),
                     ("m1", "epoch")]
    assert not [e for e in group.events if e["event"] == "impossible"]
    assert {m.member_id: m.state for m in group.members.values()} == {"m1": "active",
                                                                      "m2": "left"}
    assert all(m.owned is None and m.reported is None for m in group.members.values())
    epoch2 = next(s for s in group.snapshots if s.generation == 2)
    assert epoch2.group_type == "share" and sorted(epoch2.members) == ["m1", "m2"]
    assert {epoch2.info(m).member_type for m in epoch2.members} == {"share"}
    assert shared_partitions(epoch2) == [TopicPartition(TOPIC_ID, 0), TopicPartition(TOPIC_ID, 1)]


def test_a_fenced_share_member():
    messages = [*heartbeat("m1", 0, 1, [0]), *heartbeat("m1", 1, 0, None, error=110)]
    (group,) = build_consumer_timelines(messages)
    assert codec.error_name(110) == "FENCED_MEMBER_EPOCH"
    assert group.members["m1"].state == "fenced"
    assert group.events[-1]["error"] == "FENCED_MEMBER_EPOCH"


def _snapshot(assignment: dict[str, list[int]]) -> GroupSnapshot:
    members = {m: Member(m, ("t",)) for m in assignment}
    current = GroupAssignment.from_partitions(
        {m: [("t", p) for p in ps] for m, ps in assignment.items()})
    return GroupSnapshot("g", 3, None, members, current, Cluster({"t": 3}), group_type="share")


def test_shared_partitions_are_valid_and_unheld_ones_are_not():
    shared = _snapshot({"a": [0, 1, 2], "b": [0, 1, 2]})
    assert not snapshot_metrics(shared).validity.is_valid  # one-owner rules: double-owned
    metrics = share_metrics(shared)
    assert metrics.validity.is_valid and metrics.validity.double_owned == ()
    assert len(shared_partitions(shared)) == 3 and unheld_partitions(shared) == []
    short = _snapshot({"a": [0], "b": [0]})
    assert not share_metrics(short).validity.is_valid
    assert unheld_partitions(short) == [TopicPartition("t", 1), TopicPartition("t", 2)]
    assert share_metrics(short).validity.unowned == (TopicPartition("t", 1),
                                                     TopicPartition("t", 2))
