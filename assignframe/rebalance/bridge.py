"""The client-independent half of the consumer adapters (kafka-python, aiokafka).

One :class:`ConsumerBridge` serves one strategy inside one consumer: a thin translation between
what a client hands an assignor and the core model. Every rule of the group protocol (the
member's rebalance protocol, what it keeps when it joins, how the leader reads subscriptions and
user data, the cooperative hand-over check) is :mod:`assignframe.classic.protocol`'s, the module the
runner plays too; bytes go through :mod:`assignframe.classic.wire`. Nothing here imports a Kafka
client: the adapter modules translate their client's objects into :class:`JoinedMember` and
:class:`~assignframe.model.Cluster` and back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..classic import wire
from ..classic.protocol import (
    UserDataReader,
    check_cooperative_handover,
    leader_member,
    member_rebalance_protocol,
    state_at_join,
    subscription_bytes,
)
from ..model import Cluster, GroupSubscription, MemberState, RebalanceProtocol
from ..plugins.manager import PluginManager
from ..strategy import Strategy

__all__ = [
    "ConsumerBridge",
    "JoinedMember",
    "partition_counts",
    "rebalance_protocol_of",
    "strategies_for",
]


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


def rebalance_protocol_of(strategies: Iterable[Strategy]) -> RebalanceProtocol:
    """The rebalance protocol a consumer offering ``strategies`` runs
    (:func:`assignframe.classic.protocol.member_rebalance_protocol`).

    :raises InconsistentGroupProtocolError: the strategies share no protocol
    """
    strategies = list(strategies)
    return member_rebalance_protocol(
        [s.protocols for s in strategies], "this consumer", [s.name for s in strategies]
    )


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


class ConsumerBridge:
    """One strategy inside one consumer: subscription, leader assignment and member state.

    :param strategy: the strategy this protocol name stands for
    :param plugins: the plugin manager whose hooks build and read everything
    :param protocol: the rebalance protocol the consumer runs (see :func:`rebalance_protocol_of`)
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
        # The state once joined (what the member kept), handed to on_assignment as the runner
        # does; None before the first join.
        self._joined: MemberState | None = None
        self._read_user_data = UserDataReader(
            plugins, strategy, f"group {group_id!r}" if group_id else None
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.strategy!r}, {self.protocol.value}, {self.state!r})"

    @property
    def name(self) -> str:
        return self.strategy.name

    # -- member side ----------------------------------------------------------------------

    def subscription(self, topics: Iterable[str]) -> bytes:
        """The JoinGroup metadata for this strategy: a v3 subscription (topics sorted)."""
        topics = tuple(sorted(topics))  # clients hand over a set; the hook gets a stable order
        metadata = self.plugins.subscription_metadata(
            self.strategy, topics, self.state, rack=self.rack, protocol=self.protocol
        )
        self._joined = state_at_join(self.state, topics, self.protocol)
        return subscription_bytes(metadata)

    def lose(self) -> None:
        """The member lost its membership (its generation was reset): it owns nothing and joins
        again with no generation, so no leader trusts its old claims (Java's ``onJoinPrepare``
        after a reset; KIP-792). The strategy's own state stays, as Java's assignors keep theirs."""
        self.state = MemberState((), -1, self.state.strategy_state)

    def on_assignment(self, assignment: bytes, generation: int) -> MemberState:
        """Remember what the leader sent this member in ``generation``; returns the new state."""
        received = wire.decode_member_assignment(assignment)
        joined = self.state if self._joined is None else self._joined
        self.state = self.plugins.on_assignment(self.strategy, received, generation, joined)
        return self.state

    # -- leader side ----------------------------------------------------------------------

    def assign(self, members: Iterable[JoinedMember], cluster: Cluster) -> dict[str, bytes]:
        """The leader's SyncGroup assignments: member_id -> v3 assignment bytes.

        :raises InvalidAssignmentError: under COOPERATIVE, a partition would be added to one
            member while another gives it up in the same round
            (:func:`assignframe.classic.protocol.check_cooperative_handover`)
        """
        group = self.group_subscription(members, cluster)
        assignment = self.plugins.assign(self.strategy, group)
        if self.protocol is RebalanceProtocol.COOPERATIVE:
            check_cooperative_handover(self.strategy, group, assignment)
        return {
            member_id: wire.encode_member_assignment(member)
            for member_id, member in assignment.assignments.items()
        }

    def group_subscription(
        self, members: Iterable[JoinedMember], cluster: Cluster
    ) -> GroupSubscription:
        """Decode every member's subscription into the strategy's input.

        The generation being created is not given to assignors by any client, so it is taken as
        one past the highest generation a member reports (at least 1).
        """
        decoded = [
            leader_member(m.member_id, m.subscription, m.group_instance_id, self._read_user_data)
            for m in members
        ]
        newest = max((m.generation for m in decoded), default=0)
        topics = tuple(sorted({t for m in decoded for t in m.topics}))
        lags = self.plugins.lag_source(cluster=cluster, topics=topics, group_id=self.group_id)
        return GroupSubscription(
            {m.member_id: m for m in decoded}, cluster, generation=max(newest + 1, 1), lags=lags
        )
