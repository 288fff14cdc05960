"""The ``range`` strategy: Java's RangeAssignor, partition for partition (Kafka 4.0, KIP-881 racks).

Pick it to match what Java consumers in the same group would compute, or to co-partition topics
(partition *i* of equally sized topics goes to the same member).
"""

from __future__ import annotations

from assignframe import GroupAssignment, GroupSubscription, Strategy, hookimpl

from ._range import assign_ranges

__all__ = ["RangeStrategy"]


class RangeStrategy(Strategy):
    """Contiguous ranges of each topic's partitions, per topic, exactly as Java assigns them.

    Members are ordered static members first (by ``group.instance.id``), then by member id, both
    compared as Java strings (UTF-16 code units). Balanced per topic, not across topics: with many
    small topics the first members get everything (see docs/strategies.md).
    """

    name = "range"
    option_defaults: dict = {}

    def assign(self, group: GroupSubscription) -> GroupAssignment:
        return GroupAssignment.from_partitions(assign_ranges(group))


@hookimpl
def register_strategies(registry):
    registry.add(RangeStrategy)
