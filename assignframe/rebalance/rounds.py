"""What rebalance rounds are made of: the consumers that join one, and what each round produced.

:class:`Consumer` is one member's input to a round; :class:`RoundResult` everything the round
produced (the bytes on the wire, the leader's input, the assignment, who must rejoin) with its
metrics computed on first read; :class:`Rebalance` one rebalance's rounds, the first and the
cooperative follow-ups. The runner (:mod:`.runner`) makes them; replays and tools read them.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..classic.protocol import subscription_bytes
from ..metrics import RoundMetrics, round_metrics
from ..model import (
    GroupAssignment,
    GroupSubscription,
    MemberState,
    RebalanceProtocol,
    SubscriptionMetadata,
    TopicPartition,
)
from ..strategy import Strategy

__all__ = [
    "Consumer",
    "EncodedOnRead",
    "Join",
    "Rebalance",
    "RoundResult",
    "join_subscriptions",
    "unique_consumers",
]


@dataclass(frozen=True)
class Consumer:
    """One consumer joining a round.

    :param member_id: its member id (state is kept per member id; an unknown id is a new consumer)
    :param topics: the topics it subscribes to
    :param strategies: strategy names it offers, most preferred first; empty = the runner's default
    :param rack: its ``client.rack``, or None
    :param group_instance_id: its static membership id (KIP-345), or None
    :param subscription: crafted JoinGroup metadata bytes sent verbatim instead of building them
    :param options: this consumer's own strategy options, over the runner's (a real consumer
        configured with ``replicas=2``): its strategy instance builds its subscription, keeps its
        state and, when it leads, assigns
    """

    member_id: str
    topics: tuple[str, ...]
    strategies: tuple[str, ...] = ()
    rack: str | None = None
    group_instance_id: str | None = None
    subscription: bytes | None = None
    options: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "topics", tuple(self.topics))
        object.__setattr__(self, "strategies", tuple(self.strategies))
        object.__setattr__(self, "options", dict(self.options))


@dataclass(frozen=True)
class RoundResult:
    """Everything one round produced.

    :param index: position of this round in the runner's life (0 = first)
    :param generation: the generation the round created
    :param followup: True if the runner added the round because cooperative members rejoined
    :param protocol: the strategy name the group ran
    :param subscriptions: member_id -> the JoinGroup metadata bytes it sent
    :param assignment_bytes: member_id -> the SyncGroup assignment bytes it received
    :param group: what the leader handed the strategy
    :param assignment: what the strategy returned
    :param revoked: member_id -> partitions a COOPERATIVE member owned but lost (members that
        must rejoin; members that lost nothing are absent, as in the golden files)
    :param owners_per_partition: how many members the strategy gives each partition (for metrics)
    :param previous: the assignment before this rebalance, if any (for kept/moved metrics): for
        a follow-up round, before the round that started the rebalance, so a partition revoked
        in one round and handed over in the next counts as moved once
    :param rebalance_protocol: the leader's rebalance protocol this round (COOPERATIVE rounds may
        withhold partitions whose owner must release them first; see :mod:`assignframe.metrics`)
    """

    index: int
    generation: int
    followup: bool
    protocol: str
    subscriptions: Mapping[str, bytes]
    assignment_bytes: Mapping[str, bytes]
    group: GroupSubscription
    assignment: GroupAssignment
    revoked: Mapping[str, tuple[TopicPartition, ...]]
    owners_per_partition: int = 1
    previous: GroupAssignment | None = field(default=None, repr=False, compare=False)
    rebalance_protocol: RebalanceProtocol = RebalanceProtocol.EAGER

    @functools.cached_property
    def metrics(self) -> RoundMetrics:
        """Balance, movement, lag and validity of this round (computed on first access)."""
        return round_metrics(
            self.group,
            self.assignment,
            self.previous,
            self.owners_per_partition,
            cooperative=self.rebalance_protocol is RebalanceProtocol.COOPERATIVE,
        )

    @property
    def rejoining(self) -> tuple[str, ...]:
        """Members that must rejoin (cooperative revocations), sorted."""
        return tuple(sorted(self.revoked))

    def result_pairs(self) -> dict[str, list[list[Any]]]:
        """member_id -> ``[[topic, partition], ...]`` in assignment order (golden ``result``)."""
        return {
            member_id: [[tp.topic, tp.partition] for tp in assignment.partitions]
            for member_id, assignment in self.assignment.assignments.items()
        }


@dataclass(frozen=True)
class Rebalance:
    """One rebalance: the round that started it and the follow-ups the runner added."""

    rounds: tuple[RoundResult, ...]
    settled: bool

    @property
    def first(self) -> RoundResult:
        return self.rounds[0]

    @property
    def final(self) -> RoundResult:
        return self.rounds[-1]


class EncodedOnRead(Mapping[str, bytes]):
    """member_id -> bytes, each encoded from its value the first time it is read (a runner
    made with ``wire=False`` encodes only what someone reads)."""

    def __init__(self, values: Mapping[str, Any], encode: Callable[[Any], bytes]) -> None:
        self._values, self._encode = values, encode
        self._encoded: dict[str, bytes] = {}

    def __getitem__(self, member_id: str) -> bytes:
        data = self._encoded.get(member_id)
        if data is None:
            data = self._encoded[member_id] = self._encode(self._values[member_id])
        return data

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return repr(dict(self))


def unique_consumers(consumers: Iterable[Consumer]) -> tuple[Consumer, ...]:
    """The consumers of one round, each member id once (:raises ValueError: none, or twice)."""
    joining = tuple(consumers)
    if not joining:
        raise ValueError("a round needs at least one consumer")
    seen: set[str] = set()
    for consumer in joining:
        if consumer.member_id in seen:
            raise ValueError(f"member id {consumer.member_id!r} joins twice")
        seen.add(consumer.member_id)
    return joining


class Join(NamedTuple):
    """One consumer's side of a join: its strategy instance (with its own options), its
    protocol, its state once joined (what it still owns), what it sent.

    ``subscription`` is None when a ``wire=False`` runner has not encoded ``metadata``.
    (Immutable as a frozen dataclass, built at half the cost or less: one per member per round,
    and one more per strategy replayed alike.)
    """

    consumer: Consumer
    strategy: Strategy
    protocol: RebalanceProtocol
    state: MemberState
    subscription: bytes | None
    metadata: SubscriptionMetadata | None = None

    @property
    def member_id(self) -> str:
        return self.consumer.member_id

    def played_by(self, strategy: Strategy) -> Join:
        """This join with ``strategy`` playing it (for a strategy replayed alike)."""
        j = self  # spelled out: _replace costs twice as much
        return Join(j.consumer, strategy, j.protocol, j.state, j.subscription, j.metadata)

    @property
    def subscription_bytes(self) -> bytes:
        if self.subscription is not None:
            return self.subscription
        assert self.metadata is not None  # one of the two is always set
        return subscription_bytes(self.metadata)


def join_subscriptions(joins: Sequence[Join]) -> Mapping[str, bytes]:
    """Member id -> the subscription bytes each join sent (encoded when read, when a
    ``wire=False`` runner has not encoded them)."""
    if all(join.subscription is not None for join in joins):
        return {join.member_id: join.subscription_bytes for join in joins}
    return EncodedOnRead(
        {join.consumer.member_id: join for join in joins}, operator.attrgetter("subscription_bytes")
    )
