"""The Streams-group (KIP-1071) rules decode follows, on StreamsGroupHeartbeat bodies written by
the codec's encoder (its golden tests hold it to Kafka 4.3.1's bytes), where the shipped capture
(stateless, no static members) cannot show them: each kind of task (active, standby, warm-up)
null means that kind alone is unchanged, the topology comes from a joining request, -2 is a
static member's leave, and fencing."""

from __future__ import annotations

from typing import Any

import assignframe_codec as codec

from assignframe.decode.kip848.timeline import build_consumer_timelines
from assignframe.decode.traffic.frames import KafkaFrame
from assignframe.decode.traffic.messages import read_message
from assignframe.streams_assignor import MemberTasks

_counter = iter(range(1, 10_000))
TOPOLOGY = {"epoch": 3, "subtopologies": [
    {"subtopology_id": "0", "source_topics": ["words"], "source_topic_regex": [],
     "state_changelog_topics": [], "repartition_sink_topics": [],
     "repartition_source_topics": [], "copartition_groups": []},
    {"subtopology_id": "1", "source_topics": ["clicks", "views"], "source_topic_regex": [],
     "state_changelog_topics": [], "repartition_sink_topics": [],
     "repartition_source_topics": [], "copartition_groups": []}]}


def _frame(kind: str, value: dict[str, Any], request: KafkaFrame | None = None) -> KafkaFrame:
    api = kind.removesuffix("Request").removesuffix("Response")
    number = next(_counter)
    return KafkaFrame("a:1->b:9092", number * 100, float(number), number, request is None,
                      codec.api_key(api), 0, number, "s", codec.encode(kind, value, 0), request)


def _tasks(labels: list[str] | None) -> list[dict[str, Any]] | None:
    """``["0_1", "1_0"]`` as the wire's TaskIds (None stays None: unchanged)."""
    if labels is None:
        return None
    by: dict[str, list[int]] = {}
    for label in labels:
        subtopology, partition = label.split("_")
        by.setdefault(subtopology, []).append(int(partition))
    return [{"subtopology_id": s, "partitions": p} for s, p in by.items()]


def heartbeat(member_id: str, epoch: int, answer_epoch: int,
              answer: tuple[list[str] | None, list[str] | None, list[str] | None],
              owned: list[str] | None = None, error: int = 0) -> list[Any]:
    joining = epoch == 0
    sent = {"group_id": "app", "member_id": member_id, "member_epoch": epoch,
            "endpoint_information_epoch": 0, "instance_id": "i-" + member_id if joining else None,
            "rack_id": None, "rebalance_timeout_ms": 30000,
            "topology": TOPOLOGY if joining else None,
            "active_tasks": _tasks(owned), "standby_tasks": _tasks([] if owned else None),
            "warmup_tasks": _tasks([] if owned else None),
            "process_id": "p-" + member_id if joining else None, "user_endpoint": None,
            "client_tags": [] if joining else None, "task_offsets": None,
            "task_end_offsets": None, "shutdown_application": False}
    request = _frame("StreamsGroupHeartbeatRequest", sent)
    active, standby, warmup = answer
    got = {"throttle_time_ms": 0, "error_code": error, "error_message": None,
           "member_id": member_id, "member_epoch": answer_epoch, "heartbeat_interval_ms": 5000,
           "acceptable_recovery_lag_legacy": 0, "task_offset_interval_ms": 60000,
           "acceptable_recovery_lag": 0, "status": None, "active_tasks": _tasks(active),
           "standby_tasks": _tasks(standby), "warmup_tasks": _tasks(warmup),
           "topology_description_required": False, "endpoint_information_epoch": 0,
           "partitions_by_user_endpoint": None}
    return [read_message(request), read_message(_frame("StreamsGroupHeartbeatResponse", got,
                                                       request))]


def test_each_kind_of_task_is_carried_over_on_its_own():
    messages = [
        *heartbeat("m1", 0, 1, (["0_0", "0_1", "1_0"], [], [])),
        *heartbeat("m2", 0, 2, ([], ["0_0"], ["1_0"])),
        # m1: active unchanged (null), a standby given: only that kind changes
        *heartbeat("m1", 1, 2, (None, ["1_1"], None), owned=["0_0", "0_1", "1_0"]),
        *heartbeat("m2", -2, -2, (None, None, None)),  # a static member's leave
        *heartbeat("m1", 2, 2, (None, None, None)),  # nothing said: no event
    ]
    (group,) = build_consumer_timelines(messages)
    assert group.group_type == "streams" and group.snapshots == []
    kinds = [(e["member_id"], e["event"]) for e in group.events]
    assert kinds == [("m1", "join"), ("m1", "assignment"), ("m2", "join"), ("m2", "assignment"),
                     ("m1", "assignment"), ("m2", "static leave")]
    assert group.events[4]["tasks"] == {"active": ["0_0", "0_1", "1_0"], "standby": ["1_1"],
                                        "warmup": []}
    assert group.members["m1"].tasks == MemberTasks(
        active=(("0", 0), ("0", 1), ("1", 0)), standby=(("1", 1),))
    assert group.members["m1"].owned_tasks == MemberTasks(active=(("0", 0), ("0", 1), ("1", 0)))
    assert {m.member_id: m.state for m in group.members.values()} == {"m1": "active",
                                                                      "m2": "left"}
    assert [e.epoch for e in group.epochs] == [1, 2]
    first, second = group.epochs
    assert (first.topology_epoch, first.subtopologies) == (3, {"0": ("words",),
                                                               "1": ("clicks", "views")})
    assert sorted(first.members) == ["m1"]
    assert sorted(second.members) == ["m1"]  # m2 left before m1's last heartbeat of epoch 2
    assert second.members["m1"].process_id == "p-m1" and second.members["m1"].member_epoch == 2
    assert second.members["m1"].tasks.standby == (("1", 1),)
    assert second.target is None  # no StreamsGroupDescribe captured


def test_a_warmup_task_and_a_fenced_streams_member():
    messages = [*heartbeat("m1", 0, 1, ([], [], ["0_2"])),
                *heartbeat("m1", 1, 0, (None, None, None), error=110)]
    (group,) = build_consumer_timelines(messages)
    assert group.members["m1"].tasks == MemberTasks(warmup=(("0", 2),))
    assert codec.error_name(110) == "FENCED_MEMBER_EPOCH"
    assert group.members["m1"].state == "fenced"
    assert group.events[-1]["error"] == "FENCED_MEMBER_EPOCH"


def describe(members: dict[str, tuple[int, list[str], list[str]]]) -> Any:
    """A StreamsGroupDescribe answer (v0): member id -> (epoch, current active, target active)."""
    def assignment(active: list[str]) -> dict[str, Any]:
        return {"active_tasks": _tasks(active), "standby_tasks": [], "warmup_tasks": []}

    value = {"throttle_time_ms": 0, "groups": [{
        "error_code": 0, "error_message": None, "group_id": "app", "group_state": "Stable",
        "group_epoch": 2, "assignment_epoch": 2,
        "topology": {"epoch": 3, "subtopologies": [{
            "subtopology_id": "0", "source_topics": ["words"], "repartition_sink_topics": [],
            "state_changelog_topics": [], "repartition_source_topics": []}]},
        "members": [{
            "member_id": m, "member_epoch": epoch, "instance_id": None, "rack_id": None,
            "client_id": "c-" + m, "client_host": "/127.0.0.1", "topology_epoch": 3,
            "process_id": "p-" + m, "user_endpoint": None, "client_tags": [],
            "task_offsets": [], "task_end_offsets": [], "assignment": assignment(current),
            "target_assignment": assignment(target), "is_classic": False}
            for m, (epoch, current, target) in members.items()],
        "authorized_operations": 0}]}
    asked = _frame("StreamsGroupDescribeRequest",
                   {"group_ids": ["app"], "include_authorized_operations": False})
    return read_message(_frame("StreamsGroupDescribeResponse", value, asked))


def test_a_describe_gives_the_epoch_its_state_and_targets_even_odd_ones():
    """The epoch's last describe gives its state and each member's target; a partition no broker
    sends (negative, from a corrupt capture) is shown as it came, never a crash."""
    messages = [*heartbeat("m1", 0, 2, (["0_0", "0_1"], [], [])),
                describe({"m1": (2, ["0_0", "0_1"], ["0_1", "0_-1"])})]
    (group,) = build_consumer_timelines(messages)
    (epoch,) = group.epochs
    assert (epoch.group_state, epoch.target_epoch) == ("Stable", 2)
    assert epoch.target == {"m1": MemberTasks(active=(("0", -1), ("0", 1)))}
    (described,) = group.described
    assert described["subtopologies"] == {"0": ("words",)}
    assert described["members"]["m1"]["process_id"] == "p-m1"
