"""The client-independent half of the consumer adapters (kafka-python, aiokafka).

One :class:`ConsumerBridge` serves one strategy inside one consumer. It turns the strategy's
hooks into the bytes a client puts on the wire (ConsumerProtocol subscriptions and assignments,
encoded with :mod:`assignframe_codec`) and keeps the consumer's :class:`MemberState` between
rebalances. Nothing here imports a Kafka client: the adapter modules translate their client's
objects into :class:`JoinedMember` and :class:`~assignframe.model.Cluster` and back.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from assignframe_codec import (
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
)

from .errors import InvalidAssignmentError
from .model import (
    Cluster,
    GroupAssignment,
    GroupSubscription,
    Member,
    MemberAssignment,
    MemberState,
    RebalanceProtocol,
    TopicPartition,
)
from .plugins import PluginManager
from .strategy import Strategy

__all__ = [
    "SUBSCRIPTION_VERSION",
    "ConsumerBridge",
    "JoinedMember",
    "common_protocol",
    "partition_counts",
    "strategies_for",
    "v0_subscription_bytes",
]

#: The ConsumerProtocol version members send: v3 carries owned partitions, generation and rack.
SUBSCRIPTION_VERSION = 3


@dataclass(frozen=True)
class JoinedMember:
    """One member as the leader received it in the JoinGroup response.

    :param member_id: coordinator-assigned member id
    :param group_instance_id: static membership id, or None
    :param subscription: the member's ConsumerProtocol subscription bytes for the group protocol
    """

    member_id: str
    group_instance_id: str | None
    subscription: bytes


def strategies_for(
    names: Iterable[str], plugins: PluginManager, options: Mapping[str, Mapping[str, Any]] | None
) -> list[Strategy]:
    """One new strategy instance per name, in order, built with its ``options`` entry.

    :raises ValueError: no names, a name given twice, or options for a strategy not named
    :raises UnknownStrategyError: a name no installed strategy has
    """
    names = list(names)
    options = dict(options or {})
    if not names:
        raise ValueError("name at least one strategy, e.g. assignors('range')")
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"strategy named more than once: {', '.join(duplicates)}")
    stray = sorted(set(options) - set(names))
    if stray:
        raise ValueError(f"options given for strategies not listed: {', '.join(stray)}")
    return [plugins.strategy(name, **options.get(name, {})) for name in names]


def common_protocol(strategies: Iterable[Strategy]) -> RebalanceProtocol:
    """The rebalance protocol a consumer offering ``strategies`` runs (Java's rule).

    The highest protocol every strategy supports: COOPERATIVE only when all of them do.

    :raises ValueError: the strategies share no protocol
    """
    strategies = list(strategies)
    common = set.intersection(*(set(s.protocols) for s in strategies))
    if not common:
        listed = ", ".join(f"{s.name} {[p.value for p in s.protocols]}" for s in strategies)
        raise ValueError(f"these strategies share no rebalance protocol: {listed}")
    return (
        RebalanceProtocol.COOPERATIVE
        if RebalanceProtocol.COOPERATIVE in common
        else RebalanceProtocol.EAGER
    )


def v0_subscription_bytes(topics: Iterable[str], user_data: bytes | None) -> bytes:
    """Re-encode a client's v0-only view of a subscription (its other fields are already lost)."""
    return encode_subscription(tuple(topics), user_data=user_data, version=0)


def partition_counts(metadata: Any, topics: Iterable[str]) -> dict[str, int]:
    """topic -> partition count from a kafka-python or aiokafka ``ClusterMetadata``.

    Topics the client knows no partitions of are left out, as Java's assignors do.
    """
    counts: dict[str, int] = {}
    for topic in sorted(set(topics)):
        partitions = metadata.partitions_for_topic(topic)
        if partitions:
            counts[topic] = len(partitions)
    return counts


def _pairs(partitions: Iterable[TopicPartition]) -> list[tuple[str, int]]:
    """``(topic, partition)`` pairs in the given order; the codec groups them as Java does."""
    return [(tp.topic, tp.partition) for tp in partitions]


def _flat(grouped: Iterable[Any]) -> tuple[TopicPartition, ...]:
    return tuple(TopicPartition(g.topic, p) for g in grouped for p in g.partitions)


class ConsumerBridge:
    """One strategy inside one consumer: subscription, leader assignment and member state.

    :param strategy: the strategy this protocol name stands for
    :param plugins: the plugin manager whose hooks build and read everything
    :param protocol: the rebalance protocol the consumer runs (see :func:`common_protocol`)
    :param rack: the consumer's rack (``client_rack``), or None
    :param group_id: the group, when known (lag sources answer for their own group only)
    """

    def __init__(
        self,
        strategy: Strategy,
        plugins: PluginManager,
        protocol: RebalanceProtocol,
        rack: str | None = None,
        group_id: str | None = None,
    ) -> None:
        self.strategy = strategy
        self.group_id = group_id
        self.plugins = plugins
        self.protocol = protocol
        self.rack = rack or None  # kafka-python's default client_rack is ""
        self.state = MemberState()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.strategy!r}, {self.protocol.value}, {self.state!r})"

    @property
    def name(self) -> str:
        return self.strategy.name

    # -- member side ----------------------------------------------------------------------

    def subscription(self, topics: Iterable[str]) -> bytes:
        """The JoinGroup metadata for this strategy: a v3 subscription (topics sorted)."""
        metadata = self.plugins.subscription_metadata(
            self.strategy, tuple(sorted(topics)), self.state, rack=self.rack, protocol=self.protocol
        )
        return encode_subscription(
            tuple(sorted(metadata.topics)),
            user_data=metadata.user_data,
            owned_partitions=_pairs(metadata.owned_partitions),
            generation_id=metadata.generation,
            rack_id=metadata.rack,
            version=SUBSCRIPTION_VERSION,
        )

    def on_assignment(self, assignment: bytes, generation: int) -> MemberState:
        """Remember what the leader sent this member in ``generation``; returns the new state."""
        return self._advance(self._member_assignment(assignment), generation, self.state)

    def _advance(
        self, assignment: MemberAssignment, generation: int, before: MemberState
    ) -> MemberState:
        self.state = self.plugins.on_assignment(self.strategy, assignment, generation, before)
        return self.state

    @staticmethod
    def _member_assignment(assignment: bytes) -> MemberAssignment:
        decoded = decode_assignment(assignment)
        return MemberAssignment(_flat(decoded.assigned_partitions), decoded.user_data)

    # -- leader side ----------------------------------------------------------------------

    def assign(self, members: Iterable[JoinedMember], cluster: Cluster) -> dict[str, bytes]:
        """The leader's SyncGroup assignments: member_id -> v3 assignment bytes.

        :raises InvalidAssignmentError: under COOPERATIVE, a partition would be given to one
            member while another still owns it (Java's ``validateCooperativeAssignment``)
        """
        group = self.group_subscription(members, cluster)
        assignment = self.plugins.assign(self.strategy, group)
        if self.protocol is RebalanceProtocol.COOPERATIVE:
            _check_cooperative(group, assignment, self.strategy)
        return {
            member_id: encode_assignment(
                _pairs(member.partitions), user_data=member.user_data, version=SUBSCRIPTION_VERSION
            )
            for member_id, member in assignment.assignments.items()
        }

    def group_subscription(
        self, members: Iterable[JoinedMember], cluster: Cluster
    ) -> GroupSubscription:
        """Decode every member's subscription into the strategy's input.

        The generation being created is not given to assignors by any client, so it is taken as
        one past the highest generation a member reports (at least 1).
        """
        decoded = [self._member(joined) for joined in members]
        newest = max((m.generation for m in decoded), default=0)
        topics = tuple(sorted({t for m in decoded for t in m.topics}))
        lags = self.plugins.lag_source(cluster=cluster, topics=topics, group_id=self.group_id)
        return GroupSubscription(
            {m.member_id: m for m in decoded}, cluster, generation=max(newest + 1, 1), lags=lags
        )

    def _member(self, joined: JoinedMember) -> Member:
        subscription = decode_subscription(joined.subscription)
        return Member(
            member_id=joined.member_id,
            topics=subscription.topics,
            owned_partitions=_flat(subscription.owned_partitions),
            generation=subscription.generation_id,
            group_instance_id=joined.group_instance_id,
            rack=subscription.rack_id,
            user_data=subscription.user_data,
            decoded_user_data=self.plugins.decode_user_data(
                self.strategy, joined.member_id, subscription.user_data, subscription.version
            ),
            subscription_version=subscription.version,
        )


def _check_cooperative(
    group: GroupSubscription, assignment: GroupAssignment, strategy: Strategy
) -> None:
    """No partition may move straight from one member to another in one cooperative round."""
    claimants: dict[TopicPartition, set[str]] = defaultdict(set)
    for member in group.members.values():
        for tp in member.owned_partitions:
            claimants[tp].add(member.member_id)
    moved = sorted(
        (tp, sorted(claimants[tp]), member_id)
        for member_id, member in assignment.assignments.items()
        for tp in member.partitions
        if claimants.get(tp) and member_id not in claimants[tp]
    )
    if moved:
        listed = ", ".join(f"{tp} from {old} to {new!r}" for tp, old, new in moved)
        raise InvalidAssignmentError(
            f"strategy {strategy.name!r} moved partitions still owned by another member in one "
            f"cooperative round: {listed}"
        )
