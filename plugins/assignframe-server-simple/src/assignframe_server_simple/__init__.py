"""``server:simple``: the broker's share-group assignor (KIP-932, Kafka's ``SimpleAssignor``).

Share groups may give one partition to several members: each partition wants
``ceil(members / partitions)`` owners, and members are balanced around that. Sticky where the
balance allows, not rack-aware. Reproduces Java (JDK 17) result for result, including its known
quirks (partitions of topics nobody subscribes to any more stay assigned in heterogeneous groups;
uninitialized partitions held already are kept).
"""

from __future__ import annotations

from assignframe import ServerGroupSpec, hookimpl
from assignframe.server_assignor import SHARE_GROUP, BuiltAssignment, SubscriptionTypeAssignor

from ._common import JavaAssignorFailure
from ._heterogeneous import assign_heterogeneous, topic_subscribers
from ._homogeneous import assign_homogeneous

__all__ = ["JavaAssignorFailure", "SimpleAssignor", "topic_subscribers"]


class SimpleAssignor(SubscriptionTypeAssignor):
    """Kafka's group-coordinator ``SimpleAssignor`` (name ``simple``), JDK 17 orders: the
    builders' deep copies and edits are replayed on Java-ordered tables for
    :meth:`assign_in_java_order`."""

    name = "simple"
    group_types = (SHARE_GROUP,)

    def build_homogeneous(self, group: ServerGroupSpec, java_order: bool) -> BuiltAssignment:
        return assign_homogeneous(group, java_order)

    def build_heterogeneous(self, group: ServerGroupSpec, java_order: bool) -> BuiltAssignment:
        return assign_heterogeneous(group, java_order)


@hookimpl
def register_strategies(registry):
    registry.add(SimpleAssignor)
