"""KIP-429 for aiokafka: a ``GroupCoordinator`` that rebalances cooperatively when its consumer's
assignframe strategies all support it, and otherwise exactly as aiokafka's own.

aiokafka's coordinator revokes everything before every join and starts every partition afresh
after it. :class:`AssignframeCoordinator` overrides three of its methods (the hook points, with
the other internals they use, are listed in :data:`.support.HOOK_POINTS` and docs/adapters.md):

* ``_on_join_prepare``: a cooperative member keeps what it owns (only partitions of topics it no
  longer subscribes to are revoked, everything when its membership was lost), and fetching and
  the application's ``getmany`` go on through the rebalance;
* ``_on_join_complete``: it revokes only what the new assignment takes away (the listener's
  ``on_partitions_revoked`` gets exactly those, before they leave the assignment, so they can
  still be committed), keeps the position and pause state of every kept partition, tells
  ``on_partitions_assigned`` only what was added, and rejoins at once when it revoked anything
  so the follow-up round hands those partitions over;
* ``_perform_assignment``: the leader's strategy reads every member's full subscription (owned
  partitions, generation, rack, static id), not aiokafka's v0-only decoding of it.

Which protocol a member runs, what it keeps at join and what it revokes at sync are
:mod:`assignframe.classic.protocol`'s rules (via the bridge), as for every other client.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any

import aiokafka.consumer.consumer as consumer_module
import aiokafka.errors as aiokafka_errors
from aiokafka.consumer.group_coordinator import GroupCoordinator
from aiokafka.structs import TopicPartition as ClientPartition

from ..classic import wire
from ..classic.protocol import partitions_kept_at_join, revoked_at_sync
from ..model import MemberState, RebalanceProtocol, TopicPartition
from ..rebalance.bridge import rebalance_protocol_of
from .assignor import AiokafkaAssignor

__all__ = ["AssignframeCoordinator", "install", "member_protocol"]

log = logging.getLogger(__name__)

# What aiokafka's reset_generation() leaves: a member fenced out of the group, or never in it.
_NO_GENERATION = -1
_NO_MEMBER_ID = ""


def member_protocol(assignors: Iterable[Any]) -> RebalanceProtocol:
    """The rebalance protocol of a consumer offering ``assignors`` (Java's rule,
    :func:`assignframe.rebalance.bridge.rebalance_protocol_of`); aiokafka's own assignors are
    EAGER only."""
    assignors = list(assignors)
    if not assignors or not all(isinstance(a, AiokafkaAssignor) for a in assignors):
        return RebalanceProtocol.EAGER
    return rebalance_protocol_of(a.bridge.strategy for a in assignors)


def install() -> None:
    """Make ``AIOKafkaConsumer.start()`` build an :class:`AssignframeCoordinator` (once per
    process; consumers without assignframe assignors get aiokafka's behaviour unchanged).

    :raises ImportError: something else already replaced aiokafka's coordinator
    """
    current = consumer_module.GroupCoordinator
    if current is AssignframeCoordinator:
        return
    if current is not GroupCoordinator:
        raise ImportError(
            f"aiokafka.consumer.consumer.GroupCoordinator is {current!r}, not aiokafka's own: "
            "something else replaced it, and assignframe.aiokafka cannot hook in beside it"
        )
    consumer_module.GroupCoordinator = AssignframeCoordinator


class AssignframeCoordinator(GroupCoordinator):
    """aiokafka's ``GroupCoordinator``, cooperative when every assignor is a cooperative
    assignframe one (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        assignors = list(kwargs.get("assignors", ()))
        self._ours = [a for a in assignors if isinstance(a, AiokafkaAssignor)]
        self._protocol = member_protocol(assignors)
        for (
            assignor
        ) in self._ours:  # one consumer, one protocol (Java's rule over all its assignors)
            assignor.bridge.protocol = self._protocol
        # What this member claims in the current join, and the assignment holding their state.
        self._kept: frozenset[ClientPartition] = frozenset()
        self._kept_from: Any = None
        # Between a cooperative join's prepare and its completion commits are refused, as Java's
        # consumer refuses them until the group is stable again: a commit answered after the
        # JoinGroup response fails with ILLEGAL_GENERATION, on which aiokafka drops its member id.
        self._joining = False
        self._commits_in_flight = 0
        self._no_commit_in_flight = asyncio.Event()
        self._no_commit_in_flight.set()
        super().__init__(*args, **kwargs)

    @property
    def cooperative(self) -> bool:
        return self._protocol is RebalanceProtocol.COOPERATIVE

    # -- join ---------------------------------------------------------------------------------

    async def _on_join_prepare(self, previous_assignment: Any) -> None:
        lost = self.generation == _NO_GENERATION or self.member_id == _NO_MEMBER_ID
        if lost:
            for assignor in self._ours:
                assignor.bridge.lose()
        if not self.cooperative:
            await super()._on_join_prepare(previous_assignment)
            return
        owned = (
            frozenset(previous_assignment.tps) if previous_assignment is not None else frozenset()
        )
        state = MemberState(_model(owned), self.generation)
        kept = frozenset(
            _client(partitions_kept_at_join(state, self._subscription.topics, self._protocol))
        )
        self._group_subscription = None  # as aiokafka's: only a leader watches the group's topics
        if previous_assignment is not None and not lost:
            await self._autocommit(previous_assignment, "before join")
        given_up = owned - kept
        if given_up:
            # Lost, or topics dropped: hand out no records of them until the new assignment.
            self._subscription.begin_reassignment()
            await self._call_listener(
                "on_partitions_lost" if lost else "on_partitions_revoked", given_up
            )
        self._kept, self._kept_from = kept, previous_assignment
        self._joining = True
        await self._no_commit_in_flight.wait()  # none may be answered after the generation moves

    async def _on_join_complete(
        self, generation: int, member_id: str, protocol: str, member_assignment_bytes: bytes
    ) -> None:
        assignor = self._lookup_assignor(protocol)
        if isinstance(assignor, AiokafkaAssignor):
            assignor.expect_generation(generation)
        if not self.cooperative:
            await super()._on_join_complete(
                generation, member_id, protocol, member_assignment_bytes
            )
            return
        self._joining = False  # synced: the group is stable in the new generation
        if not isinstance(assignor, AiokafkaAssignor):  # aiokafka asserts the same
            raise aiokafka_errors.KafkaError(f"the group elected {protocol!r}, not offered here")
        received = wire.decode_member_assignment(bytes(member_assignment_bytes))
        assigned = frozenset(_client(received.partitions))
        subscription = self._subscription.subscription
        if any(tp.topic not in subscription.topics for tp in assigned):
            # Java's onJoinComplete: the subscription changed since the join; join again.
            log.info(
                "assignment %s does not match subscription %s; rejoining",
                assigned,
                subscription.topics,
            )
            self.request_rejoin()
            return
        revoked = frozenset(
            _client(revoked_at_sync(self._protocol, _model(self._kept), _model(assigned)))
        )
        added = assigned - self._kept
        if revoked:
            current = subscription.assignment
            if current is not None and current.active:
                await self._autocommit(current, "before revoking")
            await self._call_listener("on_partitions_revoked", revoked)
        # From here until the new assignment is in place nothing awaits: the application never
        # sees records of revoked partitions after its callback, nor kept ones restart.
        self._subscription.assign_from_subscribed(set(assigned))
        _carry_over(self._kept_from, subscription.assignment, self._kept & assigned)
        assignor.on_assignment(bytes(member_assignment_bytes))
        if revoked:
            self.request_rejoin()  # KIP-429: the follow-up round hands them over
        await self._stop_commit_offsets_refresh_task()
        self.start_commit_offsets_refresh_task(subscription.assignment)
        kept = sorted(self._kept & assigned)
        log.info(
            "group %s generation %s: kept %s, added %s, revoked %s",
            self.group_id, generation, kept, sorted(added), sorted(revoked),
        )  # fmt: skip
        self._kept, self._kept_from = assigned, None
        await self._call_listener("on_partitions_assigned", added)

    async def commit_offsets(self, assignment: Any, offsets: Any) -> None:
        """aiokafka's commit, refused while this member rejoins cooperatively (see __init__)."""
        if self._joining:
            raise aiokafka_errors.CommitFailedError(
                "Commit refused during a cooperative rebalance: this member still owns its "
                "partitions; commit again once the rebalance completes (Java's consumer raises "
                "RebalanceInProgressException here)"
            )
        self._commits_in_flight += 1
        self._no_commit_in_flight.clear()
        try:
            await super().commit_offsets(assignment, offsets)
        finally:
            self._commits_in_flight -= 1
            if not self._commits_in_flight:
                self._no_commit_in_flight.set()

    # -- leader -------------------------------------------------------------------------------

    async def _perform_assignment(self, response: Any) -> Any:
        assignor = self._lookup_assignor(response.group_protocol)
        if not isinstance(assignor, AiokafkaAssignor):
            return await super()._perform_assignment(response)
        assignor.lead(response.members)
        try:
            return await super()._perform_assignment(response)
        finally:
            assignor.done_leading()

    # -- helpers ------------------------------------------------------------------------------

    async def _autocommit(self, assignment: Any, when: str) -> None:
        try:
            await self._maybe_do_last_autocommit(assignment)
        except aiokafka_errors.KafkaError as error:  # aiokafka's own join does the same
            log.error("OffsetCommit failed %s, ignoring: %s", when, error)

    async def _call_listener(self, callback: str, partitions: frozenset[ClientPartition]) -> None:
        """The application's listener, as aiokafka calls it (a failing callback is logged).

        ``on_partitions_lost`` falls back to ``on_partitions_revoked``, as in Java's listener."""
        listener = self._subscription.listener
        if listener is None:
            return
        method = getattr(listener, callback, None) or listener.on_partitions_revoked
        try:
            result = method(set(partitions))
            if asyncio.iscoroutine(result):
                await result
        except Exception:
            log.exception("listener %s of group %s failed in %s", listener, self.group_id, callback)


def _carry_over(source: Any, target: Any, partitions: Iterable[ClientPartition]) -> None:
    """Position, pause and fetch marks of ``partitions`` from assignment ``source`` to ``target``
    (aiokafka starts every partition of a new assignment from its committed offset)."""
    if source is None:
        return
    for tp in partitions:
        before, after = source.state_value(tp), target.state_value(tp)
        if before is None or after is None:
            continue
        if before.has_valid_position:
            after.seek(before.position)
        if before.paused:
            after.pause()
        after.highwater, after.lso, after.timestamp = before.highwater, before.lso, before.timestamp


def _model(partitions: Iterable[Any]) -> tuple[TopicPartition, ...]:
    return tuple(sorted(TopicPartition(tp.topic, tp.partition) for tp in partitions))


def _client(partitions: Iterable[Any]) -> list[ClientPartition]:
    return [ClientPartition(tp.topic, tp.partition) for tp in partitions]
