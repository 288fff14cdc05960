"""``server:uniform``: the broker's default KIP-848 assignor (Kafka's ``UniformAssignor``).

Sticky and balanced: members keep what they hold while the balance allows it. Homogeneous groups
(every member subscribed to the same topics) are balanced to within one partition;
heterogeneous groups stop after 16 balancing passes and may stay "almost balanced". Not
rack-aware. Reproduces Java (JDK 17) partition for partition, tie-breaks included.
"""

from __future__ import annotations

from assignframe import (
    HOMOGENEOUS,
    ServerAssignment,
    ServerAssignor,
    ServerGroupSpec,
    hookimpl,
)

from ._heterogeneous import assign_heterogeneous, build_heterogeneous
from ._homogeneous import assign_homogeneous, topic_order
from ._java_order import heterogeneous_order, homogeneous_order

__all__ = ["UniformAssignor", "topic_order"]


class UniformAssignor(ServerAssignor):
    """Kafka's group-coordinator ``UniformAssignor`` (name ``uniform``), JDK 17 orders."""

    name = "uniform"

    def assign(self, group: ServerGroupSpec) -> ServerAssignment:
        if not group.members:
            return ServerAssignment({})
        # The builders return fresh dicts of tuples: adopted without a copy.
        if group.subscription_type == HOMOGENEOUS:
            return ServerAssignment.adopt(assign_homogeneous(group))
        return ServerAssignment.adopt(assign_heterogeneous(group))

    def assign_in_java_order(self, group: ServerGroupSpec) -> ServerAssignment:
        """:meth:`assign`, each member's topics and partitions in the order of Java's map."""
        if not group.members:
            return ServerAssignment({})
        if group.subscription_type == HOMOGENEOUS:
            return ServerAssignment.adopt(homogeneous_order(group, assign_homogeneous(group)))
        builder = build_heterogeneous(group, log=True)
        if builder is None:
            return ServerAssignment({})
        return ServerAssignment.adopt(heterogeneous_order(group, builder))


@hookimpl
def register_strategies(registry):
    registry.add(UniformAssignor)
