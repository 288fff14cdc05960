"""Use installed assignframe strategies in kafka-python consumers (2.x and 3.x).

::

    from kafka import KafkaConsumer
    from assignframe.kafka_python import assignors

    consumer = KafkaConsumer(
        "orders",
        group_id="billing",
        client_rack="eu-west-1a",
        partition_assignment_strategy=assignors("cooperative-sticky", client_rack="eu-west-1a"),
    )

Each :func:`assignors` call returns new assignor objects holding that one consumer's state (its
owned partitions, generation and strategy state); give every consumer its own call.

What goes on the wire
=====================

``metadata()`` returns finished bytes, which every kafka-python version sends unchanged: a
ConsumerProtocol **v3** subscription (owned partitions, generation, rack) encoded by
:mod:`assignframe_codec`, so Java, librdkafka and kafka-python 3 leaders see everything.
``assign()`` returns v3 assignment bytes, also sent unchanged.

What the leader sees differs by version, because kafka-python decodes the members' subscriptions
itself before calling ``assign()``:

* kafka-python 3.x decodes every field (v0-v3); the adapter re-encodes that object, which gives
  back the member's exact bytes, and decodes them with :mod:`assignframe_codec`.
* kafka-python 2.x decodes only the v0 fields (topics, user data) and drops owned partitions,
  generation and rack. The strategy sees each member as a v0 subscription. kafka-python 2.x also
  has no cooperative rebalance, so strategies that declare COOPERATIVE are refused there.

Generations: kafka-python 3.x passes the generation to ``on_assignment``; 2.x only calls
``on_generation_assignment`` on an assignor named ``sticky``, so other strategies keep
generation -1 on 2.x. No version tells ``assign()`` the new generation (see
:meth:`ConsumerBridge.group_subscription`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import kafka
from kafka.coordinator.assignors.abstract import AbstractPartitionAssignor

from ..classic import wire
from ..model import Cluster, MemberState, RebalanceProtocol
from ..plugins.manager import PluginManager, get_plugin_manager
from ..rebalance.bridge import (
    ConsumerBridge,
    JoinedMember,
    partition_counts,
    rebalance_protocol_of,
    strategies_for,
)

__all__ = ["KAFKA_PYTHON_VERSION", "AssignframeAssignor", "assignors"]

#: The installed kafka-python's version as a tuple of ints, e.g. ``(3, 0, 12)``.
KAFKA_PYTHON_VERSION: tuple[int, ...] = tuple(
    int(part) for part in kafka.__version__.split(".")[:3] if part.isdigit()
)
_HAS_COOPERATIVE = KAFKA_PYTHON_VERSION >= (3,)


def assignors(
    *names: str,
    client_rack: str | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    plugins: PluginManager | None = None,
    lag_source: object | None = None,
) -> list[AssignframeAssignor]:
    """New assignor objects for one consumer's ``partition_assignment_strategy``.

    :param names: installed strategy names, most preferred first (e.g. ``"sticky", "range"``)
    :param client_rack: the consumer's rack, sent in its subscription (pass the same value as
        the consumer's ``client_rack``; kafka-python does not show assignors its config)
    :param options: strategy name -> its options, e.g. ``{"redundant": {"replicas": 2}}``
    :param plugins: the plugin manager to use (default: the process-wide one)
    :param lag_source: where the leader reads partition lags for lag-based strategies, e.g.
        ``KafkaLagSource.from_config(consumer_config)`` (:mod:`assignframe.kafka_python.lag`);
        registered on the plugin manager, and asked with its own ``group_id``
    :raises UnknownStrategyError: a name no installed strategy has
    :raises InconsistentGroupProtocolError: the strategies share no rebalance protocol (the
        rule of :func:`assignframe.classic.protocol.member_rebalance_protocol`, as in the runner)
    :raises ValueError: kafka-python 2.x was asked for a cooperative strategy
    """
    plugins = plugins or get_plugin_manager()
    group_id = getattr(lag_source, "group_id", None)
    if lag_source is not None and not plugins.hook_manager.is_registered(lag_source):
        plugins.register(lag_source, name=f"lag-source-{group_id}-{id(lag_source)}")
    strategies = strategies_for(names, plugins, options)
    if not _HAS_COOPERATIVE:
        _refuse_cooperative(strategies)
    protocol = rebalance_protocol_of(strategies) if _HAS_COOPERATIVE else RebalanceProtocol.EAGER
    return [
        AssignframeAssignor(ConsumerBridge(strategy, plugins, protocol, client_rack, group_id))
        for strategy in strategies
    ]


def _refuse_cooperative(strategies: Iterable[Any]) -> None:
    cooperative = [s.name for s in strategies if RebalanceProtocol.COOPERATIVE in s.protocols]
    if cooperative:
        raise ValueError(
            f"kafka-python {kafka.__version__} cannot run {', '.join(cooperative)}: "
            "2.x leaders read "
            "subscriptions as v0 (no owned partitions) and 2.x has no cooperative rebalance; "
            "use kafka-python>=3"
        )


class AssignframeAssignor(AbstractPartitionAssignor):
    """A kafka-python assignor running one assignframe strategy for one consumer.

    Build it with :func:`assignors`; it keeps that consumer's state, never share one instance.
    """

    def __init__(self, bridge: ConsumerBridge) -> None:
        self.bridge = bridge
        # kafka-python 2.x only: the state before, and the bytes of, the last assignment
        self._before_generation: MemberState | None = None
        self._last_assignment = b""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.bridge!r})"

    @property
    def name(self) -> str:
        return self.bridge.name

    @property
    def state(self) -> MemberState:
        """What this consumer remembers from its last assignment."""
        return self.bridge.state

    def supported_protocols(self) -> list[Any]:
        """kafka-python 3's ``RebalanceProtocol`` values this strategy supports."""
        from kafka.coordinator.assignors.abstract import RebalanceProtocol as ClientProtocol

        return [ClientProtocol[protocol.name] for protocol in self.bridge.strategy.protocols]

    def metadata(self, topics: Iterable[str]) -> bytes:
        return self.bridge.subscription(topics)

    def assign(self, cluster: Any, members: Any) -> dict[str, bytes]:
        joined = _joined_members(members)
        topics = {t for member in _subscribed_topics(members) for t in member}
        counts = partition_counts(cluster, topics)
        return self.bridge.assign(joined, Cluster(counts, _partition_racks(cluster, counts)))

    def on_assignment(self, assignment: Any, generation: int | None = None) -> None:
        raw = assignment if isinstance(assignment, bytes) else assignment.encode()
        if generation is not None:  # kafka-python 3.x
            self.bridge.on_assignment(raw, generation)
            return
        # kafka-python 2.x: the generation follows in on_generation_assignment, and only for an
        # assignor named "sticky"; until then the state holds generation -1.
        self._before_generation, self._last_assignment = self.bridge.state, raw
        self.bridge.on_assignment(raw, -1)

    def on_generation_assignment(self, generation: int) -> None:
        """kafka-python 2.x's second callback (assignors named ``sticky`` only)."""
        if self._before_generation is None:
            return
        self.bridge.state = self._before_generation
        self.bridge.on_assignment(self._last_assignment, generation)
        self._before_generation = None


def _joined_members(members: Any) -> list[JoinedMember]:
    """The leader's members in kafka-python 3's list form or 2.x's {member_id: view} form."""
    if isinstance(members, Mapping):
        return [
            JoinedMember(
                member_id,
                getattr(view, "group_instance_id", None),
                wire.encode_v0_subscription(_topics_of(view), view.user_data),
            )
            for member_id, view in members.items()
        ]
    # 3.x decoded every field; encoding the object again yields the member's own bytes.
    return [JoinedMember(m.member_id, m.group_instance_id, m.metadata.encode()) for m in members]


def _subscribed_topics(members: Any) -> list[Iterable[str]]:
    if isinstance(members, Mapping):
        return [_topics_of(view) for view in members.values()]
    return [m.metadata.topics for m in members]


def _topics_of(view: Any) -> Iterable[str]:
    # 2.0.x names the field "subscription"; 2.1+ wraps it in a Subscription with "topics".
    topics = getattr(view, "topics", None)
    return topics if topics is not None else view.subscription


def _partition_racks(cluster: Any, counts: Mapping[str, int]) -> dict[str, tuple] | None:
    """Replica racks per partition, when kafka-python (3.x) exposes replicas and brokers racks."""
    is_replica_node = getattr(cluster, "is_replica_node", None)
    if is_replica_node is None:
        return None
    racked = [b for b in cluster.brokers() if getattr(b, "rack", None)]
    if not racked:
        return None
    from kafka.structs import TopicPartition

    def racks(topic: str, partition: int) -> tuple[str, ...]:
        tp = TopicPartition(topic, partition)
        return tuple(sorted({b.rack for b in racked if is_replica_node(tp, b.node_id)}))

    return {topic: tuple(racks(topic, p) for p in range(n)) for topic, n in counts.items()}
