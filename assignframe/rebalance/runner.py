"""Plays rebalance rounds the way real consumers and the coordinator do.

One mechanism for every tool (CLI, replay, audit): it mirrors Java's ``ConsumerCoordinator`` as
described in ``shared/golden/README.md``:

1. *join*: each consumer keeps its own :class:`~assignframe.model.MemberState`. EAGER consumers
   give up everything first; COOPERATIVE ones only the partitions of topics they dropped. The
   subscription is built through the ``subscription_metadata`` hook and encoded as
   ConsumerProtocol v3 bytes, or taken verbatim when a consumer brings crafted bytes: then the
   member owns what those bytes claim (so a crafted cooperative round that withholds a claimed
   partition gets the follow-up a real group would play);
2. *election*: the coordinator picks the strategy every member offers that most members prefer;
   the generation increments;
3. *leader*: every subscription is decoded from its bytes (the static ``group_instance_id`` comes
   from the join, as on the wire), user data through the ``decode_user_data`` hook (user data
   the strategy cannot read counts as none, with one warning); the strategy assigns through the
   plugin manager; a COOPERATIVE leader checks the hand-over; each member's assignment is
   encoded as v3 bytes;
4. *sync*: each consumer decodes its own bytes and updates its state (``on_assignment`` hook).
   A COOPERATIVE consumer that lost partitions it owned rejoins, so :meth:`GroupRunner.rebalance`
   plays follow-up rounds until nobody has to (bounded by ``max_followups``).

Every rule of the group protocol in these steps is :mod:`assignframe.classic.protocol`'s, the
module the consumer bridge inside real consumers calls too.

Per round the work is the codec's encode/decode plus the strategy; metrics are computed only when
:attr:`RoundResult.metrics` is read. A runner made with ``wire=False`` (the fleet audit's
replays) skips the codec where the decoded value is known without it: the leader sees, and
members receive, exactly what the bytes would decode to (``wire.member_from_metadata``,
``wire.received_assignment``; the tests hold both modes equal), and the bytes of
:attr:`RoundResult.subscriptions` and :attr:`RoundResult.assignment_bytes` are encoded only when
read. Every hook still runs. A runner can also start from a group's existing assignment
(:meth:`GroupRunner.adopt`) instead of playing a round to get there. When no lags are given for a
round, the leader asks the ``lag_source`` hook once.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..classic import wire
from ..classic.protocol import (
    UserDataReader,
    check_cooperative_handover,
    claimed_state,
    elect_group_protocol,
    leader_member,
    leader_member_from_metadata,
    leader_member_undecoded,
    member_rebalance_protocol,
    revoked_at_sync,
    subscription_bytes,
)
from ..model import (
    Cluster,
    GroupAssignment,
    GroupSubscription,
    Member,
    MemberAssignment,
    MemberState,
    RebalanceProtocol,
    TopicPartition,
    trusted,
)
from ..plugins.manager import PluginManager, get_plugin_manager
from ..strategy import Strategy
from .member_hooks import MemberHooks
from .rounds import (
    Consumer,
    EncodedOnRead,
    Join,
    Rebalance,
    RoundResult,
    join_subscriptions,
    unique_consumers,
)

__all__ = [
    "Consumer",
    "DEFAULT_MAX_FOLLOWUPS",
    "GroupRunner",
    "Rebalance",
    "RoundResult",
    "alike_groups",
]

#: Follow-up rounds a rebalance may add before the runner reports it unsettled.
DEFAULT_MAX_FOLLOWUPS = 10
#: The hooks :meth:`GroupRunner.rebalance_alike` needs to be assignframe's defaults.
_ALIKE_HOOKS = frozenset(("subscription_metadata", "decode_user_data", "on_assignment"))

#: The state of a consumer that has never been assigned anything (frozen: one serves all).
_NEW_MEMBER = MemberState()


def _as_received(sent: MemberAssignment) -> MemberAssignment:
    """``sent`` as its member reads it from SyncGroup bytes (partitions grouped by topic)."""
    if wire.reads_back_as_is(sent.user_data):
        return wire.received_assignment(sent)  # ``sent`` itself when already in that order
    return MemberAssignment(wire.wire_order(sent.partitions), sent.user_data)


class GroupRunner:
    """A consumer group: its consumers' states, the cluster view and the generation.

    :param strategies: the strategy name (or preference list) consumers offer by default
    :param cluster: partition counts (and racks) the leader sees
    :param pm: the plugin manager (default: the process-wide one)
    :param options: operator options for the strategies (``GroupSubscription.options`` too)
    :param max_followups: follow-up rounds one rebalance may add before it counts as unsettled
    :param group_id: the group's id, handed to the ``lag_source`` hook (None: unknown)
    :param wire: False skips the codec round trips whose result is known without them
        (module docstring); the rounds played are the same
    :param name: how warnings name this group, e.g. ``"scenario 'x'"`` (default: ``group_id``)
    """

    def __init__(
        self,
        strategies: str | Sequence[str],
        *,
        cluster: Cluster,
        pm: PluginManager | None = None,
        options: Mapping[str, Any] | None = None,
        max_followups: int = DEFAULT_MAX_FOLLOWUPS,
        group_id: str | None = None,
        wire: bool = True,
        name: str | None = None,
    ) -> None:
        names = (strategies,) if isinstance(strategies, str) else tuple(strategies)
        if not names:
            raise ValueError("a group needs at least one strategy name")
        self.default_strategies = names
        self.cluster = cluster
        self.options: Mapping[str, Any] = dict(options or {})
        self.max_followups = max_followups
        self.group_id = group_id
        self.wire = wire
        self.name = name or (f"group {group_id!r}" if group_id else None)
        self._pm = pm or get_plugin_manager()
        self._instances: dict[str, Strategy] = {}
        self._own_instances: dict[tuple[str, str], Strategy] = {}
        self._readers: dict[str, UserDataReader] = {}
        self._protocols: dict[tuple[str, ...], RebalanceProtocol] = {}
        self._states: dict[str, MemberState] = {}
        self._generation = 0
        self._rounds_played = 0
        self._last_assignment: GroupAssignment | None = None
        self._rebalance_start: GroupAssignment | None = None

    @property
    def generation(self) -> int:
        """The generation of the last round (0 before any)."""
        return self._generation

    @property
    def states(self) -> Mapping[str, MemberState]:
        """Each current member's state (a copy)."""
        return dict(self._states)

    def adopt(
        self,
        assignment: GroupAssignment,
        generation: int,
        *,
        strategy: str | None = None,
        options: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        """Start from a group that already has ``assignment`` in ``generation``.

        Each member of ``assignment`` becomes a consumer that received its partitions (in the
        order SyncGroup bytes deliver them: grouped by topic) from a leader running ``strategy``
        (default: the runner's first strategy), through the ``on_assignment`` hook of its own
        instance (``options``: member id -> that consumer's own options, as
        :attr:`Consumer.options`), so it holds whatever state that strategy keeps. Members not
        in ``assignment`` are forgotten. The next round compares itself with ``assignment``
        (kept/moved) and creates a later generation. What one round would reach, without
        playing it.
        """
        self._next_generation(generation)
        name = strategy or self.default_strategies[0]
        own = options or {}
        hook_of = MemberHooks(self._pm).on_assignment_of
        states: dict[str, MemberState] = {}
        for member_id, received in assignment.assignments.items():
            instance = self._strategy(name, own.get(member_id))
            states[member_id] = hook_of(instance)(_as_received(received), generation, _NEW_MEMBER)
        self._states = states
        self._generation, self._last_assignment = generation, assignment

    def rebalance(
        self,
        consumers: Iterable[Consumer],
        *,
        cluster: Cluster | None = None,
        lags: Mapping[TopicPartition, int] | None = None,
        generation: int | None = None,
    ) -> Rebalance:
        """Play one rebalance with ``consumers`` (absent ones have left) and its follow-ups."""
        joining = tuple(consumers)
        first = self.play_round(joining, cluster=cluster, lags=lags, generation=generation)
        return self._followups(first, joining, lags)

    def rebalance_alike(
        self,
        strategies: Sequence[str],
        consumers: Iterable[Consumer],
        *,
        lags: Mapping[TopicPartition, int] | None = None,
    ) -> dict[str, Rebalance]:
        """name -> the rebalance this runner would play from its present state if
        ``consumers`` offered only that strategy (a copy of the runner plays each; this one is
        left as it is). For strategies whose hooks are all assignframe's defaults
        (:meth:`~assignframe.plugins.PluginManager.default_hooks`) and that share a rebalance
        protocol, everything before ``assign`` is the same function of the same states, so the
        first round's joins and leader's view are built once; only ``assign``, its checks and
        the sync run per strategy (the audit replays range, roundrobin and fair this way).

        :raises ValueError: ``strategies`` are not one of :func:`alike_groups`; a consumer names
            its own strategies, options or crafted bytes
        """
        joining = unique_consumers(consumers)
        self._check_alike(strategies, joining)
        generation = self._next_generation(None)
        forks = [self._fork(name) for name in strategies]
        joins = forks[0]._join_all(joining, strategies[0])
        joined = dict(forks[0]._states)
        group = forks[0]._leader_view(joins, forks[0]._strategy(strategies[0]), generation, lags)
        played = {}
        for name, fork in zip(strategies, forks, strict=True):
            fork._rebalance_start, fork._states = fork._last_assignment, dict(joined)
            strategy = fork._strategy(name)
            own = [join.played_by(strategy) for join in joins]
            if strategy.options != group.options:
                group = dataclasses.replace(group, options=strategy.options)
            first = fork._assign_and_sync(own, group, name, generation, followup=False)
            played[name] = fork._followups(first, joining, lags)
        return played

    def _check_alike(self, strategies: Sequence[str], joining: Sequence[Consumer]) -> None:
        if any(c.strategies or c.options or c.subscription is not None for c in joining):
            raise ValueError("consumers replayed alike name no strategies, options or bytes")
        instances = {name: self._strategy(name) for name in strategies}
        if alike_groups(self._pm, instances) != [tuple(strategies)]:
            raise ValueError(f"{', '.join(strategies)} do not replay alike (alike_groups)")

    def _fork(self, strategy: str) -> GroupRunner:
        """A copy of this runner whose consumers offer ``strategy`` by default: its own states,
        the same caches (instances, readers, protocols: each a function of its key)."""
        fork = copy.copy(self)
        fork.default_strategies, fork._states = (strategy,), dict(self._states)
        return fork

    def _followups(
        self,
        first: RoundResult,
        joining: tuple[Consumer, ...],
        lags: Mapping[TopicPartition, int] | None,
    ) -> Rebalance:
        """``first`` and the cooperative follow-up rounds it needs."""
        rounds = [first]
        if first.revoked:
            # Crafted bytes are sent once: consumers rejoining for a follow-up build their own.
            rejoin = tuple(
                c if c.subscription is None else dataclasses.replace(c, subscription=None)
                for c in joining
            )
            while rounds[-1].revoked and len(rounds) <= self.max_followups:
                rounds.append(self.play_round(rejoin, lags=lags, followup=True))
        return Rebalance(tuple(rounds), settled=not rounds[-1].revoked)

    def play_round(
        self,
        consumers: Iterable[Consumer],
        *,
        cluster: Cluster | None = None,
        lags: Mapping[TopicPartition, int] | None = None,
        generation: int | None = None,
        followup: bool = False,
    ) -> RoundResult:
        """Play exactly one round (no follow-ups); see the module docstring for the steps.

        :param generation: the generation to create (default: the last one + 1); must grow
        """
        joining = unique_consumers(consumers)
        if not followup:  # a rebalance's movement counts across its follow-up rounds
            self._rebalance_start = self._last_assignment
        self.cluster = cluster or self.cluster
        new_generation = self._next_generation(generation)
        protocol_name, strategy = self._elect(joining)
        joins = self._join_all(joining, protocol_name)
        group = self._leader_view(joins, strategy, new_generation, lags)
        return self._assign_and_sync(joins, group, protocol_name, new_generation, followup)

    def _assign_and_sync(
        self,
        joins: Sequence[Join],
        group: GroupSubscription,
        protocol_name: str,
        new_generation: int,
        followup: bool,
    ) -> RoundResult:
        """The rest of a round once the leader has its view: assign, check, sync."""
        leader = joins[0]  # the leader assigns with its own instance (its own options)
        assignment = self._pm.assign(leader.strategy, group)
        leader_protocol = leader.protocol
        if leader_protocol is RebalanceProtocol.COOPERATIVE:  # the leader validates (Java)
            check_cooperative_handover(leader.strategy, group, assignment)
        assignment_bytes: Mapping[str, bytes]
        if self.wire:
            assignment_bytes = {
                m: wire.encode_member_assignment(a) for m, a in assignment.assignments.items()
            }
        else:
            assignment_bytes = EncodedOnRead(assignment.assignments, wire.encode_member_assignment)
        result = trusted(  # every field given, as is: RoundResult normalises nothing
            RoundResult,
            index=self._rounds_played,
            generation=new_generation,
            followup=followup,
            protocol=protocol_name,
            subscriptions=join_subscriptions(joins),
            assignment_bytes=assignment_bytes,
            group=group,
            assignment=assignment,
            revoked=self._sync(joins, assignment, assignment_bytes, new_generation),
            owners_per_partition=leader.strategy.owners_per_partition(group),
            previous=self._rebalance_start,
            rebalance_protocol=leader_protocol,
        )
        self._generation, self._last_assignment = new_generation, assignment
        self._rounds_played += 1
        return result

    # -- the steps -------------------------------------------------------------------------

    def _next_generation(self, requested: int | None) -> int:
        if requested is None:
            return self._generation + 1
        if requested <= self._generation:
            raise ValueError(
                f"generation {requested} does not follow generation {self._generation}"
            )
        return requested

    def _elect(self, joining: Sequence[Consumer]) -> tuple[str, Strategy]:
        name = elect_group_protocol(
            {c.member_id: c.strategies or self.default_strategies for c in joining}
        )
        return name, self._strategy(name)

    def _strategy(self, name: str, own: Mapping[str, Any] | None = None) -> Strategy:
        """The instance for ``name`` with the runner's options, overridden by ``own`` (one
        consumer's options); built once per distinct set of options."""
        if not own:  # the common case, on every join: no key to build
            instance = self._instances.get(name)
            if instance is None:
                instance = self._instances[name] = self._pm.strategy(name, **self.options)
            return instance
        key = (name, repr(sorted(own.items())))  # values may be unhashable (lists)
        instance = self._own_instances.get(key)
        if instance is None:
            instance = self._own_instances[key] = self._pm.strategy(name, **{**self.options, **own})
        return instance

    def _join_all(self, joining: Sequence[Consumer], protocol_name: str) -> list[Join]:
        """Every consumer's join; members that left lose their state (a new id starts fresh)."""
        states = self._states
        self._states = {c.member_id: states.get(c.member_id, _NEW_MEMBER) for c in joining}
        hooks = MemberHooks(self._pm)
        shared = self._strategy(protocol_name)  # for every consumer without options of its own
        return [
            self._join(c, self._strategy(protocol_name, c.options) if c.options else shared, hooks)
            for c in joining
        ]

    def _join(self, consumer: Consumer, strategy: Strategy, hooks: MemberHooks) -> Join:
        protocol = self._rebalance_protocol(consumer)
        state = self._states[consumer.member_id]
        if consumer.subscription is not None:
            claimed = claimed_state(state, consumer.subscription)
            return Join(consumer, strategy, protocol, claimed, consumer.subscription)
        # The hook sees the state before the join: user data may carry what the member owned.
        metadata, joined = hooks.join(strategy, consumer.topics, state, consumer.rack, protocol)
        subscription = subscription_bytes(metadata) if self.wire else None
        return Join(consumer, strategy, protocol, joined, subscription, metadata)

    def _rebalance_protocol(self, consumer: Consumer) -> RebalanceProtocol:
        offered = consumer.strategies or self.default_strategies
        protocol = self._protocols.get(offered)
        if protocol is None:
            protocol = member_rebalance_protocol(
                [self._strategy(n).protocols for n in offered], consumer.member_id, offered
            )
            self._protocols[offered] = protocol
        return protocol

    def _leader_view(
        self,
        joins: Sequence[Join],
        strategy: Strategy,
        generation: int,
        lags: Mapping[TopicPartition, int] | None,
    ) -> GroupSubscription:
        members: dict[str, Member] = {}
        read = self._reader(strategy)
        decodes = "decode_user_data" not in self._pm.default_hooks(strategy)
        for join in joins:
            consumer, metadata = join.consumer, join.metadata
            member_id, instance_id = consumer.member_id, consumer.group_instance_id
            if (
                join.subscription is None  # wire=False
                and metadata is not None
                and wire.reads_back_as_is(metadata.user_data)
            ):
                if decodes:
                    member = leader_member_from_metadata(member_id, metadata, instance_id, read)
                else:  # the same member for every strategy that decodes nothing
                    member = leader_member_undecoded(member_id, metadata, instance_id)
            else:
                member = leader_member(member_id, join.subscription_bytes, instance_id, read)
            members[member_id] = member
        if lags is None:
            topics = tuple(sorted({t for member in members.values() for t in member.topics}))
            lags = self._pm.lag_source(cluster=self.cluster, topics=topics, group_id=self.group_id)
        # The leader (the first to join) assigns with its own instance: its options are the group's.
        options = joins[0].strategy.options
        return GroupSubscription(members, self.cluster, generation, options, lags)

    def _reader(self, strategy: Strategy) -> UserDataReader:
        """One reader per strategy for the runner's life: each unreadable member warns once."""
        reader = self._readers.get(strategy.name)
        if reader is None:
            reader = self._readers[strategy.name] = UserDataReader(self._pm, strategy, self.name)
        return reader

    def _sync(
        self,
        joins: Sequence[Join],
        assignment: GroupAssignment,
        assignment_bytes: Mapping[str, bytes],
        generation: int,
    ) -> dict[str, tuple[TopicPartition, ...]]:
        """Each consumer reads its bytes and updates its state; returns cooperative revocations."""
        revoked: dict[str, tuple[TopicPartition, ...]] = {}
        sent_to, states = assignment.assignments, self._states
        hook_of = MemberHooks(self._pm).on_assignment_of
        decoded = self.wire
        for join in joins:
            member_id, state = join.consumer.member_id, join.state
            sent = sent_to[member_id]
            if not decoded and wire.reads_back_as_is(sent.user_data):
                received = wire.received_assignment(sent)
            else:
                received = wire.decode_member_assignment(assignment_bytes[member_id])
            states[member_id] = hook_of(join.strategy)(received, generation, state)
            if state.owned_partitions:  # owning nothing at join (every EAGER member), it loses none
                lost = revoked_at_sync(join.protocol, state.owned_partitions, received.partitions)
                if lost:
                    revoked[member_id] = lost
        return revoked


def alike_groups(pm: PluginManager, strategies: Mapping[str, Strategy]) -> list[tuple[str, ...]]:
    """The names of ``strategies`` that :meth:`GroupRunner.rebalance_alike` plays together, in
    groups of two or more (in the given order): every hook assignframe's default, the same
    rebalance protocols."""
    by_protocols: dict[tuple[RebalanceProtocol, ...], list[str]] = {}
    for name, strategy in strategies.items():
        if pm.default_hooks(strategy) >= _ALIKE_HOOKS:
            by_protocols.setdefault(tuple(strategy.protocols), []).append(name)
    return [tuple(names) for names in by_protocols.values() if len(names) > 1]
