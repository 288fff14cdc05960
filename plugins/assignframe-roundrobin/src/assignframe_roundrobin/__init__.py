"""The ``roundrobin`` strategy: Java's RoundRobinAssignor, partition for partition (Kafka 4.0).

Pick it to match Java consumers in the same group, or for an even spread when every member
subscribes to the same topics.
"""

from __future__ import annotations

from assignframe import GroupAssignment, GroupSubscription, Strategy, hookimpl

from ._roundrobin import assign_round_robin

__all__ = ["RoundRobinStrategy"]


class RoundRobinStrategy(Strategy):
    """Deal all partitions, topic by topic, to the members in a circle, skipping non-subscribers.

    With identical subscriptions every member's count is within one of every other's. With unequal
    subscriptions the skipping can pile partitions on the members that subscribe to more (KIP-49;
    the ``fair`` strategy addresses that). Members are ordered static members first (by
    ``group.instance.id``), then by member id, both compared as Java strings.
    """

    name = "roundrobin"
    option_defaults: dict = {}

    def assign(self, group: GroupSubscription) -> GroupAssignment:
        return GroupAssignment.from_partitions(assign_round_robin(group))


@hookimpl
def register_strategies(registry):
    registry.add(RoundRobinStrategy)
