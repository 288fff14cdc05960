"""A consumer-protocol group's state rebuilt from its ``__consumer_offsets`` records (KIP-848).

The coordinator writes one record per fact and replays them in order on load; a later record
replaces an earlier one with the same key, and a tombstone deletes it. Rebuilt here: the group
epoch (ConsumerGroupMetadata), the target assignment epoch (ConsumerGroupTargetAssignmentMetadata),
each member's metadata, target assignment and current assignment (with the partitions pending
revocation), topic ids named from ConsumerGroupPartitionMetadata. Share and Streams groups are
rebuilt the same way from their own records (:mod:`.share_streams_state`). Then the invariants
the coordinator keeps are checked (:func:`check_group`, for all three); a broken one is a
problem naming the group and the last record that touched it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...metrics import validate_assignment
from ...model import (
    Cluster,
    GroupAssignment,
    GroupSubscription,
    Member,
    MemberAssignment,
    TopicPartition,
    partition_pairs,
)
from .records import OffsetsRecord
from .share_streams_state import ShareGroupState, StreamsGroupState, put_record

__all__ = ["ConsumerGroupState", "CurrentAssignment", "GroupRebuild", "RecordedMember",
           "check_group", "rebuild_groups"]


@dataclass(frozen=True)
class RecordedMember:
    """One member as its ConsumerGroupMemberMetadata record describes it."""

    instance_id: str | None = None
    rack_id: str | None = None
    client_id: str | None = None
    client_host: str | None = None
    subscribed_topic_names: tuple[str, ...] = ()
    subscribed_topic_regex: str | None = None
    server_assignor: str | None = None
    rebalance_timeout_ms: int | None = None
    classic_member_metadata: Any = None


@dataclass(frozen=True)
class CurrentAssignment:
    """One member's ConsumerGroupCurrentMemberAssignment record: its epochs, its reconciliation
    state and the partitions it holds and is revoking (topics named where the records name them,
    else by topic id)."""

    member_epoch: int
    previous_member_epoch: int
    state: int
    assigned: tuple[TopicPartition, ...] = ()
    pending_revocation: tuple[TopicPartition, ...] = ()


@dataclass
class ConsumerGroupState:
    """A consumer-protocol group as its records leave it: members and their current and target
    assignments typed with the core model (:class:`~assignframe.model.TopicPartition`,
    :class:`~assignframe.model.MemberAssignment`)."""

    group_id: str
    group_epoch: int | None = None
    assignment_epoch: int | None = None
    members: dict[str, RecordedMember] = field(default_factory=dict)
    target: dict[str, MemberAssignment] = field(default_factory=dict)
    current: dict[str, CurrentAssignment] = field(default_factory=dict)
    topic_names: dict[str, str] = field(default_factory=dict)
    regexes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    deleted: bool = False
    last_where: str = ""

    def current_assignment(self) -> GroupAssignment:
        """What each member with a current-assignment record holds, in member id order."""
        return GroupAssignment({m: MemberAssignment(self.current[m].assigned)
                                for m in sorted(self.current)})

    def to_dict(self) -> dict[str, Any]:
        return {"group_id": self.group_id, "deleted": self.deleted,
                "group_epoch": self.group_epoch, "assignment_epoch": self.assignment_epoch,
                "members": {m: _plain(dataclasses.asdict(v)) for m, v in self.members.items()},
                "target_assignment": {m: partition_pairs(a.partitions)
                                      for m, a in self.target.items()},
                "current_assignment": {m: _plain(dataclasses.asdict(c))
                                       for m, c in self.current.items()},
                "regular_expressions": {r: list(t) for r, t in self.regexes.items()}}


def _plain(fields: Mapping[str, Any]) -> dict[str, Any]:
    """A record's fields as decode has always printed them: partitions as [topic, partition]
    pairs, topic names as a list."""
    return {name: (partition_pairs(value) if name in ("assigned", "pending_revocation") else
                   list(value) if isinstance(value, tuple) else value)
            for name, value in fields.items()}


_MEMBER_FIELDS = tuple(f.name for f in dataclasses.fields(RecordedMember)
                       if f.name != "subscribed_topic_names")


class GroupRebuild:
    """Fed records in log order (files and live topics are streamed); :meth:`states` at the end.

    Beside the consumer-protocol groups it keeps, per classic group, its last group metadata
    value (``classic``; None once a tombstone deleted the group) and, per group of either kind,
    its committed offsets (``committed``: ``(topic, partition)`` -> offset; a tombstone deletes
    one), and the share and Streams groups (``share``, ``streams``:
    :mod:`.share_streams_state`). :mod:`.snapshots` makes group snapshots of all of it.
    """

    def __init__(self) -> None:
        self.groups: dict[str, ConsumerGroupState] = {}
        self.share: dict[str, ShareGroupState] = {}
        self.streams: dict[str, StreamsGroupState] = {}
        self.classic: dict[str, dict[str, Any] | None] = {}
        self.committed: dict[str, dict[tuple[str, int], int]] = {}

    def add(self, record: OffsetsRecord) -> None:
        if record.key is None or record.error:
            return
        if record.record_type == "group_metadata":
            self.classic[record.key["group"]] = record.value
            return
        if record.record_type == "offset_commit":
            self._commit(record.key, record.value)
            return
        kind = record.record_type or ""
        if kind.startswith(("ShareGroup", "StreamsGroup")):
            self._share_streams(kind, record)
            return
        handler = getattr(self, f"_on_{kind}", None)
        if handler is None:
            return
        group = self.groups.setdefault(record.key["group_id"],
                                       ConsumerGroupState(record.key["group_id"]))
        group.last_where = record.where
        handler(group, record.key, record.value)

    def _commit(self, key: dict[str, Any], value: dict[str, Any] | None) -> None:
        offsets = self.committed.setdefault(key["group"], {})
        put_record(offsets, (key["topic"], key["partition"]), value and value["offset"])

    def _share_streams(self, kind: str, record: OffsetsRecord) -> None:
        assert record.key is not None
        group_id = record.key["group_id"]
        group: ShareGroupState | StreamsGroupState
        if kind.startswith("ShareGroup"):
            group = self.share.setdefault(group_id, ShareGroupState(group_id))
        else:
            group = self.streams.setdefault(group_id, StreamsGroupState(group_id))
        group.last_where = record.where
        group.apply(kind, record.key, record.value)

    def states(self) -> list[ConsumerGroupState]:
        """The consumer-protocol groups, in group id order."""
        return sorted(self.groups.values(), key=lambda g: g.group_id)

    def share_streams_states(self) -> list[ShareGroupState | StreamsGroupState]:
        """The share and Streams groups, in group id order."""
        groups: list[ShareGroupState | StreamsGroupState] = [*self.share.values(),
                                                             *self.streams.values()]
        return sorted(groups, key=lambda g: g.group_id)

    def _names(self, group: ConsumerGroupState, topics: Iterable[dict[str, Any]],
               field_name: str = "partitions") -> tuple[TopicPartition, ...]:
        return tuple(sorted(TopicPartition(group.topic_names.get(t["topic_id"], t["topic_id"]), p)
                            for t in topics for p in t[field_name]))

    def _on_ConsumerGroupMetadata(self, group: ConsumerGroupState, _key: Any,  # noqa: N802
                                  value: Any) -> None:
        group.deleted = value is None
        group.group_epoch = None if value is None else value["epoch"]

    def _on_ConsumerGroupTargetAssignmentMetadata(  # noqa: N802
            self, group: ConsumerGroupState, _key: Any, value: Any) -> None:
        group.assignment_epoch = None if value is None else value["assignment_epoch"]

    def _on_ConsumerGroupPartitionMetadata(  # noqa: N802
            self, group: ConsumerGroupState, _key: Any, value: Any) -> None:
        for topic in (value or {}).get("topics") or ():
            group.topic_names[topic["topic_id"]] = topic["topic_name"]

    def _on_ConsumerGroupMemberMetadata(  # noqa: N802
            self, group: ConsumerGroupState, key: Any, value: Any) -> None:
        put_record(group.members, key["member_id"], value and RecordedMember(
            **{name: value.get(name) for name in _MEMBER_FIELDS},
            subscribed_topic_names=tuple(value.get("subscribed_topic_names") or ())))

    def _on_ConsumerGroupTargetAssignmentMember(  # noqa: N802
            self, group: ConsumerGroupState, key: Any, value: Any) -> None:
        put_record(group.target, key["member_id"],
             value and MemberAssignment(self._names(group, value["topic_partitions"])))

    def _on_ConsumerGroupCurrentMemberAssignment(  # noqa: N802
            self, group: ConsumerGroupState, key: Any, value: Any) -> None:
        put_record(group.current, key["member_id"], value and CurrentAssignment(
            value["member_epoch"], value["previous_member_epoch"], value["state"],
            self._names(group, value["assigned_partitions"]),
            self._names(group, value["partitions_pending_revocation"])))

    def _on_ConsumerGroupRegularExpression(  # noqa: N802
            self, group: ConsumerGroupState, key: Any, value: Any) -> None:
        put_record(group.regexes, key["regular_expression"], value and tuple(value["topics"]))


def rebuild_groups(records: Iterable[OffsetsRecord]) -> list[ConsumerGroupState]:
    """The consumer-protocol groups the records describe, in group id order."""
    rebuild = GroupRebuild()
    for record in records:
        rebuild.add(record)
    return rebuild.states()


def check_group(group: ConsumerGroupState | ShareGroupState | StreamsGroupState) -> list[str]:
    """The coordinator's invariants this state breaks, one sentence each (empty when none).

    Two are about epochs, for every group type. That no partition of a consumer-protocol group
    is held twice is assignment validity, so it is the core's one check
    (:func:`assignframe.metrics.validate_assignment`) on the members' current assignments.
    Nothing else of validity applies: partitions are unowned while a group reconciles, and a
    member of a regex subscription lists no topic names. Several members of a share group may
    hold one partition (no violation); a Streams group's active task has one owner (held:
    assigned, or still pending revocation).
    """
    if group.deleted:
        return []
    found: list[str] = []
    epoch, target_epoch = group.group_epoch, group.assignment_epoch
    # An empty group's target may lag its epoch: when the last member leaves or is fenced, the
    # coordinator bumps the group epoch and computes no new target until someone heartbeats
    # (what Kafka 4.1 writes, tests/cluster/test_offsets_live.py), so that is no violation.
    if epoch is not None and target_epoch is not None and target_epoch > epoch:
        found.append(f"assignment epoch {target_epoch} is ahead of group epoch {epoch}")
    member_epochs = {m: c.member_epoch for m, c in group.current.items()}
    for member_id, member_epoch in sorted(member_epochs.items()):
        if target_epoch is not None and member_epoch > target_epoch:
            found.append(f"member {member_id} is at epoch {member_epoch}, beyond "
                         f"the target assignment epoch {target_epoch}")
    if isinstance(group, StreamsGroupState):
        return found + _active_held_twice(group)
    if isinstance(group, ShareGroupState):
        return found
    held = group.current_assignment()
    everyone = GroupSubscription({m: Member(m, ()) for m in held.assignments}, Cluster({}))
    for tp in validate_assignment(everyone, held).double_owned:
        holders = [m for m, a in held.assignments.items() for p in a.partitions if p == tp]
        found.append(f"partition {tp.topic}-{tp.partition} is in the current assignment of "
                     + _holders(holders))
    return found


def _active_held_twice(group: StreamsGroupState) -> list[str]:
    holders: dict[str, list[str]] = {}
    for member_id, current in sorted(group.current.items()):
        for task in (*current.tasks["active"], *current.pending_revocation["active"]):
            holders.setdefault(task, []).append(member_id)
    return [f"active task {task} is held by " + _holders(members)
            for task, members in holders.items() if len(members) > 1]


def _holders(holders: list[str]) -> str:
    distinct = list(dict.fromkeys(holders))
    if len(distinct) == 1:
        return f"{distinct[0]}, {len(holders)} times"
    if len(holders) == 2:
        return f"both {holders[0]} and {holders[1]}"
    return ", ".join(distinct[:-1]) + f" and {distinct[-1]}"
