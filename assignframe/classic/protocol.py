"""The classic consumer-group protocol, once: every rule the runner and the consumer bridge share.

The runner (replay, simulate, audit) plays these rules for a whole group; the consumer bridge
(:mod:`assignframe.rebalance.bridge`, inside real kafka-python and aiokafka consumers) plays them
for one member. Both call this module, so what the tools predict is what real consumers do:

* **group protocol election** (the coordinator's ``ClassicGroup.selectProtocol``): the candidates
  are the strategies every member offers; each member votes for the first candidate in its own
  preference list; most votes wins. Kafka counts the votes in a ``java.util.HashMap`` and takes
  the first maximum in iteration order, so a tie goes to the candidate whose ``String.hashCode``
  lands in the lowest bucket (equal buckets: the first voted), reproduced exactly. No strategy
  offered by all: :class:`~assignframe.errors.InconsistentGroupProtocolError`.
* **a member's rebalance protocol** (``ConsumerCoordinator``'s constructor): the highest one every
  strategy it offers supports; offering ``[cooperative-sticky, range]`` is EAGER, which is why
  KIP-429 upgrades need two rolling bounces. None in common: the same error type.
* **what a member keeps when it (re)joins** (``onJoinPrepare``): EAGER members give up everything;
  COOPERATIVE ones keep all but the partitions of topics they dropped. A member whose subscription
  was recorded (crafted bytes) owns what that subscription claims.
* **the cooperative hand-over** (``validateCooperativeAssignment``): a partition one member
  gives up may not be added to another member in the same round; it must be revoked first and
  assigned in the follow-up round its owner's rejoin causes. (Java skips this check for its own
  cooperative-sticky assignor, which weighs claims by generation itself; we check every strategy.)
* **a member's subscription on the wire**: encoded and decoded through
:mod:`assignframe.classic.wire`
  (the codec); user data through the strategy's ``decode_user_data`` hook. User data the strategy
  cannot read (another strategy's, a damaged one) counts as none, so that member has no prior
  ownership for this strategy, as Java's sticky assignors treat unparsable user data; one logged
  warning per member and strategy names the group, the member and the strategy.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from ..errors import InconsistentGroupProtocolError, InvalidAssignmentError, UserDataError
from ..javaorder import java_hash_order
from ..model import (
    GroupAssignment,
    GroupSubscription,
    Member,
    MemberState,
    RebalanceProtocol,
    SubscriptionMetadata,
    TopicPartition,
    trusted,
)
from ..strategy import Strategy
from . import wire

__all__ = [
    "UserDataReader",
    "check_cooperative_handover",
    "claimed_state",
    "elect_group_protocol",
    "handed_over_while_owned",
    "leader_member",
    "leader_member_from_metadata",
    "leader_member_undecoded",
    "member_rebalance_protocol",
    "partitions_kept_at_join",
    "revoked_at_sync",
    "state_at_join",
    "state_keeping",
    "subscription_bytes",
]

logger = logging.getLogger(__name__)

_PROTOCOL_RANK = {RebalanceProtocol.EAGER: 0, RebalanceProtocol.COOPERATIVE: 1}

# The codec's functions are pure and their results frozen, so equal subscriptions are encoded
# once (bounded: memory stays flat over a fleet; equal bytes are decoded once by
# wire.decode_subscription). Members of a group often send identical subscriptions (EAGER
# strategies without user data).
_CODEC_CACHE_SIZE = 2048
_encode_unowned_subscription = functools.lru_cache(_CODEC_CACHE_SIZE)(
    wire.encode_subscription_metadata
)


# -- election ------------------------------------------------------------------------------


def member_rebalance_protocol(
    offered: Sequence[Iterable[RebalanceProtocol]],
    member_id: str = "?",
    names: Sequence[str] = (),
) -> RebalanceProtocol:
    """The highest rebalance protocol supported by every one of a member's strategies.

    :param offered: each offered strategy's supported protocols, in preference order
    :param member_id: the member, for the error message
    :param names: the offered strategies' names (same order), for the error message
    :raises InconsistentGroupProtocolError: the strategies share no protocol (Java refuses to start)
    """
    offered = [tuple(protocols) for protocols in offered]
    common = set(RebalanceProtocol)
    for protocols in offered:
        common &= set(protocols)
    if not offered or not common:
        listed = ", ".join(
            f"{name} {[p.value for p in protocols]}"
            for name, protocols in zip(names, offered, strict=bool(names))
        )
        raise InconsistentGroupProtocolError(
            f"member {member_id!r}: its strategies share no rebalance protocol"
            + (f": {listed}" if listed else "")
        )
    return max(common, key=_PROTOCOL_RANK.__getitem__)


def elect_group_protocol(offers: Mapping[str, Sequence[str]]) -> str:
    """The strategy name the coordinator picks, given member_id -> preference list (in join order).

    :raises InconsistentGroupProtocolError: no strategy is offered by every member
    """
    preferences = {tuple(names) for names in offers.values()}
    if len(preferences) == 1 and next(iter(preferences)):
        # Everyone offers the same list: every vote goes to its first name.
        return next(iter(preferences))[0]
    candidates = _offered_by_all(offers)
    votes: dict[str, int] = {}
    for member_id in java_hash_order(offers):
        vote = next(name for name in offers[member_id] if name in candidates)
        votes[vote] = votes.get(vote, 0) + 1
    most = max(votes.values())
    return next(name for name in java_hash_order(votes) if votes[name] == most)


def _offered_by_all(offers: Mapping[str, Sequence[str]]) -> set[str]:
    if not offers:
        raise InconsistentGroupProtocolError("cannot choose a protocol for an empty group")
    offered = [set(names) for names in offers.values()]
    candidates = set.intersection(*offered)
    if not candidates:
        detail = "; ".join(f"{m!r} offers {list(names)}" for m, names in offers.items())
        raise InconsistentGroupProtocolError(f"no strategy is offered by every member: {detail}")
    return candidates


# -- join ----------------------------------------------------------------------------------


def partitions_kept_at_join(
    state: MemberState, topics: Iterable[str], protocol: RebalanceProtocol
) -> tuple[TopicPartition, ...]:
    """What a member still owns when it joins (Java's ``onJoinPrepare``).

    EAGER members revoke everything before joining; COOPERATIVE members only revoke partitions of
    topics they no longer subscribe to. A member with no generation yet owns nothing.
    """
    if protocol is RebalanceProtocol.EAGER or state.generation < 0:
        return ()
    subscribed = set(topics)
    return tuple(tp for tp in state.owned_partitions if tp.topic in subscribed)


def state_at_join(
    state: MemberState, topics: Iterable[str], protocol: RebalanceProtocol
) -> MemberState:
    """The member's state once it has given up what :func:`partitions_kept_at_join` drops."""
    return state_keeping(state, partitions_kept_at_join(state, topics, protocol))


def state_keeping(state: MemberState, kept: tuple[TopicPartition, ...]) -> MemberState:
    """``state`` owning only ``kept`` (a normalised tuple of what it owned: what
    :func:`partitions_kept_at_join` returns)."""
    if kept == state.owned_partitions:
        return state
    return trusted(MemberState, owned_partitions=kept, generation=state.generation,
                   strategy_state=state.strategy_state)


def claimed_state(state: MemberState, subscription: bytes) -> MemberState:
    """The state of a member that sent recorded (crafted) ``subscription`` bytes: it owns what
    they claim, in the generation they name; its strategy state is its own, unchanged."""
    decoded = wire.decode_subscription(subscription)
    owned = wire.flatten_partitions(decoded.owned_partitions)
    return MemberState(owned, decoded.generation_id, state.strategy_state)


def subscription_bytes(metadata: SubscriptionMetadata) -> bytes:
    """The JoinGroup metadata bytes a member sends (ConsumerProtocol v3, via the codec)."""
    if metadata.owned_partitions or type(metadata.user_data) not in (bytes, type(None)):
        return wire.encode_subscription_metadata(metadata)  # one of a kind, or unhashable
    return _encode_unowned_subscription(metadata)


# -- leader --------------------------------------------------------------------------------


class DecodesUserData(Protocol):
    """What reads user data: the plugin manager's ``decode_user_data`` hook call (named by its
    shape, since the plugin manager's defaults build on this module)."""

    def decode_user_data(
        self, strategy: Strategy, member_id: str, user_data: bytes | None, subscription_version: int
    ) -> Any: ...


class UserDataReader:
    """Decodes members' user data for one strategy; what it cannot read counts as none.

    :param plugins: the plugin manager whose ``decode_user_data`` hook reads the bytes
    :param strategy: the group's strategy
    :param where: how warnings name the group, e.g. ``"group 'billing'"`` or
        ``"scenario 'kip54-ex1'"``; None when unknown
    """

    def __init__(self, plugins: DecodesUserData, strategy: Strategy, where: str | None) -> None:
        self.plugins, self.strategy, self.where = plugins, strategy, where
        self._warned: set[str] = set()

    def __call__(
        self, member_id: str, user_data: bytes | None, version: int
    ) -> tuple[bytes | None, Any]:
        """(the user data the leader keeps, its decoded value): the bytes and their value, or
        ``(None, value of no user data)`` when the strategy cannot read them.

        :raises UserDataError: the strategy refuses even no user data (it cannot do without)
        """
        try:
            return user_data, self.plugins.decode_user_data(
                self.strategy, member_id, user_data, version
            )
        except UserDataError as error:
            if member_id not in self._warned:
                self._warned.add(member_id)
                logger.warning(
                    "%smember %r has user data strategy %r cannot read; it counts as having no "
                    "prior ownership for %r (%s)",
                    f"{self.where}: " if self.where else "",
                    member_id,
                    self.strategy.name,
                    self.strategy.name,
                    error,
                )
            return None, self.plugins.decode_user_data(self.strategy, member_id, None, version)


def leader_member(
    member_id: str, subscription: bytes, group_instance_id: str | None, read: UserDataReader
) -> Member:
    """The leader's view of one member from its JoinGroup bytes (the static id comes from the
    join, as on the wire); user data through ``read``."""
    decoded = wire.decode_subscription(subscription)
    user_data, value = read(member_id, decoded.user_data, decoded.version)
    member = wire.member_from_subscription(member_id, decoded, group_instance_id, value)
    return _keeping(member, user_data)


def leader_member_from_metadata(
    member_id: str,
    metadata: SubscriptionMetadata,
    group_instance_id: str | None,
    read: UserDataReader,
) -> Member:
    """:func:`leader_member` for the bytes ``metadata`` encodes to, without the bytes (the
    runner's ``wire=False`` path; only for user data that :func:`wire.reads_back_as_is`)."""
    user_data, value = read(member_id, metadata.user_data, wire.WIRE_VERSION)
    member = wire.member_from_metadata(member_id, metadata, group_instance_id, value)
    return _keeping(member, user_data)


def leader_member_undecoded(
    member_id: str, metadata: SubscriptionMetadata, group_instance_id: str | None
) -> Member:
    """:func:`leader_member_from_metadata` for a strategy whose ``decode_user_data`` is the
    default (:meth:`~assignframe.plugins.PluginManager.default_hooks`): the bytes are kept and
    decode to None, nothing can fail. (Not cached: strategies that replay alike share one
    leader's view already, :meth:`~assignframe.rebalance.runner.GroupRunner.rebalance_alike`;
    a cache keyed by the metadata found no repeat in a fleet audit and cost a hash per member.)"""
    return wire.member_from_metadata(member_id, metadata, group_instance_id, None)


def _keeping(member: Member, user_data: bytes | None) -> Member:
    """``member`` with the user data the leader kept (None when its strategy cannot read it)."""
    if user_data is member.user_data:
        return member
    return dataclasses.replace(member, user_data=user_data)


def handed_over_while_owned(
    owned: Mapping[str, Iterable[TopicPartition]], assigned: Mapping[str, Iterable[TopicPartition]]
) -> tuple[TopicPartition, ...]:
    """Partitions added to some member while revoked from another in the same round, sorted
    (Java's ``validateCooperativeAssignment``: added ∩ revoked over all members).

    :param owned: member_id -> what it claimed in its subscription
    :param assigned: member_id -> what the leader gives it this round
    """
    added: set[TopicPartition] = set()
    revoked: set[TopicPartition] = set()
    for member_id, partitions in assigned.items():
        claims = set(owned.get(member_id, ()))
        given = set(partitions)
        added |= given - claims
        revoked |= claims - given
    return tuple(sorted(added & revoked))


def check_cooperative_handover(
    strategy: Strategy, group: GroupSubscription, assignment: GroupAssignment
) -> None:
    """The leader's check of a COOPERATIVE round (:func:`handed_over_while_owned`).

    :raises InvalidAssignmentError: some partition moved straight from one member to another
    """
    owned = {m: member.owned_partitions for m, member in group.members.items()}
    if not any(owned.values()):
        return
    assigned = {m: a.partitions for m, a in assignment.assignments.items()}
    moving = handed_over_while_owned(owned, assigned)
    if moving:
        raise InvalidAssignmentError(
            f"strategy {strategy.name!r} runs COOPERATIVE but moved partitions still owned by "
            f"another member in the same round: {', '.join(map(str, moving))}"
        )


# -- sync ----------------------------------------------------------------------------------


def revoked_at_sync(
    protocol: RebalanceProtocol,
    owned_at_join: Sequence[TopicPartition],
    received: Iterable[TopicPartition],
) -> tuple[TopicPartition, ...]:
    """What a member revokes on reading its assignment; a COOPERATIVE member that revokes
    anything rejoins at once (EAGER members revoked everything before joining)."""
    if protocol is not RebalanceProtocol.COOPERATIVE or not owned_at_join:
        return ()
    kept = set(received)
    return tuple(tp for tp in owned_at_join if tp not in kept)
