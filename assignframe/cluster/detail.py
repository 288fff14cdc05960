"""One group in detail: everything ``kafka-consumer-groups.sh --describe`` shows of it, from
what one pass read (no request of its own).

* ``--state``: the coordinator (id, host:port), the assignment strategy (classic: the elected
  protocol; consumer protocol: the server assignor), the state and the number of members;
* ``--members --verbose``: each member's id, host, client id and assignment;
* ``--offsets``: each partition's committed offset, log-end offset, lag and the member that
  owns it (with its host and client id).

A partition Kafka's tool lists is one the group committed to or one a member owns. A value not
known is None (no commit: no current offset and no lag; never 0). Share groups (as
``kafka-share-groups.sh --describe --offsets``): each share-partition's start offset stands in the
current offset's column and the broker's lag in the lag column, one row per member holding it;
Streams groups: a member owns its active tasks' input partitions; a rebalancing classic group:
what each member holds now.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..lag import committed_lag
from ..model import TopicPartition, partition_pairs
from ..snapshot import GroupSnapshot
from ..snapshot.share import ShareSnapshot
from ..snapshot.streams import StreamsSnapshot
from ..streams_assignor import parse_task_label
from .groups import rebalancing, rebalancing_assignments
from .reader import ClusterRead, GroupRead

__all__ = ["GroupDetail", "MemberDetail", "PartitionDetail", "group_detail"]


@dataclass(frozen=True)
class PartitionDetail:
    """One row of ``--offsets``."""

    topic: str
    partition: int
    current_offset: int | None
    log_end_offset: int | None
    lag: int | None
    member_id: str | None
    host: str | None
    client_id: str | None


@dataclass(frozen=True)
class MemberDetail:
    """One row of ``--members --verbose``."""

    member_id: str
    host: str | None
    client_id: str | None
    partitions: tuple[TopicPartition, ...]
    #: consumer protocol: the member's epoch and target assignment (None: classic)
    member_epoch: int | None = None
    target: tuple[TopicPartition, ...] | None = None


@dataclass(frozen=True)
class GroupDetail:
    """One row of ``--state`` with the group's members and partitions."""

    group_id: str
    group_type: str | None
    state: str | None
    coordinator_id: int | None
    coordinator: str | None
    assignor: str | None
    members: list[MemberDetail] = field(default_factory=list)
    partitions: list[PartitionDetail] = field(default_factory=list)
    #: a classic group: what its migration prediction assumed and predicted
    #: (:attr:`~.fleet.GroupVerdict.migration_prediction`)
    migration_prediction: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"group_id": self.group_id, "group_type": self.group_type, "state": self.state,
                "coordinator": {"id": self.coordinator_id, "address": self.coordinator},
                "assignor": self.assignor,
                "members": [{"member_id": m.member_id, "host": m.host, "client_id": m.client_id,
                             "partitions": partition_pairs(m.partitions),
                             "member_epoch": m.member_epoch,
                             "target": None if m.target is None else partition_pairs(m.target)}
                            for m in self.members],
                "partitions": [p.__dict__ for p in self.partitions],
                "migration_prediction": self.migration_prediction}


def group_detail(read: ClusterRead, group: GroupRead, snapshot: GroupSnapshot | None,
                 view: ShareSnapshot | StreamsSnapshot | None = None,
                 migration_prediction: dict[str, Any] | None = None) -> GroupDetail:
    """The detail of ``group``. Its members and what they own come from its snapshot, else
    from the view of a share or Streams group (a Streams member owns its active tasks' input
    partitions), else from what a rebalancing classic group's members hold now."""
    broker = read.brokers.get(group.coordinator) if group.coordinator is not None else None
    members = _members(snapshot) if snapshot is not None else _unsnapshotted(group, view)
    owners: dict[TopicPartition, list[MemberDetail]] = {}
    for member in members:
        for tp in member.partitions:
            owners.setdefault(tp, []).append(member)
    backlog = view.backlog if isinstance(view, ShareSnapshot) else {}
    rows = []
    for tp in sorted(set(group.committed) | set(owners) | set(backlog)):
        if tp in backlog:  # a share-partition: its start offset stands for a committed one
            share = backlog[tp]
            current, end, lag = share.start_offset, share.end_offset, share.lag
        else:
            current, end = group.committed.get(tp), read.end_offsets.get(tp)
            lag = committed_lag(end, current)
        holders: list[MemberDetail | None] = [*owners.get(tp, [])] or [None]
        for holder in holders:  # a share-partition: a row per holder
            rows.append(PartitionDetail(tp.topic, tp.partition, current, end, lag,
                                        holder.member_id if holder else None,
                                        holder.host if holder else None,
                                        holder.client_id if holder else None))
    return GroupDetail(group.group_id, group.group_type, group.state, group.coordinator,
                       broker.address if broker else None, _assignor(group, snapshot, view),
                       members, rows, migration_prediction)


def _members(snapshot: GroupSnapshot) -> list[MemberDetail]:
    found = []
    for member_id in snapshot.members:
        info = snapshot.info(member_id)
        held = snapshot.current.assignments.get(member_id)
        target = snapshot.target.assignments.get(member_id) if snapshot.target else None
        found.append(MemberDetail(member_id, info.client_host, info.client_id,
                                  tuple(sorted(held.partitions)) if held else (),
                                  info.member_epoch,
                                  tuple(sorted(target.partitions)) if target else None))
    return found


def _unsnapshotted(group: GroupRead,
                   view: ShareSnapshot | StreamsSnapshot | None) -> list[MemberDetail]:
    """Members of a group without a snapshot: a share or Streams group's, or a rebalancing
    classic group's (what each holds now; no epoch, no target)."""
    if isinstance(view, ShareSnapshot):
        return [MemberDetail(m.member_id, m.client_host, m.client_id, tuple(sorted(m.partitions)),
                             m.member_epoch) for m in view.members]
    if isinstance(view, StreamsSnapshot):
        return [MemberDetail(m.member_id, m.client_host, m.client_id,
                             _inputs(view, m.tasks.get("active", ())), m.member_epoch,
                             _inputs(view, m.target.get("active", ())))
                for m in view.members]
    if group.described is not None and group.described.members and rebalancing(group):
        held = rebalancing_assignments(group)
        return [MemberDetail(m.member_id, m.client_host or None, m.client_id or None,
                             tuple(sorted(held.get(m.member_id, ()))))
                for m in group.described.members]
    return []


def _inputs(view: StreamsSnapshot, tasks: tuple[str, ...]) -> tuple[TopicPartition, ...]:
    """The input partitions of ``tasks``: each task's partition of its sub-topology's topics."""
    found: set[TopicPartition] = set()
    for label in tasks:
        subtopology, partition = parse_task_label(label)
        found.update(TopicPartition(t, partition) for t in view.subtopologies.get(subtopology, ()))
    return tuple(sorted(found))


def _assignor(group: GroupRead, snapshot: GroupSnapshot | None,
              view: ShareSnapshot | StreamsSnapshot | None) -> str | None:
    if snapshot is not None:
        return snapshot.assignor or snapshot.protocol
    if view is not None and view.assignor:
        return view.assignor
    described = group.described
    name = getattr(described, "assignor_name", None) or getattr(described, "protocol_data", None)
    return name or None
