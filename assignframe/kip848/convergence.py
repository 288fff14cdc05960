"""A consumer-protocol group converging on a new target, heartbeat by heartbeat.

The coordinator reconciles a member only when it heartbeats (:func:`~.reconcile.reconcile_member`
at every heartbeat of every member, fed with the group's real partition-owner epochs), and the
client only learns its new assignment in the response. :func:`converge` plays both sides in time:

* the change happens at time 0 and the target exists from ``start_ms``; members heartbeat every
  ``heartbeat_interval_ms``: a joining member's join heartbeat is the change itself, so it
  heartbeats at 0, one interval later, ... and first meets the target at the first of these not
  before ``start_ms``; the *m* members already in the group are evenly spread over the interval
  with the change as if it were one more heartbeat: member *j* (in group order, from 1) first at
  ``start_ms + j / (m + 1)`` of an interval (no two heartbeat at the same moment);
* the client stops consuming a partition as soon as a response no longer assigns it, and reports
  it gone in its next heartbeat — at once with the Java consumer's acknowledging heartbeat
  (``revoke_after_heartbeats: 0``), or only in its *n*-th regular heartbeat after;
* the client sends its owned partitions in every heartbeat, or only when they changed since it
  last sent them (``owned_partitions: when_changed``, the Java consumer: an omitted list means
  "still owns everything" to the coordinator);
* a partition another member still holds (assigned or pending revocation) is *unreleased*: its
  new owner moves to the target epoch without it and gets it at a heartbeat after the holder's
  acknowledgement freed it.

Every partition that reaches a new owner is a :class:`Handover`: when its previous owner stopped
consuming it (0 if nobody owned it when the target was computed: a new partition, or its owner
left) and when its new owner got it.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import AssignframeError
from ..model import TopicPartition
from .reconcile import ConsumerGroupMember, ConsumerMemberState, Heartbeat, reconcile_member
from .timing import DEFAULT_HEARTBEAT_INTERVAL_MS

__all__ = [
    "ClientBehaviour",
    "Convergence",
    "Handover",
    "JAVA_CLIENT",
    "OWNED_PARTITIONS_MODES",
    "ReconcileStep",
    "UpgradeHandover",
    "converge",
    "upgrade_handover",
]

#: ``owned_partitions``: the Java consumer's habit first.
OWNED_PARTITIONS_MODES = ("when_changed", "always")

#: Heartbeats per member after which a group that has not converged is an error, not a hang.
MAX_HEARTBEATS_PER_MEMBER = 200


@dataclass(frozen=True)
class ClientBehaviour:
    """How members' clients heartbeat (scenario ``options``; defaults: broker and Java consumer).

    :param heartbeat_interval_ms: ``group.consumer.heartbeat.interval.ms`` (broker default 5 s)
    :param owned_partitions: ``when_changed`` (omitted when unchanged since last sent) or
        ``always``
    :param revoke_after_heartbeats: 0: the client revokes at once and acknowledges with an
        immediate heartbeat (the Java consumer); n >= 1: it reports the revocation only in its
        n-th regular heartbeat after the one that asked for it (slow revocation callbacks)
    """

    heartbeat_interval_ms: int = DEFAULT_HEARTBEAT_INTERVAL_MS
    owned_partitions: str = "when_changed"
    revoke_after_heartbeats: int = 0

    def __post_init__(self) -> None:
        if self.heartbeat_interval_ms <= 0 or self.revoke_after_heartbeats < 0:
            raise ValueError("heartbeat_interval_ms must be > 0, revoke_after_heartbeats >= 0")
        if self.owned_partitions not in OWNED_PARTITIONS_MODES:
            raise ValueError(f"owned_partitions must be one of {', '.join(OWNED_PARTITIONS_MODES)}")


#: The broker's default heartbeat interval and the Java consumer's habits.
JAVA_CLIENT = ClientBehaviour()


@dataclass(frozen=True)
class Handover:
    """One partition reaching its new owner.

    :param partition: the partition
    :param new_owner: the member that got it
    :param previous_owner: the member whose client consumed it when the target was computed, or
        None (a new partition, or its owner left)
    :param released_ms: when the previous owner stopped consuming it (0 without one)
    :param acquired_ms: when the new owner's client got it
    """

    partition: TopicPartition
    new_owner: str
    previous_owner: str | None
    released_ms: int
    acquired_ms: int

    @property
    def unowned_ms(self) -> int:
        """How long nobody consumed the partition."""
        return self.acquired_ms - self.released_ms


@dataclass(frozen=True)
class ReconcileStep:
    """One reconciliation the coordinator made: at ``at_ms``, ``member`` went from ``before`` to
    ``after`` at ``heartbeat`` (``after is before``: unchanged)."""

    at_ms: int
    member: str
    before: ConsumerGroupMember
    heartbeat: Heartbeat
    after: ConsumerGroupMember


@dataclass(frozen=True)
class Convergence:
    """How the group reached its target.

    :param members: the coordinator's members at the end
    :param owned: what each member's client consumes at the end (its target)
    :param converged_ms: when the last member reached the target (every member STABLE at the
        target epoch, every client owning exactly its target)
    :param heartbeats: heartbeat intervals from the target until then
    :param handovers: partitions that reached a new owner, in time order
    :param revoked: member -> partitions its client gave up
    :param steps: every reconciliation, in time order
    """

    members: Mapping[str, ConsumerGroupMember]
    owned: Mapping[str, frozenset[TopicPartition]]
    converged_ms: int
    heartbeats: int
    handovers: tuple[Handover, ...]
    revoked: Mapping[str, tuple[TopicPartition, ...]]
    steps: tuple[ReconcileStep, ...] = field(repr=False)


@dataclass
class _Client:
    """A member's client: what it consumes, reports and waits to report."""

    owned: set[TopicPartition]
    joining: bool
    revoking: dict[TopicPartition, int] = field(default_factory=dict)  # -> regular beats left
    last_sent: frozenset[TopicPartition] | None = None
    timer: int = 0  # which scheduled regular heartbeat is current


def converge(
    members: Mapping[str, ConsumerGroupMember],
    owned: Mapping[str, frozenset[TopicPartition]],
    joining: frozenset[str],
    target: Mapping[str, frozenset[TopicPartition]],
    target_epoch: int,
    topic_names: Mapping[str, str],
    behaviour: ClientBehaviour = JAVA_CLIENT,
    start_ms: int = 0,
) -> Convergence:
    """Play heartbeats from ``start_ms`` until every member reached ``target``.

    :param members: the coordinator's state of every present member (members that left are
        absent: what they held is free)
    :param owned: what each present member's client consumes when the target is computed
    :param joining: members whose first heartbeat is a join (epoch 0, reports owning nothing)
    :param target: each member's partitions in the target assignment of ``target_epoch``
    :param topic_names: the topics that exist, key -> name (see :class:`~.reconcile.Heartbeat`)
    :raises AssignframeError: the group does not converge (a target no heartbeat can reach, e.g.
        a partition in two members' targets)
    """
    return _Group(members, owned, joining, target, target_epoch, topic_names, behaviour).play(
        start_ms
    )


@dataclass(frozen=True)
class UpgradeHandover:
    """:class:`Convergence`'s figures the migration prediction reports (:func:`upgrade_handover`).

    :param heartbeats: heartbeat intervals from the target until every member reached it
    :param unowned_ms: for each partition that reached a new owner, how long nobody consumed it
    :param revoking_members: members whose client gave partitions up
    """

    heartbeats: int
    unowned_ms: tuple[int, ...]
    revoking_members: int


def upgrade_handover(
    order: Sequence[str],
    owned: Mapping[str, frozenset[TopicPartition]],
    target: Mapping[str, frozenset[TopicPartition]],
    subscribed: Mapping[str, frozenset[str]],
    behaviour: ClientBehaviour = JAVA_CLIENT,
) -> UpgradeHandover | None:
    """What :func:`converge` plays for a group just converted online, without playing it, or
    None when the group is not of the one shape it covers (then play it).

    The shape: every member of ``order`` stays, STABLE at one epoch with exactly what its client
    owns (``owned``: Kafka's conversion), the target (epoch + 1) exists from 0, clients revoke
    and acknowledge at once and omit unchanged owned partitions (the Java consumer), each
    partition is owned by one member at most and in one ``target`` at most, of a topic its
    member subscribes to and that exists (``subscribed``: those topics per member), and the
    first heartbeats are at distinct times (an interval of at least members + 1 ms). Then the
    rules play out in two heartbeats per member at most: member *j* first heartbeats at
    ``t_j = j * I // (m + 1)`` (all before ``I``), gives up at once what its target lacks
    (released at ``t_j``) and takes every partition of its target that nobody owns or whose
    owner gave it up before ``t_j``; the rest (their owners heartbeat later in the interval)
    it takes at its next heartbeat, ``t_j + I``, when every owner has given up. It has reached
    its target then, and the group when its last member has. tests/kip848/test_convergence.py
    holds this equal to :func:`converge` on random groups of this shape."""
    interval, count = behaviour.heartbeat_interval_ms, len(order)
    if (
        not count
        or interval < count + 1
        or behaviour.owned_partitions != "when_changed"
        or behaviour.revoke_after_heartbeats
    ):
        return None
    first = {m: j * interval // (count + 1) for j, m in enumerate(order, start=1)}
    owner: dict[TopicPartition, str] = {}
    assigned: set[TopicPartition] = set()
    for member_id in order:
        held, wanted = owned[member_id], target.get(member_id, frozenset())
        topics = subscribed[member_id]
        if (
            not owner.keys().isdisjoint(held)
            or not assigned.isdisjoint(wanted)
            or not topics.issuperset(tp.topic for tp in wanted)
        ):
            return None
        owner.update(dict.fromkeys(held, member_id))
        assigned.update(wanted)
    unowned: list[int] = []
    converged = revoking = 0
    for member_id in order:
        at, held = first[member_id], owned[member_id]
        settled = at
        if not held <= target.get(member_id, frozenset()):
            revoking += 1
        for tp in target.get(member_id, frozenset()) - held:
            previous = owner.get(tp)
            if previous is None:  # nobody owned it: free from the change
                unowned.append(at)
            elif first[previous] < at:  # given up earlier in the interval
                unowned.append(at - first[previous])
            else:  # taken at the next heartbeat, once its owner gave it up
                settled = at + interval
                unowned.append(settled - first[previous])
        converged = max(converged, settled)
    return UpgradeHandover(-(-(converged + 1) // interval), tuple(unowned), revoking)


class _Group:
    """Both sides of the protocol during one convergence."""

    def __init__(
        self,
        members: Mapping[str, ConsumerGroupMember],
        owned: Mapping[str, frozenset[TopicPartition]],
        joining: frozenset[str],
        target: Mapping[str, frozenset[TopicPartition]],
        target_epoch: int,
        topic_names: Mapping[str, str],
        behaviour: ClientBehaviour,
    ) -> None:
        self.members = dict(members)
        self.target = {m: frozenset(target.get(m, ())) for m in members}
        self.target_epoch, self.topic_names, self.behaviour = target_epoch, topic_names, behaviour
        self.clients = {
            m: _Client(set() if m in joining else set(owned.get(m, ())), m in joining)
            for m in members
        }
        for client in self.clients.values():
            client.last_sent = None if client.joining else frozenset(client.owned)
        self.consumed_at_start = {m: frozenset(c.owned) for m, c in self.clients.items()}
        self.holder: dict[TopicPartition, str] = {
            tp: m for m, member in members.items() for tp in member.holds
        }
        self.released: dict[TopicPartition, int] = {}
        self.acquired: dict[TopicPartition, int] = {}
        self.revoked: dict[str, list[TopicPartition]] = {}
        self.steps: list[ReconcileStep] = []
        self.queue: list[tuple[int, int, str, int]] = []  # (time, order, member, timer or -1)
        self.order = 0
        self.unsettled: set[str] = set()  # members not yet at their target, on either side

    def play(self, start_ms: int) -> Convergence:
        self._first_heartbeats(start_ms)
        self.unsettled = {m for m in self.members if not self._settled(m)}
        converged = start_ms if not self.unsettled else None
        limit = MAX_HEARTBEATS_PER_MEMBER * max(len(self.members), 1)
        while converged is None and self.queue:
            at, _, member_id, timer = heapq.heappop(self.queue)
            client = self.clients[member_id]
            if timer >= 0 and timer != client.timer:
                continue  # a regular heartbeat replaced by an earlier one
            if len(self.steps) >= limit:
                raise AssignframeError(self._stuck(at))
            self._heartbeat(member_id, at, regular=timer >= 0)
            if self._settled(member_id):  # only a member's own heartbeat changes it
                self.unsettled.discard(member_id)
            else:
                self.unsettled.add(member_id)
            if not self.unsettled:
                converged = at
        assert converged is not None
        return self._result(start_ms, converged)

    def _first_heartbeats(self, start_ms: int) -> None:
        interval = self.behaviour.heartbeat_interval_ms
        joined_at = -(-start_ms // interval) * interval  # a joiner's heartbeats count from 0
        staying = [m for m in self.members if not self.clients[m].joining]
        for member_id in self.members:  # joiners first: their heartbeat made the change
            if self.clients[member_id].joining:
                self._schedule(member_id, joined_at)
        for j, member_id in enumerate(staying, start=1):  # the change is one more beat
            self._schedule(member_id, start_ms + j * interval // (len(staying) + 1))

    # -- the client ---------------------------------------------------------------------------

    def _schedule(self, member_id: str, at: int) -> None:
        client = self.clients[member_id]
        client.timer += 1
        self._push(at, member_id, client.timer)

    def _push(self, at: int, member_id: str, timer: int) -> None:
        self.order += 1
        heapq.heappush(self.queue, (at, self.order, member_id, timer))

    def _reported(self, client: _Client, regular: bool) -> frozenset[TopicPartition] | None:
        """The owned partitions the heartbeat carries (None: omitted)."""
        if regular:  # a slow revoker gives a partition up after its n-th regular heartbeat
            for tp in list(client.revoking):
                client.revoking[tp] -= 1
                if client.revoking[tp] <= 0:
                    del client.revoking[tp]
        reported = frozenset(client.owned) | frozenset(client.revoking)
        if client.joining:
            return frozenset()
        if self.behaviour.owned_partitions == "when_changed" and reported == client.last_sent:
            return None
        return reported

    def _answered(self, member_id: str, at: int, after: ConsumerGroupMember, changed: bool) -> None:
        """The client applies the response: revoke what it lost, take what it got."""
        if not changed:
            return
        client = self.clients[member_id]
        given = frozenset(after.assigned)
        lost = client.owned - given
        gained = given - client.owned
        for tp in sorted(lost):
            self.released[tp] = at
            self.revoked.setdefault(member_id, []).append(tp)
            if self.behaviour.revoke_after_heartbeats:
                client.revoking[tp] = self.behaviour.revoke_after_heartbeats
        for tp in gained:
            self.acquired[tp] = at
        client.owned = set(given)
        if (lost or gained) and not self.behaviour.revoke_after_heartbeats:
            self._push(at, member_id, -1)  # the Java consumer acknowledges at once

    # -- the coordinator ----------------------------------------------------------------------

    def _heartbeat(self, member_id: str, at: int, regular: bool) -> None:
        client = self.clients[member_id]
        reported = self._reported(client, regular)
        if reported is not None:
            client.last_sent = reported
        before = self.members[member_id]
        target = self.target[member_id]
        heartbeat = Heartbeat(
            self.target_epoch,
            target,
            reported,
            self._owner_epochs(target),
            self.topic_names,
        )
        after = reconcile_member(before, heartbeat)
        self.steps.append(ReconcileStep(at, member_id, before, heartbeat, after))
        if after is not before:
            self._holds_changed(member_id, before, after)
        self.members[member_id] = after
        # the coordinator sends the assignment on a join and whenever it changed
        changed = client.joining or (
            after is not before and after.assigned.keys() != before.assigned.keys()
        )
        client.joining = False
        self._answered(member_id, at, after, changed)
        self._schedule(member_id, at + self.behaviour.heartbeat_interval_ms)

    def _owner_epochs(self, partitions: frozenset[TopicPartition]) -> dict[TopicPartition, int]:
        """The epochs of the members holding ``partitions`` (the only ones the builder asks)."""
        return {
            tp: self.members[self.holder[tp]].member_epoch for tp in partitions if tp in self.holder
        }

    def _holds_changed(
        self, member_id: str, before: ConsumerGroupMember, after: ConsumerGroupMember
    ) -> None:
        holds = after.holds
        for tp in before.holds - holds:
            if self.holder.get(tp) == member_id:
                del self.holder[tp]
        self.holder.update(dict.fromkeys(holds, member_id))

    # -- the end ------------------------------------------------------------------------------

    def _settled(self, member_id: str) -> bool:
        """Has the member reached the target, on both sides?"""
        member, client = self.members[member_id], self.clients[member_id]
        target = self.target[member_id]
        return (
            member.state is ConsumerMemberState.STABLE
            and member.member_epoch == self.target_epoch
            and member.assigned.keys() == target
            and client.owned == target
            and not client.revoking
        )

    def _stuck(self, at: int) -> str:
        waiting = sorted(
            f"{m} ({self.members[m].state.value} at epoch {self.members[m].member_epoch})"
            for m in self.unsettled
        )
        return (
            f"the group did not reach its target epoch {self.target_epoch} after "
            f"{MAX_HEARTBEATS_PER_MEMBER} heartbeats per member (t = {at} ms); still "
            f"reconciling: {', '.join(waiting)} (is a partition in two targets?)"
        )

    def _result(self, start_ms: int, converged: int) -> Convergence:
        previous = {tp: m for m, owned in self.consumed_at_start.items() for tp in owned}
        handovers = []
        for member_id, target in self.target.items():
            for tp in target - self.consumed_at_start[member_id]:
                handovers.append(
                    Handover(
                        tp,
                        member_id,
                        previous.get(tp),
                        self.released.get(tp, 0) if tp in previous else 0,
                        self.acquired[tp],
                    )
                )
        handovers.sort(key=lambda h: (h.acquired_ms, h.partition))
        interval = self.behaviour.heartbeat_interval_ms
        return Convergence(
            dict(self.members),
            {m: frozenset(c.owned) for m, c in self.clients.items()},
            converged,
            -(-(converged - start_ms + 1) // interval) if self.steps else 0,
            tuple(handovers),
            {m: tuple(tps) for m, tps in self.revoked.items()},
            tuple(self.steps),
        )
