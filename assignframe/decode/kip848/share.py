"""What a captured share group's epoch (KIP-932) is judged by, where the consumer protocol's
one-owner rules do not hold: the coordinator may give one share partition to several members
(its records go to whichever holder fetches them), so a partition held by several members is
*shared*, not double-owned; one held twice by the same member, or by nobody, is still a fault.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from ...metrics import RoundMetrics
from ...model import GroupAssignment, TopicPartition
from ...snapshot import GroupSnapshot, snapshot_metrics
from ...snapshot.share import ShareMember, ShareSnapshot

__all__ = ["captured_share_snapshot", "share_metrics", "shared_partitions", "unheld_partitions"]


def _holders(snapshot: GroupSnapshot) -> Counter[TopicPartition]:
    return Counter(tp for member in snapshot.members
                   for tp in set(snapshot.current.partitions_of(member)))


def shared_partitions(snapshot: GroupSnapshot) -> list[TopicPartition]:
    """Partitions more than one live member holds, in order."""
    return sorted(tp for tp, count in _holders(snapshot).items() if count > 1)


def unheld_partitions(snapshot: GroupSnapshot) -> list[TopicPartition]:
    """Subscribed partitions no live member holds, in topic order."""
    held = _holders(snapshot)
    return [tp for tp in snapshot.partitions() if tp not in held]


def share_metrics(snapshot: GroupSnapshot,
                  previous: GroupAssignment | None = None) -> RoundMetrics:
    """:func:`~assignframe.snapshot.snapshot_metrics`, a shared partition not counted
    double-owned (only one a member holds twice is)."""
    metrics = snapshot_metrics(snapshot, previous)
    twice = {tp for member in snapshot.members
             for tp, count in Counter(snapshot.current.partitions_of(member)).items()
             if count > 1}
    validity = dataclasses.replace(
        metrics.validity,
        double_owned=tuple(tp for tp in metrics.validity.double_owned if tp in twice))
    return dataclasses.replace(metrics, validity=validity)


def captured_share_snapshot(snapshot: GroupSnapshot) -> ShareSnapshot:
    """The share group's epoch as every tool reads a share group (what decode writes, the
    audit replays): members with their epochs, subscriptions and partitions, the topics'
    partition counts; the backlog is not in the traffic."""
    members = [ShareMember(
        member_id, snapshot.info(member_id).client_id, snapshot.info(member_id).client_host,
        _epoch(snapshot, member_id), tuple(member.topics),
        tuple(snapshot.current.partitions_of(member_id)))
        for member_id, member in snapshot.members.items()]
    return ShareSnapshot(
        snapshot.group_id, snapshot.group_state, snapshot.generation,
        snapshot.target_epoch if snapshot.target_epoch is not None else snapshot.generation,
        snapshot.assignor, members,
        {t: snapshot.cluster.partitions_per_topic[t] for t in snapshot.topics()
         if t in snapshot.cluster.partitions_per_topic},
        notes=[*snapshot.notes, "the backlog is not in captured heartbeats: unknown"],
        observed_at=snapshot.observed_at)


def _epoch(snapshot: GroupSnapshot, member_id: str) -> int:
    epoch = snapshot.info(member_id).member_epoch
    return snapshot.generation if epoch is None else epoch
