"""Share groups (KIP-932) and Streams groups (KIP-1071) rebuilt from their ``__consumer_offsets``
records, as :mod:`.group_state` rebuilds consumer-protocol groups: a later record replaces an
earlier one with the same key, a tombstone deletes it, and a tombstone of the group's metadata
deletes the group.

A share group: its epoch (ShareGroupMetadata), target assignment epoch and each member's target
(ShareGroupTargetAssignmentMetadata/Member), each member's client id, host and subscription
(ShareGroupMemberMetadata), its current assignment with its member epoch
(ShareGroupCurrentMemberAssignment), and topic names by topic id from
ShareGroupStatePartitionMetadata (the share-partitions the share coordinator initialized).

A Streams group: its epoch (StreamsGroupMetadata), topology (StreamsGroupTopology: its epoch, each
sub-topology's source topics and whether it keeps state), target assignment epoch and each
member's target tasks, each member's client id, host, process id and topology epoch, and its
current tasks by kind with the ones pending revocation and its member epoch.

:func:`.group_state.check_group` checks what the coordinator keeps true of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...streams_assignor import TASK_KINDS, task_label, task_order

__all__ = ["ShareCurrentAssignment", "ShareGroupState", "ShareRecordedMember",
           "StreamsCurrentTasks", "StreamsGroupState", "StreamsRecordedMember", "put_record"]


def put_record(table: dict[Any, Any], key: Any, value: Any) -> None:
    """``table[key] = value``; a tombstone (``value`` None) deletes the key."""
    if value is None:
        table.pop(key, None)  # tombstone
    else:
        table[key] = value


def _epoch(value: Mapping[str, Any] | None, name: str) -> int | None:
    return None if value is None else value[name]


@dataclass
class _EpochGroupState:
    """What every share and Streams group keeps from its records: the group epoch (its
    metadata record, whose tombstone deletes the group) and the target assignment epoch."""

    group_id: str
    group_epoch: int | None = None
    assignment_epoch: int | None = None
    deleted: bool = False
    last_where: str = ""

    def _epochs(self, kind: str, value: Any) -> bool:
        """Apply a ``Metadata`` or ``TargetAssignmentMetadata`` record (False: another kind)."""
        if kind == "Metadata":
            self.deleted = value is None
            self.group_epoch = _epoch(value, "epoch")
        elif kind == "TargetAssignmentMetadata":
            self.assignment_epoch = _epoch(value, "assignment_epoch")
        else:
            return False
        return True


@dataclass(frozen=True)
class ShareRecordedMember:
    """A share group's member as its ShareGroupMemberMetadata record describes it."""

    rack_id: str | None
    client_id: str | None
    client_host: str | None
    subscribed_topic_names: tuple[str, ...]


@dataclass(frozen=True)
class ShareCurrentAssignment:
    """A share group member's ShareGroupCurrentMemberAssignment: its epochs and the partitions
    it holds (by topic id, as the record has them)."""

    member_epoch: int
    previous_member_epoch: int
    state: int
    assigned: tuple[tuple[str, int], ...]


@dataclass
class ShareGroupState(_EpochGroupState):
    """A share group as its records leave it; partitions by topic id (:attr:`topic_names` names
    the ones ShareGroupStatePartitionMetadata named)."""

    members: dict[str, ShareRecordedMember] = field(default_factory=dict)
    target: dict[str, tuple[tuple[str, int], ...]] = field(default_factory=dict)
    current: dict[str, ShareCurrentAssignment] = field(default_factory=dict)
    topic_names: dict[str, str] = field(default_factory=dict)

    group_type = "share"

    def apply(self, record_type: str, key: Mapping[str, Any], value: Any) -> None:
        """One record of the group, in log order."""
        kind = record_type.removeprefix("ShareGroup")
        if self._epochs(kind, value):
            return
        if kind == "MemberMetadata":
            put_record(self.members, key["member_id"], value and ShareRecordedMember(
                value.get("rack_id"), value.get("client_id"), value.get("client_host"),
                tuple(value.get("subscribed_topic_names") or ())))
        elif kind == "TargetAssignmentMember":
            put_record(self.target, key["member_id"],
                       value and _pairs(value["topic_partitions"]))
        elif kind == "CurrentMemberAssignment":
            put_record(self.current, key["member_id"], value and ShareCurrentAssignment(
                value["member_epoch"], value["previous_member_epoch"], value["state"],
                _pairs(value["assigned_partitions"])))
        elif kind == "StatePartitionMetadata":
            for listed in ("initializing_topics", "initialized_topics", "deleting_topics"):
                for topic in (value or {}).get(listed) or ():
                    self.topic_names[topic["topic_id"]] = topic["topic_name"]

    def to_dict(self) -> dict[str, Any]:
        return {"group_id": self.group_id, "group_type": "share", "deleted": self.deleted,
                "group_epoch": self.group_epoch, "assignment_epoch": self.assignment_epoch,
                "members": {m: {"rack_id": v.rack_id, "client_id": v.client_id,
                                "client_host": v.client_host,
                                "subscribed_topic_names": list(v.subscribed_topic_names)}
                            for m, v in self.members.items()},
                "target_assignment": {m: [list(p) for p in t] for m, t in self.target.items()},
                "current_assignment": {m: {"member_epoch": c.member_epoch,
                                           "previous_member_epoch": c.previous_member_epoch,
                                           "state": c.state,
                                           "assigned": [list(p) for p in c.assigned]}
                                       for m, c in self.current.items()},
                "topic_names": dict(self.topic_names)}


def _pairs(topics: Iterable[Mapping[str, Any]]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((t["topic_id"], p) for t in topics for p in t["partitions"]))


@dataclass(frozen=True)
class StreamsRecordedMember:
    """A Streams group's member (one stream thread) as its StreamsGroupMemberMetadata record
    describes it."""

    instance_id: str | None
    rack_id: str | None
    client_id: str | None
    client_host: str | None
    process_id: str | None
    topology_epoch: int | None
    rebalance_timeout_ms: int | None


@dataclass(frozen=True)
class StreamsCurrentTasks:
    """A Streams member's StreamsGroupCurrentMemberAssignment: its epochs, its tasks by kind
    (``active``, ``standby``, ``warmup`` -> labels ``0_1``) and those pending revocation."""

    member_epoch: int
    previous_member_epoch: int
    state: int
    tasks: dict[str, tuple[str, ...]]
    pending_revocation: dict[str, tuple[str, ...]]


@dataclass
class StreamsGroupState(_EpochGroupState):
    """A Streams group as its records leave it."""

    topology_epoch: int | None = None
    subtopologies: dict[str, tuple[str, ...]] = field(default_factory=dict)
    stateful: tuple[str, ...] = ()
    members: dict[str, StreamsRecordedMember] = field(default_factory=dict)
    target: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    current: dict[str, StreamsCurrentTasks] = field(default_factory=dict)

    group_type = "streams"

    def apply(self, record_type: str, key: Mapping[str, Any], value: Any) -> None:
        """One record of the group, in log order."""
        kind = record_type.removeprefix("StreamsGroup")
        if self._epochs(kind, value):
            return
        if kind == "Topology":
            self._topology(value)
        elif kind == "MemberMetadata":
            put_record(self.members, key["member_id"], value and StreamsRecordedMember(
                value.get("instance_id"), value.get("rack_id"), value.get("client_id"),
                value.get("client_host"), value.get("process_id"), value.get("topology_epoch"),
                value.get("rebalance_timeout_ms")))
        elif kind == "TargetAssignmentMember":
            put_record(self.target, key["member_id"],
                       value and {k: _labels(value[f"{k}_tasks"]) for k in TASK_KINDS})
        elif kind == "CurrentMemberAssignment":
            put_record(self.current, key["member_id"], value and StreamsCurrentTasks(
                value["member_epoch"], value["previous_member_epoch"], value["state"],
                {k: _labels(value[f"{k}_tasks"]) for k in TASK_KINDS},
                {k: _labels(value[f"{k}_tasks_pending_revocation"]) for k in TASK_KINDS}))

    def _topology(self, value: Any) -> None:
        if value is None:
            self.topology_epoch, self.subtopologies, self.stateful = None, {}, ()
            return
        self.topology_epoch = value["epoch"]
        subtopologies = value.get("subtopologies") or ()
        # a task reads its partition of every source topic, repartition topics included
        self.subtopologies = {s["subtopology_id"]: tuple(sorted(
            {*s.get("source_topics", ()),
             *(t["name"] for t in s.get("repartition_source_topics") or ())}))
            for s in subtopologies}
        self.stateful = tuple(s["subtopology_id"] for s in subtopologies
                              if s.get("state_changelog_topics"))

    def to_dict(self) -> dict[str, Any]:
        return {"group_id": self.group_id, "group_type": "streams", "deleted": self.deleted,
                "group_epoch": self.group_epoch, "assignment_epoch": self.assignment_epoch,
                "topology_epoch": self.topology_epoch,
                "subtopologies": {s: list(t) for s, t in self.subtopologies.items()},
                "stateful": list(self.stateful),
                "members": {m: dataclasses.asdict(v) for m, v in self.members.items()},
                "target_assignment": {m: {k: list(v) for k, v in t.items()}
                                      for m, t in self.target.items()},
                "current_assignment": {m: {
                    "member_epoch": c.member_epoch, "previous_member_epoch":
                    c.previous_member_epoch, "state": c.state,
                    "tasks": {k: list(v) for k, v in c.tasks.items()},
                    "pending_revocation": {k: list(v) for k, v in c.pending_revocation.items()}}
                    for m, c in self.current.items()}}


def _labels(tasks: Iterable[Mapping[str, Any]]) -> tuple[str, ...]:
    found = sorted(((t["subtopology_id"], p) for t in tasks for p in t["partitions"]),
                   key=task_order)
    return tuple(map(task_label, found))
