"""``server:uniform``: the broker's default KIP-848 assignor (Kafka's ``UniformAssignor``).

Sticky and balanced: members keep what they hold while the balance allows it. Homogeneous groups
(every member subscribed to the same topics) are balanced to within one partition;
heterogeneous groups stop after 16 balancing passes and may stay "almost balanced". Not
rack-aware. Reproduces Java (JDK 17) partition for partition, tie-breaks included.
"""

from __future__ import annotations

from assignframe import ServerGroupSpec, hookimpl
from assignframe.server_assignor import BuiltAssignment, SubscriptionTypeAssignor

from ._heterogeneous import build_heterogeneous
from ._homogeneous import assign_homogeneous, topic_order
from ._java_order import homogeneous_order

__all__ = ["UniformAssignor", "topic_order"]


class UniformAssignor(SubscriptionTypeAssignor):
    """Kafka's group-coordinator ``UniformAssignor`` (name ``uniform``), JDK 17 orders."""

    name = "uniform"

    def build_homogeneous(self, group: ServerGroupSpec, java_order: bool) -> BuiltAssignment:
        result = assign_homogeneous(group)
        return homogeneous_order(group, result) if java_order else result

    def build_heterogeneous(self, group: ServerGroupSpec, java_order: bool) -> BuiltAssignment:
        builder = build_heterogeneous(group, java_order)
        if builder is None:
            return {}
        return builder.java_ordered() if java_order else builder.result()


@hookimpl
def register_strategies(registry):
    registry.add(UniformAssignor)
