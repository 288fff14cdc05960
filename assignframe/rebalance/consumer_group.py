"""The broker side of a KIP-848 consumer group: target assignment, reconciliation, upgrade rules.

One truth for what the simulator and the audit predict about a consumer-protocol group:

* :func:`choose_server_assignor`: the most popular ``group.remote.assignor`` among members, else
  the broker's first configured (``group.consumer.assignors``, default ``uniform, range``).
* :func:`target_assignment`: the chosen server assignor (through the plugin manager) run over
  every member, each member's ``current`` being its previous target.
* :func:`upgrade_refusal`: why an online upgrade of a classic group does not happen (KAFKA-18134: a
  member's Assignment carries user data; or a partition is in two members' Assignments, which the
  conversion cannot represent), or None.
* :func:`reconcile`: how members converge on a new target when they heartbeat at an interval:
  a partition goes to its new owner only after the old owner revoked it and acknowledged that
  at its next heartbeat, so a hand-over takes time; KIP-1263's assignment interval delays the
  target itself.

Topic ids: a simulated or captured-classic group has none, so :func:`topic_id` derives a stable
one from the name (Java tie-breaks that follow Uuid order are then those of these ids).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..javaorder import Uuid
from ..model import GroupAssignment, GroupSubscription, MemberAssignment, TopicPartition
from ..plugins.manager import PluginManager
from ..server_assignor import ServerAssignor, ServerGroupSpec, ServerMember, ServerTopic
from .server_chain import Current, target_after

__all__ = [
    "DEFAULT_SERVER_ASSIGNORS",
    "Reconciliation",
    "chained_target",
    "choose_server_assignor",
    "reconcile",
    "target_assignment",
    "topic_id",
    "upgrade_refusal",
]

#: The broker's default ``group.consumer.assignors`` (Kafka 4.x): the first is the default.
DEFAULT_SERVER_ASSIGNORS = ("uniform", "range")


def topic_id(topic: str) -> Uuid:
    """A stable topic id for ``topic`` (the first 16 bytes of its SHA-256)."""
    return Uuid.from_bytes(hashlib.sha256(topic.encode()).digest()[:16])


def choose_server_assignor(
    member_assignors: Sequence[str | None], configured: Sequence[str] = DEFAULT_SERVER_ASSIGNORS
) -> str:
    """The assignor the coordinator uses: the most popular one members name (ties: the first
    named), else the broker's first configured one."""
    named = [a for a in member_assignors if a]
    if not named:
        return configured[0]
    counts = Counter(named)
    return max(dict.fromkeys(named), key=lambda name: counts[name])


def upgrade_refusal(assignment: GroupAssignment) -> str | None:
    """Why a classic group with ``assignment`` cannot be converted online, or None.

    Two causes, both in the coordinator's conversion (Kafka's ``ConsumerGroup.fromClassicGroup``):
    a member's Assignment carries user data, which the consumer protocol cannot carry
    (KAFKA-18134: refused); or a partition is in the Assignments of two members, and the
    converted group records one owner epoch per partition, so the conversion throws ("the
    partition is still owned") and the group stays classic.
    """
    reasons = []
    carrying = sorted(m for m, a in assignment.assignments.items() if a.user_data)
    if carrying:
        reasons.append(
            f"online upgrade refused: the Assignment of {', '.join(carrying)} carries user data "
            "(KAFKA-18134); the consumer protocol cannot carry it"
        )
    shared = _held_by_several(assignment)
    if shared:
        (tp, owners), more = shared[0], len(shared) - 1
        also = f" (and {more} more partition(s) held by several members)" if more else ""
        reasons.append(
            f"online upgrade fails: {tp} is in the Assignment of {', '.join(owners)}{also}; "
            "the converted group gives each partition one owner, "
            "so the coordinator's conversion throws ('the partition is still owned') and the "
            "group stays classic"
        )
    return "; ".join(reasons) or None


def _held_by_several(assignment: GroupAssignment) -> list[tuple[TopicPartition, list[str]]]:
    """Partitions in more than one member's Assignment, in partition order, with their members."""
    owners: dict[TopicPartition, list[str]] = {}
    for member_id in sorted(assignment.assignments):
        for tp in set(assignment.assignments[member_id].partitions):
            owners.setdefault(tp, []).append(member_id)
    return sorted((tp, members) for tp, members in owners.items() if len(members) > 1)


def target_assignment(
    group: GroupSubscription,
    previous: GroupAssignment | None,
    assignor: str,
    pm: PluginManager,
) -> GroupAssignment:
    """Every member's new target by the server assignor ``assignor`` (``uniform``, ``range``)."""
    return chained_target(group, previous, assignor, pm)[0]


def chained_target(
    group: GroupSubscription,
    previous: GroupAssignment | None,
    assignor: str,
    pm: PluginManager,
    currents: Mapping[str, Current] | None = None,
) -> tuple[GroupAssignment, dict[str, Current]]:
    """:func:`target_assignment`, chained as the coordinator chains it: each member's
    ``current`` is ``currents[member]`` (the map the previous target was read back as, in Java's
    iteration order, which decides tie-breaks) when known, and the returned currents are this
    round's (:func:`assignframe.rebalance.server_chain.target_after`). An assignor that does not
    model Java's result order is run plainly and its currents are built from its result."""
    server: ServerAssignor = pm.server_assignor(assignor)
    spec = _spec(group, previous, currents or {})
    result = server.assign_in_java_order(spec) or server.assign(spec)
    name_of = {tid: t.name for tid, t in spec.topics.items()}
    targets = {
        member_id: MemberAssignment(
            tuple(
                sorted(
                    (TopicPartition(name_of[tid], p) for tid, p in result.partitions_of(member_id)),
                    key=lambda tp: (tp.topic, tp.partition),
                )
            )
        )
        for member_id in group.members
    }
    next_currents = {
        member_id: target_after(member.current, result.members.get(member_id, {}))
        for member_id, member in spec.members.items()
    }
    return GroupAssignment(targets), next_currents


def _spec(
    group: GroupSubscription,
    previous: GroupAssignment | None,
    currents: Mapping[str, Current],
) -> ServerGroupSpec:
    cluster = group.cluster
    topics = {
        topic_id(name): ServerTopic(topic_id(name), name, count)
        for name, count in cluster.partitions_per_topic.items()
    }
    held = previous.assignments if previous is not None else {}
    members = {
        member_id: ServerMember(
            member_id,
            tuple(t for t in member.topics if t in cluster.partitions_per_topic),
            _known_current(currents.get(member_id), cluster.partitions_per_topic)
            or _current(held.get(member_id), cluster.partitions_per_topic),
            member.group_instance_id,
            member.rack,
        )
        for member_id, member in group.members.items()
    }
    return ServerGroupSpec(members, topics)


def _known_current(current: Current | None, partitions: Mapping[str, int]) -> Current:
    """A chained current, unless a topic it holds is gone or shrank (then rebuilt from owned)."""
    if not current:
        return ()
    counts = {topic_id(t): n for t, n in partitions.items()}
    fits = all(tid in counts and all(p < counts[tid] for p in ps) for tid, ps in current)
    return current if fits else ()


def _current(
    assignment: MemberAssignment | None, partitions: Mapping[str, int]
) -> tuple[tuple[Uuid, tuple[int, ...]], ...]:
    by_topic: dict[str, list[int]] = {}
    for tp in assignment.partitions if assignment is not None else ():
        if tp.partition < partitions.get(tp.topic, 0):  # a deleted topic's partitions drop
            by_topic.setdefault(tp.topic, []).append(tp.partition)
    return tuple((topic_id(t), tuple(ps)) for t, ps in by_topic.items())


@dataclass(frozen=True)
class Reconciliation:
    """How members reached their targets.

    :param owned: member -> what it owns once every member reconciled (the target)
    :param heartbeats: heartbeat rounds until the last partition reached its new owner
    :param unowned_ms: partition -> how long it had no owner (only partitions that changed hands
        or were new/unowned)
    :param revoked: member -> partitions it revoked
    """

    owned: GroupAssignment
    heartbeats: int
    unowned_ms: Mapping[TopicPartition, int]
    revoked: Mapping[str, tuple[TopicPartition, ...]]


def reconcile(
    owned: GroupAssignment,
    target: GroupAssignment,
    heartbeat_interval_ms: int,
    assignment_interval_ms: int = 0,
) -> Reconciliation:
    """Members converge on ``target`` from ``owned``.

    Member ``i`` of ``n`` heartbeats at ``assignment_interval_ms + (k + i / n) *
    heartbeat_interval_ms`` for ``k = 0, 1, ...`` (evenly staggered). At its first heartbeat a
    member learns its target and revokes what it must give up; it acknowledges the revocation at
    its next heartbeat, and from then the coordinator hands those partitions to their new owners
    at *their* next heartbeat. A partition nobody owned goes to its new owner at once.
    """
    members = list(target.assignments)
    phase = {m: i * heartbeat_interval_ms // max(len(members), 1) for i, m in enumerate(members)}
    start = assignment_interval_ms

    def heartbeat_from(member: str, moment: int) -> int:
        """The first heartbeat of ``member`` at or after ``moment`` (none before ``start``)."""
        first = start + phase[member]
        if moment <= first:
            return first
        return first + -(-(moment - first) // heartbeat_interval_ms) * heartbeat_interval_ms

    holder = {tp: m for m, a in owned.assignments.items() for tp in a.partitions}
    revoked: dict[str, tuple[TopicPartition, ...]] = {}
    unowned: dict[TopicPartition, int] = {}
    for member, assignment in target.assignments.items():
        for tp in assignment.partitions:
            old = holder.get(tp)
            if old == member:
                continue
            if old is None or old not in target.assignments:  # free already: new or departed
                unowned[tp] = heartbeat_from(member, start)
                continue
            revoked_at = heartbeat_from(old, start)
            acknowledged = revoked_at + heartbeat_interval_ms
            revoked[old] = revoked.get(old, ()) + (tp,)
            unowned[tp] = heartbeat_from(member, acknowledged) - revoked_at
    done = max((heartbeat_from(m, start) for m in members), default=0)
    for member, assignment in target.assignments.items():
        for tp in assignment.partitions:
            if tp in unowned and holder.get(tp) in target.assignments:
                done = max(
                    done,
                    heartbeat_from(
                        member, heartbeat_from(holder[tp], start) + heartbeat_interval_ms
                    ),
                )
    heartbeats = -(-(done - start + 1) // heartbeat_interval_ms) if unowned else 0
    return Reconciliation(target, heartbeats, unowned, revoked)
