"""Member reconciliation of a consumer-protocol (KIP-848) group, as Kafka's coordinator does it.

At every ConsumerGroupHeartbeat the coordinator moves the member one step toward its target
assignment (Kafka's ``CurrentAssignmentBuilder``); :func:`reconcile_member` is that step:

* a member that must give up partitions it still owns stays at its epoch in
  ``UNREVOKED_PARTITIONS`` with the partitions *pending revocation*, and nothing else moves for it
  until its heartbeat no longer reports them (an omitted owned list, ``None``, means "still owns
  everything", and a partition pending revocation that is back in the target is revoked first);
* otherwise it moves to the target epoch at once with what it keeps plus every target partition
  that is free; the ones other members still hold are *unreleased*: the member waits for them in
  ``UNRELEASED_PARTITIONS`` (at the target epoch) and gets them at a later heartbeat;
* when only its subscription changed, partitions of topics it left are taken away the same way;
* every new member state records the epoch it came from (``previous_member_epoch``); a step
  that changes nothing returns the member object itself.

Partitions are :class:`~assignframe.model.TopicPartition` keyed by whatever names a topic in the
caller's world (Kafka's topic id in the golden data, the topic name in the simulator);
``Heartbeat.topic_names`` maps those keys to names, and a key it lacks is a deleted topic.

:func:`observe_heartbeat` turns the same rules around for captured traffic: why the coordinator
could not have answered a heartbeat the way a capture shows (:func:`fence_problem`: the epoch
check the coordinator makes before reconciling).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from operator import countOf
from typing import Any

from ..errors import FencedMemberEpochError
from ..model import TopicPartition

__all__ = [
    "ConsumerGroupMember",
    "ConsumerMemberState",
    "Heartbeat",
    "ObservedMember",
    "UNKNOWN_STATE_MESSAGE",
    "fence_problem",
    "observe_heartbeat",
    "owns_any",
    "reconcile_member",
]

#: What the coordinator says when it fences a member in the UNKNOWN state (Kafka's own words).
UNKNOWN_STATE_MESSAGE = (
    "The consumer group member is in a unknown state. "
    "The member must abandon all its partitions and rejoin."
)

#: A partition's epoch in the coordinator's partition-owner map when no member holds it.
FREE = -1


class ConsumerMemberState(enum.Enum):
    """Where a member is in its reconciliation (Kafka's ``MemberState`` of consumer groups)."""

    STABLE = "STABLE"
    UNREVOKED_PARTITIONS = "UNREVOKED_PARTITIONS"
    UNRELEASED_PARTITIONS = "UNRELEASED_PARTITIONS"
    UNKNOWN = "UNKNOWN"


def _partition_epochs(
    value: Mapping[TopicPartition, int] | Iterable[tuple[TopicPartition, int]],
) -> dict[TopicPartition, int]:
    """A fresh ``{TopicPartition: epoch}`` (keys that are plain pairs become TopicPartitions;
    a map already keyed by TopicPartitions is copied at C speed: reconciliation builds one per
    member per heartbeat)."""
    pairs = dict(value.items() if isinstance(value, Mapping) else value)
    if countOf(map(type, pairs), TopicPartition) == len(pairs):
        return pairs
    return {TopicPartition(tp[0], tp[1]): int(epoch) for tp, epoch in pairs.items()}


def _partitions(value: Iterable[Any]) -> frozenset[TopicPartition]:
    """A frozenset of TopicPartitions (kept as is when it already is one)."""
    if type(value) is frozenset and countOf(map(type, value), TopicPartition) == len(value):
        return value
    return frozenset(TopicPartition(tp[0], tp[1]) for tp in value)


@dataclass(frozen=True)
class ConsumerGroupMember:
    """The coordinator's state of one member (the part reconciliation reads and writes).

    :param member_epoch: the member's epoch
    :param previous_member_epoch: the epoch it had before its last change
    :param state: where its reconciliation is
    :param assigned: partition -> the epoch at which it was assigned, for every partition the
        member is assigned
    :param pending_revocation: the same for partitions it must revoke before it moves on
    :param subscribed_topic_names: the topics it subscribes to by name
    :param subscribed_topic_regex: its subscription regex (``""`` = none)
    """

    member_epoch: int
    previous_member_epoch: int
    state: ConsumerMemberState
    assigned: Mapping[TopicPartition, int] = field(default_factory=dict)
    pending_revocation: Mapping[TopicPartition, int] = field(default_factory=dict)
    subscribed_topic_names: frozenset[str] = frozenset()
    subscribed_topic_regex: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "assigned", _partition_epochs(self.assigned))
        object.__setattr__(self, "pending_revocation", _partition_epochs(self.pending_revocation))
        object.__setattr__(self, "subscribed_topic_names", frozenset(self.subscribed_topic_names))

    @classmethod
    def joining(cls, topics: Iterable[str], regex: str = "") -> ConsumerGroupMember:
        """A member the coordinator creates for a heartbeat with epoch 0."""
        return cls(0, -1, ConsumerMemberState.STABLE, {}, {}, frozenset(topics), regex)

    @property
    def holds(self) -> frozenset[TopicPartition]:
        """Every partition the coordinator counts as this member's: assigned or pending."""
        return frozenset(self.assigned) | frozenset(self.pending_revocation)

    def _moved(
        self,
        state: ConsumerMemberState,
        epoch: int,
        assigned: dict[TopicPartition, int],
        pending: dict[TopicPartition, int],
    ) -> ConsumerGroupMember:
        """A new state of this member; its previous epoch is the epoch it had until now.

        ``assigned`` and ``pending`` are fresh maps the reconciliation built: they are taken as
        they are (this runs once per member per heartbeat)."""
        moved = object.__new__(ConsumerGroupMember)
        for name, value in (
            ("member_epoch", epoch),
            ("previous_member_epoch", self.member_epoch),
            ("state", state),
            ("assigned", assigned),
            ("pending_revocation", pending),
            ("subscribed_topic_names", self.subscribed_topic_names),
            ("subscribed_topic_regex", self.subscribed_topic_regex),
        ):
            object.__setattr__(moved, name, value)
        return moved


@dataclass(frozen=True)
class Heartbeat:
    """What the coordinator knows when it reconciles a member at one heartbeat.

    :param target_epoch: the epoch of the group's target assignment
    :param target: the member's partitions in that target
    :param owned: the partitions the heartbeat reports owned; None when it did not carry the
        field (the client omits it when unchanged), which counts as still owning everything
    :param owner_epochs: partition -> epoch of the member that holds it (assigned or pending
        revocation, this member included); a partition not listed is free
    :param topic_names: topic key -> topic name for the topics that exist (the metadata image)
    :param subscription_changed: the member's subscription changed since its last heartbeat
    :param resolved_regexes: regex -> the topic names it resolved to; a regex absent here is
        not resolved yet and matches nothing
    """

    target_epoch: int
    target: frozenset[TopicPartition]
    owned: frozenset[TopicPartition] | None
    owner_epochs: Mapping[TopicPartition, int] = field(default_factory=dict)
    topic_names: Mapping[str, str] = field(default_factory=dict)
    subscription_changed: bool = False
    resolved_regexes: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "target", _partitions(self.target))
        if self.owned is not None:
            object.__setattr__(self, "owned", _partitions(self.owned))


def owns_any(owned: frozenset[TopicPartition] | None, partitions: Iterable[TopicPartition]) -> bool:
    """Does a heartbeat reporting ``owned`` still own one of ``partitions``? (None: it does.)"""
    if owned is None:
        return True
    return any(tp in owned for tp in partitions)


def reconcile_member(member: ConsumerGroupMember, heartbeat: Heartbeat) -> ConsumerGroupMember:
    """The member's next state at this heartbeat; ``member`` itself when nothing changes.

    :raises FencedMemberEpochError: the member is in the UNKNOWN state and its heartbeat does not
        report owning nothing (it must abandon its partitions and rejoin)
    """
    state = member.state
    if state is ConsumerMemberState.STABLE:
        if member.member_epoch != heartbeat.target_epoch:
            return _toward_target(member, heartbeat, member.member_epoch)
        return _pruned(member, heartbeat) if heartbeat.subscription_changed else member
    if state is ConsumerMemberState.UNREVOKED_PARTITIONS:
        if owns_any(heartbeat.owned, member.pending_revocation):  # still revoking: wait
            return _pruned(member, heartbeat) if heartbeat.subscription_changed else member
        return _toward_target(member, heartbeat, member.member_epoch)
    if state is ConsumerMemberState.UNRELEASED_PARTITIONS:
        return _toward_target(member, heartbeat, member.member_epoch)
    # UNKNOWN: a state from a newer coordinator; only a member that owns nothing starts over
    if heartbeat.owned is None or heartbeat.owned:
        raise FencedMemberEpochError(UNKNOWN_STATE_MESSAGE)
    return _toward_target(member, heartbeat, heartbeat.target_epoch)


def _subscription(
    member: ConsumerGroupMember, heartbeat: Heartbeat
) -> tuple[frozenset[str], frozenset[str]]:
    """(subscribed topic names, subscribed topic keys that exist).

    A resolved regex replaces an empty name list, or adds its topics when it resolved to some;
    an unresolved regex adds nothing.
    """
    names = member.subscribed_topic_names
    regex = member.subscribed_topic_regex
    resolved = heartbeat.resolved_regexes.get(regex) if regex else None
    if resolved is not None:
        names = frozenset(resolved) if not names else names | frozenset(resolved)
    keys = frozenset(key for key, name in heartbeat.topic_names.items() if name in names)
    return names, keys


def _toward_target(
    member: ConsumerGroupMember, heartbeat: Heartbeat, epoch: int
) -> ConsumerGroupMember:
    """Kafka's full reconciliation: revoke first, else move to the target epoch with what is
    free (the rest of the target is unreleased and waited for)."""
    _, subscribed = _subscription(member, heartbeat)
    target = {tp for tp in heartbeat.target if tp.topic in subscribed}
    keep = {tp: e for tp, e in member.assigned.items() if tp in target}
    revoke = {tp: e for tp, e in member.assigned.items() if tp not in target}
    if revoke and owns_any(heartbeat.owned, revoke):
        return member._moved(ConsumerMemberState.UNREVOKED_PARTITIONS, epoch, keep, revoke)
    # a partition this member itself still has pending revocation is not someone else's
    unreleased = {
        tp
        for tp in target
        if tp not in keep
        and heartbeat.owner_epochs.get(tp, FREE) != FREE
        and tp not in member.pending_revocation
    }
    gained = {
        tp: heartbeat.target_epoch for tp in target if tp not in keep and tp not in unreleased
    }
    state = ConsumerMemberState.UNRELEASED_PARTITIONS if unreleased else ConsumerMemberState.STABLE
    return member._moved(state, heartbeat.target_epoch, {**keep, **gained}, {})


def _pruned(member: ConsumerGroupMember, heartbeat: Heartbeat) -> ConsumerGroupMember:
    """Only the subscription changed: partitions of topics no longer subscribed are taken away
    (revoked first when the member still owns what is pending)."""
    names, subscribed = _subscription(member, heartbeat)
    if not names and not member.pending_revocation:
        # Kafka swaps in fresh maps here, so this always counts as a change
        assigned: dict[TopicPartition, int] = {}
        pending = dict(member.assigned)
    else:
        moved = {tp: e for tp, e in member.assigned.items() if tp.topic not in subscribed}
        if not moved:
            return member
        assigned = {tp: e for tp, e in member.assigned.items() if tp not in moved}
        pending = {**member.pending_revocation, **moved}
    if pending and owns_any(heartbeat.owned, pending):
        return member._moved(
            ConsumerMemberState.UNREVOKED_PARTITIONS, member.member_epoch, assigned, pending
        )
    # already revoked: same state, fewer partitions, pending revocation as it was
    return member._moved(
        member.state, member.member_epoch, assigned, dict(member.pending_revocation)
    )


# --- the same rules, turned around for captured traffic ------------------------------------


@dataclass(frozen=True)
class ObservedMember:
    """A member as captured heartbeats show it: what the coordinator last answered.

    :param epoch: its member epoch
    :param previous_epoch: the epoch before its last change (as far as the capture shows)
    :param assigned: the partitions the coordinator last sent it
    :param revoking: partitions taken from it while its heartbeat still reported owning them:
        the coordinator holds them pending revocation until a heartbeat no longer does
    """

    epoch: int
    previous_epoch: int
    assigned: frozenset[TopicPartition]
    revoking: frozenset[TopicPartition] = frozenset()


def observe_heartbeat(
    before: ObservedMember,
    request_epoch: int,
    owned: frozenset[TopicPartition] | None,
    epoch: int,
    assigned: frozenset[TopicPartition] | None,
) -> tuple[ObservedMember, list[str]]:
    """The member after a heartbeat (epoch ``request_epoch``, reporting ``owned``) that the
    coordinator answered with ``epoch`` and ``assigned`` (None: unchanged), and why the
    coordinator could not have answered so (empty when it could)."""
    after_assigned = before.assigned if assigned is None else assigned
    problems = []
    fenced = fence_problem(request_epoch, before, owned)
    if fenced:
        problems.append(f"the coordinator fences this heartbeat: {fenced}")
    moved = _transition_problem(before, owned, epoch, after_assigned)
    if moved:
        problems.append(moved)
    return _after(before, owned, epoch, after_assigned), problems


def fence_problem(
    request_epoch: int, member: ObservedMember, owned: frozenset[TopicPartition] | None
) -> str | None:
    """Why the coordinator fences (FENCED_MEMBER_EPOCH) a heartbeat with ``request_epoch`` from
    ``member``, or None when it accepts it: it takes the member's epoch, and its previous epoch
    only from a heartbeat that reports owning nothing beyond what the member is assigned (its
    client missed the last response)."""
    if request_epoch in (0, -1, -2) or request_epoch == member.epoch:
        return None
    if request_epoch > member.epoch:
        return f"epoch {request_epoch} is above the member's epoch {member.epoch}"
    if request_epoch != member.previous_epoch:
        return (
            f"epoch {request_epoch} is below the member's epoch {member.epoch} and is not its "
            f"previous epoch ({member.previous_epoch})"
        )
    if owned is None:
        return f"previous epoch {request_epoch} without its owned partitions"
    beyond = sorted(owned - member.assigned)
    if beyond:
        return (
            f"previous epoch {request_epoch} while owning {_listed(beyond)}, which it is no "
            f"longer assigned at epoch {member.epoch}"
        )
    return None


def _transition_problem(
    before: ObservedMember,
    owned: frozenset[TopicPartition] | None,
    epoch: int,
    assigned: frozenset[TopicPartition],
) -> str | None:
    """Why (``epoch``, ``assigned``) cannot follow ``before`` at a heartbeat reporting ``owned``.

    The target and what other members hold are unknown, so the most lenient ones are run through
    :func:`reconcile_member`: the target is the answer itself, every partition is free, and the
    member's subscription either stayed or became the answer's topics. The answer is possible
    exactly when one of these runs reaches it. Epochs never go back: the group's target epoch
    only grows and a member's epoch never passes it.
    """
    if epoch < before.epoch:
        return f"the member epoch went back from {before.epoch} to {epoch}"
    reached = [
        reconcile_member(*_lenient(before, owned, epoch, assigned, subscription_changed))
        for subscription_changed in (False, True)
    ]
    if any(m.member_epoch == epoch and frozenset(m.assigned) == assigned for m in reached):
        return None
    waiting = reached[0]
    revoking = sorted(waiting.pending_revocation or before.revoking)
    still = (
        "omitted its owned partitions (which means it still owns them all)"
        if owned is None
        else f"still reported owning {_listed(tp for tp in revoking if tp in owned)}"
    )
    gained = sorted(assigned - before.assigned)
    change = f"got {_listed(gained)}" if gained else f"moved to epoch {epoch}"
    return (
        f"{change} while it had to revoke {_listed(revoking)} and {still}: the coordinator "
        f"keeps such a member at epoch {before.epoch} until a heartbeat no longer reports them"
    )


def _lenient(
    before: ObservedMember,
    owned: frozenset[TopicPartition] | None,
    epoch: int,
    assigned: frozenset[TopicPartition],
    subscription_changed: bool,
) -> tuple[ConsumerGroupMember, Heartbeat]:
    topics = {tp.topic for tp in before.assigned | assigned | before.revoking}
    subscribed = {tp.topic for tp in assigned} if subscription_changed else topics
    state = (
        ConsumerMemberState.UNREVOKED_PARTITIONS
        if before.revoking
        else ConsumerMemberState.UNRELEASED_PARTITIONS  # reconciles at any heartbeat
    )
    member = ConsumerGroupMember(
        before.epoch,
        before.previous_epoch,
        state,
        dict.fromkeys(before.assigned, before.epoch),
        dict.fromkeys(before.revoking, before.epoch),
        frozenset(subscribed),
    )
    heartbeat = Heartbeat(
        epoch,
        assigned,
        owned,
        {},
        {t: t for t in topics},
        subscription_changed=subscription_changed,
    )
    return member, heartbeat


def _after(
    before: ObservedMember,
    owned: frozenset[TopicPartition] | None,
    epoch: int,
    assigned: frozenset[TopicPartition],
) -> ObservedMember:
    """What the capture tells of the member after the answer (pending revocation: only what it
    surely is, so that no later step is flagged on a guess)."""
    revoking = before.revoking
    if owned is not None and not owns_any(owned, revoking):
        revoking = frozenset()  # acknowledged: the coordinator reconciled it fully
    if epoch != before.epoch or not assigned <= before.assigned:
        revoking = frozenset()  # it moved on: nothing is pending any more
    removed = before.assigned - assigned
    if epoch == before.epoch and removed and owns_any(owned, removed):
        revoking = revoking | removed
    changed = epoch != before.epoch or assigned != before.assigned
    previous = before.epoch if changed else before.previous_epoch
    return ObservedMember(epoch, previous, assigned, revoking)


def _listed(partitions: Iterable[TopicPartition]) -> str:
    return ", ".join(str(tp) for tp in partitions)
