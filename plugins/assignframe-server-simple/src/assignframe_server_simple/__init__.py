"""``server:simple``: the broker's share-group assignor (KIP-932, Kafka's ``SimpleAssignor``).

Share groups may give one partition to several members: each partition wants
``ceil(members / partitions)`` owners, and members are balanced around that. Sticky where the
balance allows, not rack-aware. Reproduces Java (JDK 17) result for result, including its known
quirks (partitions of topics nobody subscribes to any more stay assigned in heterogeneous groups;
uninitialized partitions held already are kept).
"""

from __future__ import annotations

from assignframe import (
    HOMOGENEOUS,
    ServerAssignment,
    ServerAssignor,
    ServerGroupSpec,
    hookimpl,
)
from assignframe.server_assignor import SHARE_GROUP

from ._heterogeneous import assign_heterogeneous, topic_subscribers
from ._homogeneous import assign_homogeneous

__all__ = ["SimpleAssignor", "topic_subscribers"]


class SimpleAssignor(ServerAssignor):
    """Kafka's group-coordinator ``SimpleAssignor`` (name ``simple``), JDK 17 orders."""

    name = "simple"
    group_types = (SHARE_GROUP,)

    def assign(self, group: ServerGroupSpec) -> ServerAssignment:
        if not group.members:
            return ServerAssignment({})
        if group.subscription_type == HOMOGENEOUS:
            return ServerAssignment(assign_homogeneous(group))
        return ServerAssignment(assign_heterogeneous(group))

    def assign_in_java_order(self, group: ServerGroupSpec) -> ServerAssignment:
        """:meth:`assign`, each member's topics and partitions in the order of Java's map (the
        builders' deep copies and edits replayed on Java-ordered tables)."""
        if not group.members:
            return ServerAssignment({})
        if group.subscription_type == HOMOGENEOUS:
            return ServerAssignment(assign_homogeneous(group, java_order=True))
        return ServerAssignment(assign_heterogeneous(group, java_order=True))


@hookimpl
def register_strategies(registry):
    registry.add(SimpleAssignor)
