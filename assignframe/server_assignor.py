"""KIP-848 server-side assignors (``uniform``, ``range``, ``simple``): interface and model.

In a consumer-protocol (KIP-848) or share group the *broker* computes every member's target
assignment; members cannot bring their own assignor. A :class:`ServerAssignor` reproduces one of
the broker's assignors so a group can be tried before it migrates. It sees exactly what the broker
gives Java's ``PartitionAssignor.assign(GroupSpec, SubscribedTopicDescriber)``: member ids,
instance ids, racks, subscribed topic names, each member's current *target* assignment keyed by
topic id, and the topic metadata. No user data exists in this protocol.

Writing a server assignor
=========================

A server assignor is a class with a ``name`` and an ``assign`` method. Like a
:class:`~assignframe.strategy.Strategy` it is *pure*, deterministic and picklable: ``assign`` sees
only its :class:`ServerGroupSpec` and returns a :class:`ServerAssignment`::

    from assignframe import ServerAssignment, ServerAssignor, hookimpl

    class Everything(ServerAssignor):
        name = "everything"              # shown and looked up as "server:everything"

        def assign(self, group):
            return ServerAssignment({
                member_id: {
                    topic_id: tuple(range(group.num_partitions(topic_id)))
                    for topic_id in group.subscribed_topic_ids(member_id)
                }
                for member_id in group.member_ids()
            })

    @hookimpl
    def register_strategies(registry):
        registry.add(Everything)          # the same hook and entry-point group as strategies

Server assignors live in their own namespace: ``registry.add`` files a ``ServerAssignor`` subclass
under ``server:<name>``, so the client ``range`` (``RangeAssignor``) and the broker's ``range``
never collide, and ``assignframe plugins`` lists them in their own table.

Java's tie-breaks follow ``HashMap``/``HashSet`` iteration orders; the spec hands them out
already computed (:meth:`ServerGroupSpec.member_ids`, :meth:`ServerGroupSpec.subscribed_topic_ids`)
and :mod:`assignframe.javaorder` has the tables for the orders an assignor builds itself.
"""

from __future__ import annotations

import abc
import collections
import dataclasses
import functools
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import methodcaller
from typing import Any, ClassVar

from .configurable import Configurable
from .javaorder import JavaHashSet, Uuid, java_sorted_hash_order, java_string_hash, java_string_key
from .metrics import Validity, validate_assignment
from .model import Cluster, GroupAssignment, GroupSubscription, Member, MemberAssignment
from .model import TopicPartition as Partition

__all__ = [
    "CONSUMER_GROUP",
    "HETEROGENEOUS",
    "HOMOGENEOUS",
    "SERVER_PREFIX",
    "SHARE_GROUP",
    "ServerAssignment",
    "ServerAssignor",
    "ServerValidity",
    "SubscriptionTypeAssignor",
    "ServerGroupSpec",
    "ServerMember",
    "ServerTopic",
    "Uuid",
    "server_name",
    "validate_server_assignment",
]

#: Prefix of every server assignor's qualified name (``server:uniform``).
SERVER_PREFIX = "server:"
HOMOGENEOUS = "homogeneous"
HETEROGENEOUS = "heterogeneous"
CONSUMER_GROUP = "consumer"
SHARE_GROUP = "share"

# Runs an iterator to its end, keeping nothing (a C-level loop).
_consume: Callable[[Iterable[Any]], None] = collections.deque(maxlen=0).extend

#: A member's target assignment as the broker keeps it: topic id -> partitions, in map order.
TopicAssignment = Mapping[Uuid, tuple[int, ...]]


def server_name(name: str) -> str:
    """Qualified name of the server assignor ``name`` (``uniform`` -> ``server:uniform``)."""
    return name if name.startswith(SERVER_PREFIX) else SERVER_PREFIX + name


@dataclass(frozen=True)
class ServerTopic:
    """One topic as ``SubscribedTopicDescriber`` describes it.

    :param topic_id: the topic's id
    :param name: its name
    :param partitions: its partition count
    :param racks: per partition, the racks of its replicas (None when unknown)
    """

    topic_id: Uuid
    name: str
    partitions: int
    racks: tuple[tuple[str, ...], ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.partitions, int) or self.partitions < 0:
            raise ValueError(f"topic {self.name!r}: partitions must be an int >= 0")


@functools.lru_cache(maxsize=4096)
def _canonical_topics(topics: tuple[str, ...]) -> tuple[str, ...]:
    # Sorted as Java sorts them, and one shared tuple per distinct subscription: a group of
    # thousands of members subscribed alike then compares subscriptions by identity.
    return tuple(sorted(set(topics), key=java_string_key))


@dataclass(frozen=True)
class ServerMember:
    """One member as ``GroupSpec`` shows it (``MemberSubscriptionAndAssignmentImpl``).

    :param member_id: the member id
    :param topics: subscribed topic names (kept in Java ``String`` order, as the broker sorts
        them); names of topics that do not exist are allowed and invisible to assignors
    :param current: the member's current target assignment, ``(topic_id, partitions)`` in the
        map's iteration order (the order of the target-assignment record); a topic may map to
        no partitions, and ids may be of topics that no longer exist
    :param instance_id: ``group.instance.id`` of a static member
    :param rack: the member's rack
    """

    member_id: str
    topics: tuple[str, ...] = ()
    current: tuple[tuple[Uuid, tuple[int, ...]], ...] = ()
    instance_id: str | None = None
    rack: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "topics", _canonical_topics(tuple(self.topics)))
        object.__setattr__(
            self, "current", tuple((topic_id, tuple(ps)) for topic_id, ps in self.current)
        )

    def current_map(self) -> dict[Uuid, tuple[int, ...]]:
        """``current`` as a dict, in the same order."""
        return dict(self.current)


@dataclass(frozen=True)
class ServerGroupSpec:
    """What a server assignor gets: ``GroupSpec`` and ``SubscribedTopicDescriber`` in one.

    :param members: member id -> member
    :param topics: topic id -> topic (the broker's metadata image)
    :param unassignable: ``(topic_id, partition)`` pairs ``isPartitionAssignable`` denies
        (share partitions not initialized yet); only share groups have any
    :param group_type: ``consumer`` or ``share``
    """

    members: Mapping[str, ServerMember]
    topics: Mapping[Uuid, ServerTopic]
    unassignable: frozenset[tuple[Uuid, int]] = frozenset()
    group_type: str = CONSUMER_GROUP
    _topic_ids_cache: dict[tuple[str, ...], tuple[Uuid, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _sorted_ids_cache: dict[tuple[str, ...], tuple[Uuid, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "members", dict(self.members))
        object.__setattr__(self, "topics", dict(self.topics))
        object.__setattr__(self, "unassignable", frozenset(self.unassignable))

    # -- GroupSpec --------------------------------------------------------------------------

    @functools.cached_property
    def _member_order(self) -> tuple[str, ...]:
        # The coordinator puts members into a new HashMap<String, ...> in ascending id order.
        return tuple(java_sorted_hash_order(self.members))

    def member_ids(self) -> tuple[str, ...]:
        """``GroupSpec.memberIds()`` in Java's iteration order."""
        return self._member_order

    @functools.cached_property
    def subscription_type(self) -> str:
        """``homogeneous`` iff every member subscribes to the same topic names (existing or not)."""
        # Members usually share one interned tuple (ServerMember): compare objects first.
        distinct = {id(m.topics): m.topics for m in self.members.values()}
        same = len(distinct) <= 1 or len(set(distinct.values())) == 1
        return HOMOGENEOUS if same else HETEROGENEOUS

    @functools.cached_property
    def topic_ids_by_name(self) -> dict[str, Uuid]:
        return {topic.name: topic_id for topic_id, topic in self.topics.items()}

    def subscribed_topic_ids(self, member_id: str) -> tuple[Uuid, ...]:
        """``memberSubscription(id).subscribedTopicIds()`` in Java's iteration order.

        The member's names in the order of ``new HashSet<String>(sorted names)``, each mapped to
        its current id, names of missing topics skipped.
        """
        names = self.members[member_id].topics
        cached = self._topic_ids_cache.get(names)
        if cached is None:
            by_name = self.topic_ids_by_name
            in_set_order = JavaHashSet.copy_of(names, java_string_hash).keys()
            cached = tuple(by_name[name] for name in in_set_order if name in by_name)
            self._topic_ids_cache[names] = cached
        return cached

    def subscribed_topics(self, member_id: str) -> tuple[Uuid, ...]:
        """The ids of the member's existing subscribed topics in its name order (Java String
        order), not in Java's ``HashSet`` order: cheaper, for assignors whose result does not
        depend on that order."""
        names = self.members[member_id].topics
        cached = self._sorted_ids_cache.get(names)
        if cached is None:
            # A Uuid is a non-empty tuple: filter(None, ...) drops exactly the missing names.
            cached = tuple(filter(None, map(self.topic_ids_by_name.get, names)))
            self._sorted_ids_cache[names] = cached
        return cached

    def subscribers_by_topic(self, order: Sequence[str]) -> dict[Uuid, list[int]]:
        """Each existing topic someone subscribes to, with the positions in ``order`` (member
        ids) of its subscribers, ascending; topics in no particular order."""
        subscribers: dict[Uuid, list[int]] = {t: [] for t in self.topics}
        lists_of = subscribers.__getitem__
        for position, member_id in enumerate(order):
            # One C-level loop per member: append ``position`` to each of its topics' lists.
            _consume(
                map(
                    methodcaller("append", position),
                    map(lists_of, self.subscribed_topics(member_id)),
                )
            )
        return {t: members for t, members in subscribers.items() if members}

    def subscribed_name_count(self, member_id: str) -> int:
        """``subscribedTopicIds().size()``: counts names of missing topics too (Java's quirk)."""
        return len(self.members[member_id].topics)

    def is_subscribed(self, member_id: str, topic_id: Uuid) -> bool:
        """``subscribedTopicIds().contains(id)``: the id exists and its name is subscribed."""
        topic = self.topics.get(topic_id)
        return topic is not None and topic.name in self._topic_name_sets[member_id]

    @functools.cached_property
    def _topic_name_sets(self) -> dict[str, frozenset[str]]:
        return {m: frozenset(member.topics) for m, member in self.members.items()}

    @functools.cached_property
    def _assigned(self) -> frozenset[tuple[Uuid, int]]:
        return frozenset(
            (topic_id, p)
            for member in self.members.values()
            for topic_id, partitions in member.current
            for p in partitions
        )

    def is_partition_assigned(self, topic_id: Uuid, partition: int) -> bool:
        """``isPartitionAssigned``: some member's current target assignment holds it."""
        return (topic_id, partition) in self._assigned

    def is_partition_assignable(self, topic_id: Uuid, partition: int) -> bool:
        """``isPartitionAssignable``: false only for share partitions not yet initialized."""
        return (topic_id, partition) not in self.unassignable

    # -- SubscribedTopicDescriber -----------------------------------------------------------

    def num_partitions(self, topic_id: Uuid) -> int:
        """``numPartitions(id)``: the partition count, -1 for an unknown id."""
        topic = self.topics.get(topic_id)
        return -1 if topic is None else topic.partitions

    def racks_for_partition(self, topic_id: Uuid, partition: int) -> tuple[str, ...]:
        """``racksForPartition``: the replicas' racks (empty when unknown)."""
        topic = self.topics.get(topic_id)
        if topic is None or topic.racks is None or not 0 <= partition < len(topic.racks):
            return ()
        return topic.racks[partition]


@dataclass(frozen=True)
class ServerAssignment:
    """The target assignment a server assignor returns (``GroupAssignment``).

    :param members: member id -> (topic id -> partitions). A member absent from the mapping gets
        an empty assignment (Java's assignors may omit members; the coordinator treats them so).
    """

    members: Mapping[str, Mapping[Uuid, Iterable[int]]]

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "members",
            {member_id: _frozen_topics(topics) for member_id, topics in self.members.items()},
        )

    @classmethod
    def adopt(cls, members: dict[str, dict[Uuid, tuple[int, ...]]]) -> ServerAssignment:
        """Wrap ``members`` without copying it: for assignors that build it fresh, with tuples
        of partitions (copying thousands of members would cost more than some assignments)."""
        assignment = object.__new__(cls)
        object.__setattr__(assignment, "members", members)
        return assignment

    def partitions_of(self, member_id: str) -> tuple[tuple[Uuid, int], ...]:
        """``(topic_id, partition)`` pairs of one member (empty if the member is absent)."""
        topics = self.members.get(member_id, {})
        return tuple((topic_id, p) for topic_id, ps in topics.items() for p in ps)


def _frozen_topics(topics: Mapping[Uuid, Iterable[int]]) -> dict[Uuid, tuple[int, ...]]:
    if all(type(ps) is tuple for ps in topics.values()):
        return dict(topics)  # type: ignore[arg-type]  # the common case, at C speed
    return {topic_id: tuple(ps) for topic_id, ps in topics.items()}


class ServerAssignor(Configurable, abc.ABC):
    """Base class of every server-side assignor (see the module docstring for a tutorial).

    :param options: operator-given options; kept as ``self.options``
    """

    #: The broker's name for it (``group.consumer.assignors``); shown as ``server:<name>``.
    name: ClassVar[str]
    _kind: ClassVar[str] = "server assignor"
    #: The group types the broker uses it for: ``consumer`` (KIP-848) or ``share`` (KIP-932).
    group_types: ClassVar[tuple[str, ...]] = (CONSUMER_GROUP,)

    @classmethod
    def qualified_name(cls) -> str:
        """``server:<name>``, the name the registry and the CLI use."""
        return server_name(cls.name)

    @abc.abstractmethod
    def assign(self, group: ServerGroupSpec) -> ServerAssignment:
        """The target assignment of every member of ``group``; must be deterministic.

        :param group: members, subscriptions, current target assignments, topic metadata
        :returns: member id -> topic id -> partitions (members may be omitted: empty)
        """

    def assign_in_java_order(self, group: ServerGroupSpec) -> ServerAssignment | None:
        """:meth:`assign`'s result with each member's topics and partitions in the iteration
        order of the map Java's assignor returns, or None when the assignor does not model it
        (the default).

        The coordinator stores that order in the target-assignment record, and the next call's
        tie-breaks follow it: chaining rounds exactly (``replay_server_scenario(...,
        chain=True)``, a simulator) needs it.
        """
        return None


#: Member id -> topic id -> partitions, as builders return it (fresh dicts of tuples).
BuiltAssignment = dict[str, dict[Uuid, tuple[int, ...]]]


class SubscriptionTypeAssignor(ServerAssignor):
    """A server assignor with one builder per subscription type, as Kafka's are (``UniformAssignor``
    and ``SimpleAssignor`` hand homogeneous and heterogeneous groups to two builder classes,
    ``RangeAssignor`` to two methods).

    Subclasses implement :meth:`build_homogeneous` and :meth:`build_heterogeneous`; :meth:`assign`
    and :meth:`assign_in_java_order` pick one by ``group.subscription_type``. An empty group gets
    an empty assignment without a builder.
    """

    @abc.abstractmethod
    def build_homogeneous(self, group: ServerGroupSpec, java_order: bool) -> BuiltAssignment:
        """The assignment of a group whose members all subscribe to the same topic names.

        :param java_order: each member's topics and partitions in the iteration order of the
            map Java returns (else any order: :meth:`assign`)
        :returns: member id -> topic id -> partitions, fresh dicts of tuples (adopted uncopied);
            members may be left out, as Java leaves them out of its ``GroupAssignment``
        """

    @abc.abstractmethod
    def build_heterogeneous(self, group: ServerGroupSpec, java_order: bool) -> BuiltAssignment:
        """:meth:`build_homogeneous` for a group whose members subscribe differently."""

    def assign(self, group: ServerGroupSpec) -> ServerAssignment:
        return ServerAssignment.adopt(self._build(group, java_order=False))

    def assign_in_java_order(self, group: ServerGroupSpec) -> ServerAssignment:
        """:meth:`assign`, each member's topics and partitions in the order of Java's map."""
        return ServerAssignment.adopt(self._build(group, java_order=True))

    def _build(self, group: ServerGroupSpec, java_order: bool) -> BuiltAssignment:
        if not group.members:
            return {}
        if group.subscription_type == HOMOGENEOUS:
            return self.build_homogeneous(group, java_order)
        return self.build_heterogeneous(group, java_order)


# -- validity -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ServerValidity:
    """What is wrong with a server assignor's result (nothing = valid).

    :param validity: the core's one check, :func:`assignframe.metrics.validate_assignment`, on the
        classic view of the group (topics by name; a topic id the metadata no longer has gets a
        name of its own that nobody subscribes to and the cluster lacks)
    :param share: a share group: a partition may go to several members, so double ownership is
        not a fault there
    :param uninitialized: share partitions assigned that ``isPartitionAssignable`` denies (the
        one rule the classic view cannot express); unassigned ones are not counted as unowned
    :param topic_ids: classic topic name -> topic id
    """

    validity: Validity
    share: bool
    uninitialized: tuple[Partition, ...]
    topic_ids: Mapping[str, Uuid]

    @property
    def is_valid(self) -> bool:
        return not self.problems()

    def problems(self, names: Mapping[Uuid, str] | None = None) -> tuple[str, ...]:
        """Each fault in words: per member (holdings it should not have), then per topic.

        :param names: topic id -> name, for ids the metadata no longer has (else ``?``)
        """
        names = names or {}
        checked = self.validity
        lines = [
            self._holding(m, topic, count, names, beyond=beyond)
            for beyond, holdings in ((False, checked.non_subscriber), (True, checked.unknown))
            for (m, topic), count in Counter((m, tp.topic) for m, tp in holdings).items()
        ]
        per_topic: dict[str, list[str]] = {}
        faults = [("assigned to nobody", checked.unowned), ("uninitialized", self.uninitialized)]
        if not self.share:
            faults.append(("assigned more than once", checked.double_owned))
        for fault, partitions in faults:
            for topic, count in Counter(tp.topic for tp in partitions).items():
                per_topic.setdefault(topic, []).append(_counted(fault, count, topic))
        for topic in sorted(per_topic, key=java_string_key):
            lines.extend(per_topic[topic])
        return tuple(dict.fromkeys(lines))  # a deleted topic's holding is non-subscribed too

    def _holding(
        self, member_id: str, topic: str, count: int, names: Mapping[Uuid, str], beyond: bool
    ) -> str:
        held = f"{member_id} holds {count} partition(s) of"
        topic_id = self.topic_ids[topic]
        if topic.startswith(_DELETED):
            return f"{held} deleted topic id {topic_id} ({names.get(topic_id, '?')})"
        if beyond:
            return f"{held} {topic} beyond its partition count"
        return f"{held} {topic} which it does not subscribe to"


_DELETED = "\x00deleted topic "  # no Kafka topic name starts with NUL


def _counted(fault: str, count: int, topic: str) -> str:
    if fault == "uninitialized":
        return f"{count} uninitialized partition(s) of {topic} assigned"
    return f"{count} partition(s) of {topic} {fault}"


def validate_server_assignment(
    group: ServerGroupSpec, assignment: ServerAssignment
) -> ServerValidity:
    """Check ``assignment`` through :func:`assignframe.metrics.validate_assignment`: every
    assignable partition of a subscribed topic goes to a subscriber, exactly one in a consumer
    group (at least one in a share group), and nobody holds partitions of topics they do not
    subscribe to or that do not exist."""
    classic = {topic_id: topic.name for topic_id, topic in group.topics.items()}
    for topics in assignment.members.values():
        for topic_id in topics:
            classic.setdefault(topic_id, f"{_DELETED}{topic_id}")
    subscription = GroupSubscription(
        {m: Member(m, member.topics) for m, member in group.members.items()},
        Cluster({topic.name: topic.partitions for topic in group.topics.values()}),
    )
    held = GroupAssignment(
        {
            m: MemberAssignment(tuple(Partition(classic[t], p) for t, p in pairs))
            for m in sorted(assignment.members, key=java_string_key)
            for pairs in (assignment.partitions_of(m),)
        }
    )
    validity = validate_assignment(subscription, held)
    denied = {Partition(classic[t], p) for t, p in group.unassignable}
    if denied:
        validity = dataclasses.replace(
            validity, unowned=tuple(tp for tp in validity.unowned if tp not in denied)
        )
    uninitialized = tuple(
        tp for held_by in held.assignments.values() for tp in held_by.partitions if tp in denied
    )
    return ServerValidity(
        validity,
        group.group_type == SHARE_GROUP,
        tuple(dict.fromkeys(uninitialized)),
        {name: topic_id for topic_id, name in classic.items()},
    )
