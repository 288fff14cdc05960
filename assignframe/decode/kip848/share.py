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

__all__ = ["share_metrics", "shared_partitions", "unheld_partitions"]


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
