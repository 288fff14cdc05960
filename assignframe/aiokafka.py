"""Use installed assignframe strategies in aiokafka consumers.

::

    from aiokafka import AIOKafkaConsumer
    from assignframe.aiokafka import assignors

    consumer = AIOKafkaConsumer(
        "orders",
        group_id="billing",
        partition_assignment_strategy=assignors("sticky", "range", client_rack="eu-west-1a"),
    )

The contract is :mod:`assignframe.kafka_python`'s, within what aiokafka's group protocol allows:

* members send v3 subscriptions (owned partitions, generation, rack) and the leader sends v3
  assignments, both as finished bytes that aiokafka passes through unchanged;
* the aiokafka leader decodes subscriptions with its own v0-only schema, so the strategy sees
  every member as v0: topics and user data, no owned partitions, generation or rack, and no
  static member ids (aiokafka drops them before calling the assignor);
* aiokafka never tells an assignor the generation, so members always send generation -1;
  sticky strategies still work, since their previous assignment travels in user data;
* aiokafka only rebalances eagerly: strategies that declare COOPERATIVE are refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from aiokafka.coordinator.assignors.abstract import AbstractPartitionAssignor

from .classic import wire
from .model import Cluster, MemberState, RebalanceProtocol
from .plugins.manager import PluginManager, get_plugin_manager
from .rebalance.bridge import (
    ConsumerBridge,
    JoinedMember,
    partition_counts,
    rebalance_protocol_of,
    strategies_for,
)

__all__ = ["AiokafkaAssignor", "assignors"]


def assignors(
    *names: str,
    client_rack: str | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    plugins: PluginManager | None = None,
) -> list[AiokafkaAssignor]:
    """New assignor objects for one consumer's ``partition_assignment_strategy``.

    Parameters as :func:`assignframe.kafka_python.assignors`.

    :raises ValueError: a strategy declares COOPERATIVE (aiokafka has no cooperative rebalance)
    :raises InconsistentGroupProtocolError: the strategies share no rebalance protocol
    """
    plugins = plugins or get_plugin_manager()
    strategies = strategies_for(names, plugins, options)
    cooperative = [s.name for s in strategies if RebalanceProtocol.COOPERATIVE in s.protocols]
    if cooperative:
        raise ValueError(
            f"aiokafka cannot run {', '.join(cooperative)}: it rebalances eagerly only and its "
            "leader reads subscriptions as v0 (no owned partitions)"
        )
    rebalance_protocol_of(strategies)  # raises for strategies that share no protocol
    return [
        AiokafkaAssignor(ConsumerBridge(strategy, plugins, RebalanceProtocol.EAGER, client_rack))
        for strategy in strategies
    ]


class AiokafkaAssignor(AbstractPartitionAssignor):
    """An aiokafka assignor running one assignframe strategy for one consumer."""

    def __init__(self, bridge: ConsumerBridge) -> None:
        self.bridge = bridge

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.bridge!r})"

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.bridge.name

    @property
    def state(self) -> MemberState:
        return self.bridge.state

    def metadata(self, topics: Iterable[str]) -> bytes:  # type: ignore[override]
        return self.bridge.subscription(topics)

    def assign(self, cluster: Any, members: Mapping[str, Any]) -> dict[str, bytes]:  # type: ignore[override]
        joined = [
            JoinedMember(
                member_id, None, wire.encode_v0_subscription(view.subscription, view.user_data)
            )
            for member_id, view in members.items()
        ]
        topics = {t for view in members.values() for t in view.subscription}
        return self.bridge.assign(joined, Cluster(partition_counts(cluster, topics)))

    def on_assignment(self, assignment: Any) -> None:  # type: ignore[override]
        raw = assignment if isinstance(assignment, bytes) else assignment.encode()
        self.bridge.on_assignment(raw, -1)
