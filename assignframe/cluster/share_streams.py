"""Share groups (KIP-932) and Streams groups (KIP-1071) as the reader saw them: their snapshots
(:class:`~assignframe.snapshot.share.ShareSnapshot`,
:class:`~assignframe.snapshot.streams.StreamsSnapshot`) built from what one pass read. A share
group's backlog comes from the share offsets the reader got (DescribeShareGroupOffsets); a
Streams group's task lag from its committed offsets.
"""

from __future__ import annotations

from typing import Any

from ..javaorder import Uuid
from ..lag import committed_lag
from ..model import TopicPartition
from ..snapshot.share import PartitionBacklog, ShareMember, ShareSnapshot
from ..snapshot.streams import StreamsGroupMember, StreamsSnapshot, label_order
from ..streams_assignor import TASK_KINDS, parse_task_label, task_label, task_order
from .reader import ClusterRead, GroupRead

__all__ = ["described_share_snapshot", "described_streams_snapshot", "snapshot_of"]

#: a task kind's field in StreamsGroupDescribe's assignments (``active`` -> ``active_tasks``)
_DESCRIBED = "{}_tasks"


def _known(value: int | None) -> int | None:
    """Kafka's -1 (unknown, not initialized) as None."""
    return None if value is None or value < 0 else value


def _topic_id_text(topic_id: str | bytes) -> str:
    """A topic id as Kafka prints it (the codec gives its text, or its 16 bytes)."""
    return str(Uuid.from_bytes(topic_id)) if isinstance(topic_id, bytes) else str(topic_id)


def _task_ids(assignment: Any, kind: str) -> tuple[str, ...]:
    if assignment is None:
        return ()
    tasks = [(t.subtopology_id, p) for t in getattr(assignment, kind) for p in t.partitions]
    return tuple(map(task_label, sorted(tasks, key=task_order)))


def described_share_snapshot(read: ClusterRead, group: GroupRead) -> ShareSnapshot:
    """The share group ``group`` as read (its backlog from the share offsets the reader got)."""
    described = group.described
    members = [ShareMember(
        m.member_id, m.client_id or None, m.client_host or None, m.member_epoch,
        tuple(m.subscribed_topic_names),
        tuple(TopicPartition(t.topic_name, p) for t in m.assignment.topic_partitions
              for p in sorted(t.partitions))) for m in described.members]
    topic_ids = {t.topic_name: _topic_id_text(t.topic_id) for m in described.members
                 for t in m.assignment.topic_partitions if getattr(t, "topic_id", None)}
    offsets = group.share_offsets
    # an empty group has no subscriptions left, but its share-partitions keep their state
    topics = {t for m in members for t in m.subscribed} | {tp.topic for tp in offsets or {}}
    snapshot = ShareSnapshot(
        group.group_id, described.group_state, described.group_epoch,
        described.assignment_epoch, described.assignor_name or None, members,
        {t: read.partitions[t] for t in sorted(topics) if t in read.partitions},
        topic_ids=dict(sorted(topic_ids.items())), observed_at=read.observed_at)
    if offsets is None:
        snapshot.notes.append("no share-partition offsets read (DescribeShareGroupOffsets): "
                              "backlog unknown")
        return snapshot
    for tp in snapshot.partitions():
        start, lag = offsets.get(tp, (None, None))
        snapshot.backlog[tp] = PartitionBacklog(_known(start), read.end_offsets.get(tp),
                                                _known(lag))
    if snapshot.backlog and all(b.lag is None for b in snapshot.backlog.values()):
        snapshot.notes.append("the broker reported no share-partition lag "
                              "(DescribeShareGroupOffsets v1, Kafka 4.3+; or partitions not "
                              "initialized yet): backlog unknown")
    return snapshot


def described_streams_snapshot(read: ClusterRead, group: GroupRead) -> StreamsSnapshot:
    """The Streams group ``group`` as read; its active tasks' lag from the committed offsets."""
    described = group.described
    members = [StreamsGroupMember(
        m.member_id, m.client_id or None, m.client_host or None, m.process_id or None,
        m.member_epoch,
        {kind: _task_ids(m.assignment, _DESCRIBED.format(kind)) for kind in TASK_KINDS},
        {kind: _task_ids(m.target_assignment, _DESCRIBED.format(kind)) for kind in TASK_KINDS})
        for m in described.members]
    topology = described.topology
    described_subtopologies = (topology.subtopologies or ()) if topology else ()
    subtopologies = {s.subtopology_id: tuple(s.source_topics) for s in described_subtopologies}
    inputs = {t for topics in subtopologies.values() for t in topics}
    snapshot = StreamsSnapshot(
        group.group_id, described.group_state, described.group_epoch,
        described.assignment_epoch, topology.epoch if topology else None,
        getattr(described, "assignor_name", None) or None, members, subtopologies,
        partitions={t: read.partitions[t] for t in sorted(inputs) if t in read.partitions},
        stateful=tuple(s.subtopology_id for s in described_subtopologies
                       if s.state_changelog_topics),
        num_standby_replicas=group.standby_replicas, observed_at=read.observed_at)
    if topology is None:
        snapshot.notes.append("the broker described no topology: task inputs and lag unknown")
    for task in sorted({t for m in members for t in m.tasks.get("active", ())},
                       key=label_order):
        snapshot.task_lags[task] = _task_lag(read, group, subtopologies, task)
    return snapshot


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


def snapshot_of(read: ClusterRead, group: GroupRead) -> ShareSnapshot | StreamsSnapshot | None:
    """The snapshot of a described share or Streams group (None for other groups)."""
    if group.described is None or group.problems:
        return None
    if group.group_type == "share":
        return described_share_snapshot(read, group)
    if group.group_type == "streams":
        return described_streams_snapshot(read, group)
    return None
