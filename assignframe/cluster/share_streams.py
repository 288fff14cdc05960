"""Share groups (KIP-932) and Streams groups (KIP-1071) as the reader saw them, judged.

A share group's members hold partitions (several members may share one; the broker's ``simple``
assignor spreads them) and never commit offsets: the broker keeps a share-partition start offset
per partition, and from DescribeShareGroupOffsets v1 (Kafka 4.3) its lag. A Streams group's
members (stream threads) hold tasks ``SUBTOPOLOGY_PARTITION`` of three kinds (active, standby,
warm-up) and reconcile toward a target like consumer-protocol members; a task's input is that
partition of every source topic of its sub-topology, so its lag is measured on them from the
group's committed offsets.

:class:`ShareView` and :class:`StreamsView` are what ``inspect`` shows, ``watch`` records and the
metrics export for these groups: balance (max - min per member), idle members, members behind
the group's assignment epoch, partitions no member holds, backlog or lag, and for Streams the
members reconciling and the tasks each still holds that its target gave to another. Nothing is
invented: a value the broker did not give is None ("unknown"), never 0 or -1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..lag import committed_lag
from ..model import TopicPartition
from ..streams_assignor import TASK_KINDS, parse_task_label, task_label, task_order
from .group_problems import GroupProblem
from .reader import ClusterRead, GroupRead

__all__ = ["ShareMember", "ShareView", "StreamsView", "StreamsViewMember", "share_view",
           "streams_view", "view_of"]

#: a task kind's field in StreamsGroupDescribe's assignments (``active`` -> ``active_tasks``)
_DESCRIBED = "{}_tasks"


def _known(value: int | None) -> int | None:
    """Kafka's -1 (unknown, not initialized) as None."""
    return None if value is None or value < 0 else value


def _spread(counts: list[int]) -> int | None:
    return max(counts) - min(counts) if counts else None


def _tp(key: TopicPartition) -> str:
    return f"{key.topic}-{key.partition}"


# --------------------------------------------------------------------------- share groups
@dataclass(frozen=True)
class ShareMember:
    member_id: str
    client_id: str | None
    client_host: str | None
    member_epoch: int
    subscribed: tuple[str, ...]
    partitions: tuple[TopicPartition, ...]


@dataclass(frozen=True)
class PartitionBacklog:
    """One share-partition: its start offset and lag (the broker's: records not yet acknowledged;
    end - start would count the acknowledged records past the start too, so it is not used)
    and its end offset; None when unknown."""

    start_offset: int | None
    end_offset: int | None
    lag: int | None


@dataclass
class ShareView:
    group_id: str
    state: str | None
    group_epoch: int
    assignment_epoch: int
    assignor: str | None
    members: list[ShareMember]
    subscribed: dict[str, int]  # topic -> partitions (those Metadata knew)
    backlog: dict[TopicPartition, PartitionBacklog] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    group_type = "share"

    def partitions(self) -> list[TopicPartition]:
        """Every partition of the subscribed topics."""
        return [TopicPartition(t, p) for t, n in sorted(self.subscribed.items())
                for p in range(n)]

    def holders(self) -> dict[TopicPartition, list[str]]:
        held: dict[TopicPartition, list[str]] = {}
        for m in self.members:
            for tp in m.partitions:
                held.setdefault(tp, []).append(m.member_id)
        return held

    def unassigned(self) -> list[TopicPartition]:
        held = self.holders()
        return [tp for tp in self.partitions() if tp not in held]

    def idle(self) -> list[ShareMember]:
        return [m for m in self.members if not m.partitions]

    def behind(self) -> list[ShareMember]:
        """Members whose epoch is short of the group's assignment epoch: they have not yet
        heartbeated their way to the current assignment (stuck if it lasts)."""
        return [m for m in self.members if m.member_epoch < self.assignment_epoch]

    def spread(self) -> int | None:
        return _spread([len(m.partitions) for m in self.members])

    def total_backlog(self) -> int | None:
        known = [b.lag for b in self.backlog.values() if b.lag is not None]
        return sum(known) if known else None

    def member_backlog(self, member: ShareMember) -> int | None:
        """The backlog of the partitions ``member`` holds (shared ones count for each holder)."""
        known = [lag for tp in member.partitions
                 if tp in self.backlog and (lag := self.backlog[tp].lag) is not None]
        return sum(known) if known else None

    def reconciling(self) -> list[str]:
        return [m.member_id for m in self.behind()]

    def owners(self) -> dict[str, str]:
        """``topic-p`` -> its holders (comma-separated member ids), for the watch history."""
        return {_tp(tp): ",".join(sorted(ids)) for tp, ids in sorted(self.holders().items())}

    def problems(self) -> list[GroupProblem]:
        found: list[GroupProblem] = []
        if self.unassigned():
            found.append(GroupProblem(f"{len(self.unassigned())} partition(s) held by no "
                                      "member: " + _listed([_tp(tp) for tp in self.unassigned()]),
                                      "unowned"))
        if self.idle():
            found.append(GroupProblem(f"{len(self.idle())} idle member(s): " + _listed(
                [_who(m.member_id, m.client_id) for m in self.idle()]), "idle"))
        if self.behind():
            found.append(GroupProblem(
                f"{len(self.behind())} member(s) behind assignment epoch "
                f"{self.assignment_epoch}: " + _listed(
                    [f"{_who(m.member_id, m.client_id)} at {m.member_epoch}"
                     for m in self.behind()]), "reconciling"))
        if self.state not in (None, "Stable", "Empty"):
            found.append(GroupProblem(f"state {self.state}", "rebalancing"))
        return found

    def as_dict(self) -> dict[str, Any]:
        return {
            "group_type": "share", "group_epoch": self.group_epoch,
            "assignment_epoch": self.assignment_epoch, "assignor": self.assignor,
            "subscribed": self.subscribed, "spread": self.spread(),
            "backlog": self.total_backlog(),
            "members": [{"member_id": m.member_id, "client_id": m.client_id,
                         "member_epoch": m.member_epoch, "subscribed": list(m.subscribed),
                         "partitions": [[tp.topic, tp.partition] for tp in m.partitions],
                         "backlog": self.member_backlog(m)} for m in self.members],
            "partitions": [{"topic": tp.topic, "partition": tp.partition,
                            "holders": sorted(self.holders().get(tp, [])),
                            "start_offset": b.start_offset, "end_offset": b.end_offset,
                            "lag": b.lag}
                           for tp, b in sorted(self.backlog.items())],
            "unassigned": [_tp(tp) for tp in self.unassigned()],
            "idle": [m.member_id for m in self.idle()],
            "behind": [m.member_id for m in self.behind()],
            "notes": self.notes,
        }


def share_view(read: ClusterRead, group: GroupRead) -> ShareView:
    """The share group ``group`` as read (its backlog from the share offsets the reader got)."""
    described = group.described
    members = [ShareMember(
        m.member_id, m.client_id or None, m.client_host or None, m.member_epoch,
        tuple(m.subscribed_topic_names),
        tuple(TopicPartition(t.topic_name, p) for t in m.assignment.topic_partitions
              for p in sorted(t.partitions))) for m in described.members]
    offsets = group.share_offsets
    # an empty group has no subscriptions left, but its share-partitions keep their state
    topics = {t for m in members for t in m.subscribed} | {tp.topic for tp in offsets or {}}
    view = ShareView(group.group_id, described.group_state, described.group_epoch,
                     described.assignment_epoch, described.assignor_name or None, members,
                     {t: read.partitions[t] for t in sorted(topics) if t in read.partitions})
    if offsets is None:
        view.notes.append("no share-partition offsets read (DescribeShareGroupOffsets): "
                          "backlog unknown")
        return view
    for tp in view.partitions():
        start, lag = offsets.get(tp, (None, None))
        view.backlog[tp] = PartitionBacklog(_known(start), read.end_offsets.get(tp), _known(lag))
    if view.backlog and all(b.lag is None for b in view.backlog.values()):
        view.notes.append("the broker reported no share-partition lag (DescribeShareGroupOffsets "
                          "v1, Kafka 4.3+; or partitions not initialized yet): backlog unknown")
    return view


# --------------------------------------------------------------------------- Streams groups
@dataclass(frozen=True)
class StreamsViewMember:
    """A member of a Streams group as the live view reads it (the assignor's input is
    :class:`assignframe.streams_assignor.StreamsMember`)."""

    member_id: str
    client_id: str | None
    client_host: str | None
    process_id: str | None
    member_epoch: int
    tasks: dict[str, tuple[str, ...]]  # kind -> task ids ("0_1"), as held now
    target: dict[str, tuple[str, ...]]  # kind -> task ids, the broker's target


def _task_ids(assignment: Any, kind: str) -> tuple[str, ...]:
    if assignment is None:
        return ()
    tasks = [(t.subtopology_id, p) for t in getattr(assignment, kind) for p in t.partitions]
    return tuple(map(task_label, sorted(tasks, key=task_order)))


def _label_order(label: str) -> tuple[Any, ...]:
    return task_order(parse_task_label(label))


@dataclass
class StreamsView:
    group_id: str
    state: str | None
    group_epoch: int
    assignment_epoch: int
    topology_epoch: int | None
    assignor: str | None
    members: list[StreamsViewMember]
    subtopologies: dict[str, tuple[str, ...]]  # id -> source topics
    task_lags: dict[str, int | None] = field(default_factory=dict)  # active task -> lag
    notes: list[str] = field(default_factory=list)
    _partitions: dict[str, int] = field(default_factory=dict)  # topic -> partitions (Metadata)

    group_type = "streams"

    def all_tasks(self) -> list[str]:
        """Every task of the topology (sub-topology x partitions of its source topics) that
        Metadata could size; tasks members hold are added when the topology was not read."""
        tasks = set()
        for subtopology, topics in self.subtopologies.items():
            sizes = [self._partitions[t] for t in topics if t in self._partitions]
            if sizes and len(sizes) == len(topics):
                tasks |= {f"{subtopology}_{p}" for p in range(max(sizes))}
        tasks |= {t for m in self.members for t in m.target.get("active", ())}
        return sorted(tasks, key=_label_order)

    def owners(self) -> dict[str, str]:
        """Active task -> the member holding it now (the watch history's ``moved`` events)."""
        return {t: m.member_id for m in self.members for t in m.tasks.get("active", ())}

    def unassigned(self) -> list[str]:
        held = {t for m in self.members for t in m.tasks.get("active", ())}
        return [t for t in self.all_tasks() if t not in held]

    def spread(self, kind: str = "active") -> int | None:
        return _spread([len(m.tasks.get(kind, ())) for m in self.members])

    def idle(self) -> list[StreamsViewMember]:
        return [m for m in self.members if not m.tasks.get("active")]

    def reconciling(self) -> list[str]:
        """Members whose tasks are not their target, or whose epoch is short of the group's
        assignment epoch (one revoking tasks stays at its old epoch until it has given them
        up)."""
        return [m.member_id for m in self.members
                if m.tasks != m.target or m.member_epoch < self.assignment_epoch]

    def waited_for(self) -> dict[str, list[str]]:
        """member -> active tasks of its target that it does not hold yet because no member
        has released them (held by nobody in the describe: Kafka describes a member's
        assigned tasks without those pending revocation)."""
        held = {t for m in self.members for t in m.tasks.get("active", ())}
        waiting = {m.member_id: [t for t in m.target.get("active", ()) if t not in held]
                   for m in self.members}
        return {member: tasks for member, tasks in waiting.items() if tasks}

    def not_given_up(self) -> dict[str, list[str]]:
        """member -> the active tasks it still holds that its target gave to another: tasks
        shown held but not in its target, and the tasks others wait for, said of the members
        still at an epoch before the assignment epoch (the only ones that can be holding them:
        a member that has revoked everything it was asked to is moved to the new epoch)."""
        holding = {m.member_id: [t for t in m.tasks.get("active", ())
                                 if t not in m.target.get("active", ())] for m in self.members}
        waited = sorted({t for tasks in self.waited_for().values() for t in tasks},
                        key=_label_order)
        if waited:
            for m in self.members:
                if m.member_epoch < self.assignment_epoch:
                    holding[m.member_id] = holding[m.member_id] + waited
        return {member: tasks for member, tasks in holding.items() if tasks}

    def member_lag(self, member: StreamsViewMember) -> int | None:
        known = [lag for t in member.tasks.get("active", ())
                 if (lag := self.task_lags.get(t)) is not None]
        return sum(known) if known else None

    def subtopology_lags(self) -> dict[str, int | None]:
        lags: dict[str, int | None] = {}
        for task, lag in self.task_lags.items():
            subtopology = parse_task_label(task)[0]
            if lag is not None:
                lags[subtopology] = (lags.get(subtopology) or 0) + lag
            else:
                lags.setdefault(subtopology, None)
        return lags

    def problems(self) -> list[GroupProblem]:
        found: list[GroupProblem] = []
        if self.unassigned():
            found.append(GroupProblem(f"{len(self.unassigned())} active task(s) held by no "
                                      "member: " + _listed(self.unassigned()), "unowned"))
        if self.idle():
            found.append(GroupProblem(f"{len(self.idle())} member(s) without active tasks: "
                                      + _listed([_who(m.member_id, m.client_id)
                                                 for m in self.idle()]), "idle"))
        names = {m.member_id: m.client_id for m in self.members}
        holding = self.not_given_up()
        if holding:
            found.append(GroupProblem("holding tasks it has not given up: " + _listed(
                [f"{_who(member, names.get(member))} ({', '.join(tasks)})"
                 for member, tasks in holding.items()]), "reconciling"))
        waiting = self.waited_for()
        if waiting:
            found.append(GroupProblem("waiting for tasks not yet released: " + _listed(
                [f"{_who(member, names.get(member))} ({', '.join(tasks)})"
                 for member, tasks in waiting.items()]), "reconciling"))
        reconciling = self.reconciling()
        if reconciling:
            found.append(GroupProblem(f"{len(reconciling)} member(s) reconciling toward epoch "
                                      f"{self.assignment_epoch}", "reconciling"))
        if self.state not in (None, "Stable", "Empty"):
            found.append(GroupProblem(f"state {self.state}", "rebalancing"))
        return found

    def as_dict(self) -> dict[str, Any]:
        return {
            "group_type": "streams", "group_epoch": self.group_epoch,
            "assignment_epoch": self.assignment_epoch, "topology_epoch": self.topology_epoch,
            "assignor": self.assignor,
            "subtopologies": {s: list(t) for s, t in self.subtopologies.items()},
            "spread": {kind: self.spread(kind) for kind in TASK_KINDS},
            "lag": {"tasks": self.task_lags, "subtopologies": self.subtopology_lags()},
            "members": [{"member_id": m.member_id, "client_id": m.client_id,
                         "process_id": m.process_id, "member_epoch": m.member_epoch,
                         "tasks": {k: list(v) for k, v in m.tasks.items()},
                         "target": {k: list(v) for k, v in m.target.items()},
                         "lag": self.member_lag(m)} for m in self.members],
            "unassigned": self.unassigned(), "idle": [m.member_id for m in self.idle()],
            "reconciling": self.reconciling(), "not_given_up": self.not_given_up(),
            "waited_for": self.waited_for(),
            "notes": self.notes,
        }


def streams_view(read: ClusterRead, group: GroupRead) -> StreamsView:
    """The Streams group ``group`` as read; its active tasks' lag from the committed offsets."""
    described = group.described
    members = [StreamsViewMember(
        m.member_id, m.client_id or None, m.client_host or None, m.process_id or None,
        m.member_epoch,
        {kind: _task_ids(m.assignment, _DESCRIBED.format(kind)) for kind in TASK_KINDS},
        {kind: _task_ids(m.target_assignment, _DESCRIBED.format(kind)) for kind in TASK_KINDS})
        for m in described.members]
    topology = described.topology
    subtopologies = {s.subtopology_id: tuple(s.source_topics)
                     for s in (topology.subtopologies or ())} if topology else {}
    view = StreamsView(group.group_id, described.group_state, described.group_epoch,
                       described.assignment_epoch, topology.epoch if topology else None,
                       getattr(described, "assignor_name", None) or None, members, subtopologies,
                       _partitions=dict(read.partitions))
    if topology is None:
        view.notes.append("the broker described no topology: task inputs and lag unknown")
    for task in sorted({t for m in members for t in m.tasks.get("active", ())},
                       key=_label_order):
        view.task_lags[task] = _task_lag(read, group, subtopologies, task)
    return view


def _task_lag(read: ClusterRead, group: GroupRead, subtopologies: dict[str, tuple[str, ...]],
              task: str) -> int | None:
    """:func:`assignframe.lag.committed_lag` summed over the task's input partitions; None
    when any is unknown."""
    subtopology, partition = parse_task_label(task)
    topics = subtopologies.get(subtopology)
    if not topics:
        return None
    total = 0
    for topic in topics:
        tp = TopicPartition(topic, partition)
        lag = committed_lag(read.end_offsets.get(tp), group.committed.get(tp))
        if lag is None:
            return None
        total += lag
    return total


def view_of(read: ClusterRead, group: GroupRead) -> ShareView | StreamsView | None:
    """The view of a described share or Streams group (None for other groups)."""
    if group.described is None or group.problems:
        return None
    if group.group_type == "share":
        return share_view(read, group)
    if group.group_type == "streams":
        return streams_view(read, group)
    return None


def _who(member_id: str, client_id: str | None) -> str:
    return f"{client_id} ({member_id[:8]})" if client_id else member_id


def _listed(items: list[str], limit: int = 5) -> str:
    return ", ".join(items[:limit]) + (", ..." if len(items) > limit else "")
