"""The heartbeat rules the timeline follows, on bodies written by the codec's encoder (its
golden tests hold it to Apache Kafka's bytes): null means unchanged, errors by name, leaves,
unknown topic ids, ConsumerGroupDescribe."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import assignframe_codec as codec

from assignframe.decode.kip848.timeline import build_consumer_timelines
from assignframe.decode.traffic.frames import KafkaFrame
from assignframe.decode.traffic.messages import read_message

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
        # it had revoked partition 0 already: the coordinator may move it on (an owned list
        # still holding 0, or omitted, would make this answer impossible: test_epoch_checks.py)
        *heartbeat("m1", 1, 2, assignment=[1],
                   topic_partitions=[{"topic_id": TOPIC_ID, "partitions": [1]}]),
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
    from assignframe.decode.classic.timeline import GroupTimeline, Snapshot
    from assignframe.decode.kip848.timeline import merge_classic_members
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


# -- epochs checked against the coordinator's reconciliation -------------------------------------


def owned(*partitions: int) -> dict[str, Any]:
    """The ``topic_partitions`` a heartbeat reports."""
    return {"topic_partitions": [{"topic_id": TOPIC_ID, "partitions": list(partitions)}]}


JOIN = {"subscribed_topic_names": ["orders"], "topic_partitions": []}


def _impossible(*exchanges: list[Any]) -> list[str]:
    [group] = build_consumer_timelines([m for exchange in exchanges for m in exchange])
    return [e["reason"] for e in group.events if e["event"] == "impossible"]


def test_a_hand_over_the_coordinator_makes_passes() -> None:
    assert _impossible(
        heartbeat("m1", 0, 1, assignment=[0, 1], **JOIN),
        heartbeat("m1", 1, 1),  # unchanged, owned omitted
        heartbeat("m1", 1, 1, assignment=[1], **owned(0, 1)),  # revoke 0: epoch stays
        heartbeat("m1", 1, 1),  # still revoking (omitted: still owns 0): nothing moves
        heartbeat("m1", 1, 2, **owned(1)),  # acknowledged: the new epoch
        heartbeat("m1", 1, 2, **owned(1)),  # its previous epoch (a lost answer), owning less
        heartbeat("m1", 2, 2, assignment=[1, 2]),  # an unreleased partition arrives later
    ) == []


def test_after_any_change_the_previous_epoch_is_the_epoch_it_changed_at() -> None:
    # the unreleased partition arrived at epoch 2: the coordinator's previous epoch is now 2,
    # so a heartbeat still at epoch 1 is fenced (Kafka's builder records the epoch it came from)
    assert _impossible(
        heartbeat("m1", 0, 1, assignment=[0], **JOIN),
        heartbeat("m1", 1, 2, **owned(0)),
        heartbeat("m1", 2, 2, assignment=[0, 1]),
        heartbeat("m1", 1, 2, **owned(0)),
    ) == [
        "the coordinator fences this heartbeat: epoch 1 is below the member's epoch 2 and is "
        "not its previous epoch (2)"
    ]


def test_a_new_epoch_while_the_member_still_owns_what_it_must_revoke_is_flagged() -> None:
    reasons = _impossible(
        heartbeat("m1", 0, 1, assignment=[0, 1], **JOIN),
        heartbeat("m1", 1, 2, assignment=[1], **owned(0, 1)),
    )
    assert reasons == [
        f"moved to epoch 2 while it had to revoke {TOPIC_ID}-0 and still reported owning "
        f"{TOPIC_ID}-0: the coordinator keeps such a member at epoch 1 until a heartbeat no "
        "longer reports them"
    ]


def test_an_omitted_owned_list_counts_as_still_owning() -> None:
    [reason] = _impossible(
        heartbeat("m1", 0, 1, assignment=[0, 1], **JOIN),
        heartbeat("m1", 1, 1, assignment=[1, 2]),  # takes 0 away and gives 2 at once
    )
    assert reason.startswith(f"got {TOPIC_ID}-2 while it had to revoke {TOPIC_ID}-0 and omitted")


def test_a_partition_pending_revocation_holds_the_member_back_until_released() -> None:
    revoking = [
        heartbeat("m1", 0, 1, assignment=[0, 1], **JOIN),
        heartbeat("m1", 1, 1, assignment=[1], **owned(0, 1)),  # 0 is pending revocation
    ]
    assert _impossible(*revoking, heartbeat("m1", 1, 2, **owned(0, 1))) == [
        f"moved to epoch 2 while it had to revoke {TOPIC_ID}-0 and still reported owning "
        f"{TOPIC_ID}-0: the coordinator keeps such a member at epoch 1 until a heartbeat no "
        "longer reports them"
    ]
    assert _impossible(*revoking, heartbeat("m1", 1, 2, **owned(1))) == []


def test_epochs_never_go_back_and_stale_epochs_are_fenced() -> None:
    start = heartbeat("m1", 0, 3, assignment=[0], **JOIN)
    assert _impossible(start, heartbeat("m1", 3, 2)) == [
        "the member epoch went back from 3 to 2"
    ]
    assert _impossible(start, heartbeat("m1", 5, 3)) == [
        "the coordinator fences this heartbeat: epoch 5 is above the member's epoch 3"
    ]
    moved = [start, heartbeat("m1", 3, 4, **owned(0))]
    assert _impossible(*moved, heartbeat("m1", 2, 4, **owned(0))) == [
        "the coordinator fences this heartbeat: epoch 2 is below the member's epoch 4 and is "
        "not its previous epoch (3)"
    ]
    assert _impossible(*moved, heartbeat("m1", 3, 4)) == [
        "the coordinator fences this heartbeat: previous epoch 3 without its owned partitions"
    ]
    assert _impossible(*moved, heartbeat("m1", 3, 4, **owned(0))) == []


def test_a_fenced_member_starts_over_and_a_member_seen_mid_capture_from_its_assignment() -> None:
    assert _impossible(
        heartbeat("m1", 0, 1, assignment=[0], **JOIN),
        heartbeat("m1", 1, -1, error=_code("FENCED_MEMBER_EPOCH")),
        heartbeat("m1", 0, 5, assignment=[1], **JOIN),  # rejoins: epoch 5 is fine
        heartbeat("m2", 7, 7),  # first seen mid-capture, nothing known: not checked
        heartbeat("m2", 7, 7, assignment=[2]),
        heartbeat("m2", 7, 8, assignment=[3]),  # took 2 away, omitted owned: flagged
    ) == [
        f"got {TOPIC_ID}-3 while it had to revoke {TOPIC_ID}-2 and omitted its owned "
        "partitions (which means it still owns them all): the coordinator keeps such a member "
        "at epoch 7 until a heartbeat no longer reports them"
    ]


def test_the_shipped_capture_has_no_impossible_step() -> None:
    from assignframe.decode.capture import CaptureOptions, iter_messages
    from assignframe.decode.problems import Problems

    capture = Path(__file__).parents[3] / "assignframe/data/captures"
    problems = Problems()
    messages = iter_messages(str(capture / "kafka_group_consumer_protocol.pcap"), problems,
                             CaptureOptions())
    [group] = build_consumer_timelines(messages)
    assert not problems and sum(e["event"] == "assignment" for e in group.events) == 5
    assert [e for e in group.events if e["event"] == "impossible"] == []
