"""The heartbeat rules the timeline follows, on bodies written by the codec's encoder (its
golden tests hold it to Apache Kafka's bytes): null means unchanged, errors by name, leaves,
unknown topic ids, ConsumerGroupDescribe."""

from __future__ import annotations

from typing import Any

import assignframe_codec as codec

from assignframe.decode.apis import read_message
from assignframe.decode.consumer_protocol import build_consumer_timelines
from assignframe.decode.kafka import KafkaFrame

TOPIC_ID = "HDr5R0_tTDOur8tt93uqdw"  # not in any Metadata response below
_counter = iter(range(1, 10_000))


def _frame(kind: str, value: dict[str, Any], request: KafkaFrame | None = None,
           client: str = "c1") -> KafkaFrame:
    api = kind.removesuffix("Request").removesuffix("Response")
    number = next(_counter)
    return KafkaFrame("a:1->b:9092", number * 100, float(number), number, request is None,
                      codec.api_key(api), 1, number, client, codec.encode(kind, value, 1), request)


def heartbeat(member_id: str, epoch: int, answer_epoch: int, error: int = 0,
              assignment: list[int] | None = None, **subscription: Any) -> list[Any]:
    sent = {"group_id": "g", "member_id": member_id, "member_epoch": epoch, "instance_id": None,
            "rack_id": None, "rebalance_timeout_ms": 30000, "subscribed_topic_names": None,
            "subscribed_topic_regex": None, "server_assignor": None, "topic_partitions": None,
            **subscription}
    request = _frame("ConsumerGroupHeartbeatRequest", sent)
    got = {"throttle_time_ms": 0, "error_code": error, "error_message": None,
           "member_id": member_id, "member_epoch": answer_epoch, "heartbeat_interval_ms": 5000,
           "assignment": None if assignment is None else
           {"topic_partitions": [{"topic_id": TOPIC_ID, "partitions": assignment}]}}
    response = _frame("ConsumerGroupHeartbeatResponse", got, request)
    return [read_message(request), read_message(response)]


def test_null_means_unchanged_errors_and_leaves() -> None:
    messages = [
        *heartbeat("m1", 0, 1, assignment=[0, 1], subscribed_topic_names=["orders"],
                   rack_id="r1", server_assignor="range", instance_id="i1"),
        *heartbeat("m1", 1, 1),  # every subscription field null: unchanged
        *heartbeat("m1", 1, 2, assignment=[1]),
        *heartbeat("m2", 0, 2, subscribed_topic_regex="ord.*"),
        *heartbeat("m2", 7, -1, error=_code("FENCED_MEMBER_EPOCH")),
        *heartbeat("m1", -2, -2),
    ]
    [group] = build_consumer_timelines(messages)
    m1, m2 = group.members["m1"], group.members["m2"]
    assert m1.subscription == {"subscribed_topic_names": ["orders"], "rack_id": "r1",
                               "server_assignor": "range", "instance_id": "i1"}
    assert m1.assignment == [[TOPIC_ID, 1]]  # the id stays: no Metadata response named it
    assert m1.state == "left" and m2.state == "fenced"
    assert m2.subscription == {"subscribed_topic_regex": "ord.*"}
    kinds = [(e["event"], e["member_id"], e.get("error")) for e in group.events]
    assert kinds == [("join", "m1", None), ("assignment", "m1", None), ("assignment", "m1", None),
                     ("join", "m2", None), ("epoch", "m2", None),
                     ("error", "m2", "FENCED_MEMBER_EPOCH"), ("static leave", "m1", None)]
    first, second = group.snapshots
    assert (first.generation, second.generation) == (1, 2)
    assert first.protocol == "range" and first.members["m1"].rack == "r1"
    assert first.members["m1"].group_instance_id == "i1"
    assert [tuple(p) for p in second.current.assignments["m1"].partitions] == [(TOPIC_ID, 1)]


def _code(name: str) -> int:
    return next(code for code, known in codec.ERROR_NAMES.items() if known == name)


def test_describe_adds_epochs_and_both_assignments() -> None:
    member = {"member_id": "m1", "instance_id": None, "rack_id": None, "member_epoch": 4,
              "client_id": "c1", "client_host": "/h", "subscribed_topic_names": ["orders"],
              "subscribed_topic_regex": None,
              "assignment": {"topic_partitions": [
                  {"topic_id": TOPIC_ID, "topic_name": "orders", "partitions": [0]}]},
              "target_assignment": {"topic_partitions": [
                  {"topic_id": TOPIC_ID, "topic_name": "orders", "partitions": [0, 1]}]},
              "member_type": -1}
    described = {"throttle_time_ms": 0, "groups": [{
        "error_code": 0, "error_message": None, "group_id": "g", "group_state": "Reconciling",
        "group_epoch": 5, "assignment_epoch": 5, "assignor_name": "uniform",
        "members": [member], "authorized_operations": -2147483648}]}
    request = _frame("ConsumerGroupDescribeRequest",
                     {"group_ids": ["g"], "include_authorized_operations": False})
    message = read_message(_frame("ConsumerGroupDescribeResponse", described, request))
    [group] = build_consumer_timelines([message])
    assert group.described == [{
        "error": None, "group_state": "Reconciling", "group_epoch": 5, "assignment_epoch": 5,
        "assignor": "uniform",
        "members": {"m1": {"epoch": 4, "current": [["orders", 0]],
                           "target": [["orders", 0], ["orders", 1]]}}}]


def test_a_mixed_group_is_one_group() -> None:
    """Classic members (bridged JoinGroup/SyncGroup) join the consumer epochs' snapshots."""
    from assignframe.decode.consumer_protocol import merge_classic_members
    from assignframe.decode.timeline import GroupTimeline, Snapshot
    from assignframe.model import Cluster, GroupAssignment, Member
    from assignframe.snapshot import GroupSnapshot

    [group] = build_consumer_timelines(
        heartbeat("m1", 0, 3, assignment=[0], subscribed_topic_names=["orders"]))
    classic = Snapshot("g", 2, 0.0)
    classic.typed = GroupSnapshot(
        "g", 2, "range", {"old": Member("old", ("orders",))},
        GroupAssignment.from_partitions({"old": [(TOPIC_ID, 1)]}), Cluster({}))
    merge_classic_members([group], [GroupTimeline("g", [classic])])
    [snapshot] = group.snapshots
    assert set(snapshot.members) == {"m1", "old"}
    assert {m: [p.partition for p in a.partitions]
            for m, a in snapshot.current.assignments.items()} == {"m1": [0], "old": [1]}
    assert snapshot.notes == ("classic members from generation 2: old",)
