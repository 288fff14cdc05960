"""The broker side of a KIP-848 consumer group: target assignment, reconciliation, upgrade rules.

One truth for what the simulator and the audit predict about a consumer-protocol group:

* :func:`choose_server_assignor`: the most popular ``group.remote.assignor`` among members, else
  the broker's first configured (``group.consumer.assignors``, default ``uniform, range``).
* :func:`target_assignment`: the chosen server assignor (through the plugin manager) run over
  every member, each member's ``current`` being its previous target.
* :func:`upgrade_refusal`: why an online upgrade of a classic group does not happen (KAFKA-18134: a
  member's Assignment carries user data; or a partition is in two members' Assignments, which the
  conversion cannot represent), or None.
* :func:`converted_members`: the members of a classic group converted online (each STABLE at
  the generation with what its Assignment gave it).
* :func:`predict_upgrade_handover`: the figures of :func:`predict_handover` for a group just
  converted online (worked out without playing it when the group allows); a
  :class:`ConvertedGroup` for several targets of one group.
* :func:`predict_handover`: how members reach a new target heartbeat by heartbeat, each
  reconciled at every heartbeat exactly as Kafka's coordinator does
  (:mod:`assignframe.kip848.reconcile`, played in time by
  :mod:`assignframe.kip848.convergence`): revocations the old owner must acknowledge,
  partitions the new owner waits for until they are released, epochs; KIP-1263's assignment
  interval delays the target itself.

Topic ids: a simulated or captured-classic group has none, so :func:`topic_id` derives a stable
one from the name (Java tie-breaks that follow Uuid order are then those of these ids).
"""

from __future__ import annotations

import functools
import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter

from ..javaorder import Uuid
from ..model import (
    GroupAssignment,
    GroupSubscription,
    MemberAssignment,
    TopicPartition,
    topic_partitions,
    trusted,
)
from ..plugins.manager import PluginManager
from ..server_assignor import (
    ServerAssignment,
    ServerAssignor,
    ServerGroupSpec,
    ServerMember,
    ServerTopic,
)
from .chain import Current, target_after
from .convergence import (
    JAVA_CLIENT,
    ClientBehaviour,
    Convergence,
    UpgradeHandover,
    converge,
    upgrade_handover,
)
from .reconcile import ConsumerGroupMember, ConsumerMemberState

__all__ = [
    "ConvertedGroup",
    "DEFAULT_SERVER_ASSIGNORS",
    "chained_target",
    "choose_server_assignor",
    "converted_members",
    "predict_handover",
    "predict_upgrade_handover",
    "server_spec",
    "target_assignment",
    "target_from_spec",
    "topic_id",
    "upgrade_refusal",
]

#: The broker's default ``group.consumer.assignors`` (Kafka 4.x): the first is the default.
DEFAULT_SERVER_ASSIGNORS = ("uniform", "range")


@functools.lru_cache(4096)
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
    held = [set(a.partitions) for a in assignment.assignments.values()]
    if sum(map(len, held)) == len(set().union(*held)):  # nearly every group: none is
        return []
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
    return target_from_spec(group, server_spec(group, previous), assignor, pm)


def target_from_spec(
    group: GroupSubscription, spec: ServerGroupSpec, assignor: str, pm: PluginManager
) -> GroupAssignment:
    """:func:`target_assignment` on the group's :func:`server_spec` (built once, it serves every
    assignor run on the same group: its caches are functions of it)."""
    return _targets(group, spec, _run(spec, assignor, pm))


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
    round's (:func:`assignframe.kip848.chain.target_after`). An assignor that does not
    model Java's result order is run plainly and its currents are built from its result."""
    spec = server_spec(group, previous, currents)
    result = _run(spec, assignor, pm)
    next_currents = {
        member_id: target_after(member.current, result.members.get(member_id, {}))
        for member_id, member in spec.members.items()
    }
    return _targets(group, spec, result), next_currents


def _run(spec: ServerGroupSpec, assignor: str, pm: PluginManager) -> ServerAssignment:
    server: ServerAssignor = pm.server_assignor(assignor)
    return server.assign_in_java_order(spec) or server.assign(spec)


def _targets(
    group: GroupSubscription, spec: ServerGroupSpec, result: ServerAssignment
) -> GroupAssignment:
    """The result as the model's assignment: every member, its partitions sorted."""
    tables: dict[Uuid, _Table] = {}  # the topics members hold, each built at its first holder
    held = result.members
    assignments = {}
    for member_id in group.members:
        topics = held.get(member_id)
        if not topics:
            partitions: tuple[TopicPartition, ...] = ()
        elif len(topics) == 1:  # most members of most groups: one topic, no topics to order
            [(tid, ps)] = topics.items()
            partitions = _named(tables.get(tid) or _table(spec, tid, tables), ps)
        else:
            partitions = _sorted_partitions(topics, spec, tables)
        # Sorted TopicPartitions, no user data: what the constructor would make of them.
        assignments[member_id] = trusted(MemberAssignment, partitions=partitions, user_data=None)
    return trusted(GroupAssignment, assignments=assignments)


_Table = tuple[str, tuple[TopicPartition, ...]]


def _table(spec: ServerGroupSpec, tid: Uuid, tables: dict[Uuid, _Table]) -> _Table:
    """The topic's name and its partitions (shared objects), kept in ``tables``."""
    topic = spec.topics[tid]
    table = tables[tid] = (topic.name, topic_partitions(topic.name, topic.partitions))
    return table


def _sorted_partitions(
    topics: Mapping[Uuid, Iterable[int]], spec: ServerGroupSpec, tables: dict[Uuid, _Table]
) -> tuple[TopicPartition, ...]:
    """One member's ``topic id -> partitions`` (several topics) as TopicPartitions sorted by
    (topic, partition): topic by topic (the ids name distinct topics), each topic's partitions
    sorted."""
    entries = sorted(
        [(tables.get(t) or _table(spec, t, tables), ps) for t, ps in topics.items()],
        key=_table_name,
    )
    return tuple([tp for table, partitions in entries for tp in _named(table, partitions)])


def _table_name(entry: tuple[_Table, Iterable[int]]) -> str:
    return entry[0][0]


def _named(table: _Table, partitions: Iterable[int]) -> tuple[TopicPartition, ...]:
    """``partitions`` of the table's topic, sorted (the topic's own objects when it has them)."""
    name, known = table
    ordered = sorted(partitions)
    if len(ordered) > 1 and 0 <= ordered[0] and ordered[-1] < len(known):
        return itemgetter(*ordered)(known)  # a tuple of them, picked in C
    if ordered and 0 <= ordered[0] < len(known):
        return (known[ordered[0]],)
    return tuple([TopicPartition(name, p) for p in ordered])


def server_spec(
    group: GroupSubscription,
    previous: GroupAssignment | None,
    currents: Mapping[str, Current] | None = None,
) -> ServerGroupSpec:
    """What a server assignor reads: ``group``'s members, each ``current`` its chained one
    (``currents``) when known, else what it holds in ``previous``, and the cluster's topics."""
    counts = group.cluster.partitions_per_topic
    topics = {topic_id(name): ServerTopic(topic_id(name), name, n) for name, n in counts.items()}
    held = previous.assignments if previous is not None else {}
    existing: dict[tuple[str, ...], tuple[str, ...]] = {}  # per distinct subscription
    members = {}
    for member_id, member in group.members.items():
        names = existing.get(member.topics)
        if names is None:
            names = existing[member.topics] = tuple(t for t in member.topics if t in counts)
        current = currents and _known_current(currents.get(member_id), counts)
        # _current's pairs are tuples already: adopted as they are (a caller's are normalised).
        build = ServerMember if current else ServerMember._built
        members[member_id] = build(
            member_id,
            names,
            current or _current(held.get(member_id), counts),
            member.group_instance_id,
            member.rack,
        )
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


def converted_members(
    assignment: GroupAssignment, group: GroupSubscription, generation: int
) -> dict[str, ConsumerGroupMember]:
    """The consumer group's members right after an online upgrade of a classic group: every
    member of ``assignment`` that is still in ``group`` is STABLE at the classic generation with
    the partitions its Assignment gave it (Kafka's ``ConsumerGroup.fromClassicGroup``)."""
    return {
        member_id: ConsumerGroupMember(
            generation,
            generation,
            ConsumerMemberState.STABLE,
            dict.fromkeys(assignment.partitions_of(member_id), generation),
            {},
            frozenset(group.members[member_id].topics),
        )
        for member_id in assignment.assignments
        if member_id in group.members
    }


def predict_handover(
    group: GroupSubscription,
    members: Mapping[str, ConsumerGroupMember],
    owned: GroupAssignment,
    target: GroupAssignment,
    target_epoch: int,
    behaviour: ClientBehaviour = JAVA_CLIENT,
    start_ms: int = 0,
    rejoining: frozenset[str] = frozenset(),
) -> Convergence:
    """How ``group``'s members, the coordinator holding ``members`` and their clients ``owned``,
    reach ``target`` at ``target_epoch`` heartbeat by heartbeat
    (:func:`assignframe.kip848.convergence.converge`); members of ``group`` absent from
    ``members`` join, and so do the ``rejoining`` ones (a static member back with a new client:
    the coordinator keeps its state). Topics are named by themselves; the cluster's are the ones
    that exist."""
    joining = frozenset(m for m in group.members if m not in members or m in rejoining)
    present = {
        m: members.get(m) or ConsumerGroupMember.joining(group.members[m].topics)
        for m in group.members
    }
    return converge(
        present,
        {m: frozenset(owned.partitions_of(m)) for m in group.members if m not in joining},
        joining,
        {m: frozenset(target.partitions_of(m)) for m in group.members},
        target_epoch,
        {t: t for t in group.cluster.partitions_per_topic},
        behaviour,
        start_ms,
    )


def predict_upgrade_handover(
    group: GroupSubscription,
    owned: GroupAssignment,
    target: GroupAssignment,
    epoch: int,
    behaviour: ClientBehaviour = JAVA_CLIENT,
) -> UpgradeHandover:
    """How the classic group converted online at ``epoch`` (:func:`converted_members`, its
    clients owning ``owned``) reaches ``target`` at ``epoch + 1``: what
    :func:`predict_handover` plays, worked out without playing it when every member stays and
    no partition has two owners or two targets
    (:func:`~assignframe.kip848.convergence.upgrade_handover`; most audited groups).
    :class:`ConvertedGroup` does the same for several targets of one group.

    :raises AssignframeError: the group does not converge (see :func:`converge`)
    """
    return ConvertedGroup(group, owned, epoch, behaviour).handover(target)


class ConvertedGroup:
    """A classic group converted online at ``epoch`` (:func:`converted_members`, its clients
    owning ``owned``), measured against targets one after another: what no target changes (each
    member's owned partitions as a set, its subscribed topics that exist) is built once.

    :param behaviour: how its members heartbeat
    """

    def __init__(
        self,
        group: GroupSubscription,
        owned: GroupAssignment,
        epoch: int,
        behaviour: ClientBehaviour = JAVA_CLIENT,
    ) -> None:
        self.group, self.owned, self.epoch, self.behaviour = group, owned, epoch, behaviour
        members, holders = group.members, owned.assignments.keys()
        #: member -> what its client owns, for every member of the group; None when one joins
        self.held: dict[str, frozenset[TopicPartition]] | None = (
            {m: frozenset(owned.partitions_of(m)) for m in members}
            if holders >= members.keys()
            else None
        )
        # Every member (one at least) stays, and nobody else held anything.
        self._same_members = bool(members) and holders == members.keys()

    def wanted(self, target: GroupAssignment) -> dict[str, frozenset[TopicPartition]]:
        """Member -> its partitions in ``target``, as a set, for every member of the group."""
        return {m: frozenset(target.partitions_of(m)) for m in self.group.members}

    def owns(self, wanted: Mapping[str, frozenset[TopicPartition]]) -> bool:
        """Every member of the group (one at least) owns exactly what it is ``wanted`` to own
        (:meth:`wanted`), and none joins: nothing changes hands."""
        return self._same_members and self.held == wanted

    @functools.cached_property
    def _subscribed(self) -> dict[str, frozenset[str]]:
        topics = frozenset(self.group.cluster.partitions_per_topic)
        return {m: topics.intersection(member.topics) for m, member in self.group.members.items()}

    def handover(
        self,
        target: GroupAssignment,
        wanted: Mapping[str, frozenset[TopicPartition]] | None = None,
    ) -> UpgradeHandover:
        """:func:`predict_upgrade_handover` of ``target`` (``wanted``: its :meth:`wanted`, when
        already built).

        :raises AssignframeError: the group does not converge (see :func:`converge`)
        """
        group, owned = self.group, self.owned
        if self.held is not None:  # nobody joins
            quick = upgrade_handover(
                tuple(group.members),
                self.held,
                self.wanted(target) if wanted is None else wanted,
                self._subscribed,
                self.behaviour,
            )
            if quick is not None:
                return quick
        played = predict_handover(
            group,
            converted_members(owned, group, self.epoch),
            owned,
            target,
            self.epoch + 1,
            self.behaviour,
        )
        return UpgradeHandover(
            played.heartbeats, tuple(h.unowned_ms for h in played.handovers), len(played.revoked)
        )
