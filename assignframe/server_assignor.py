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
import functools
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, ClassVar

from .configurable import Configurable
from .javaorder import (
    Uuid,
    hash_set_copy_order,
    java_hash_order,
    java_sorted_hash_order,
    java_string_hash,
    java_string_key,
)

__all__ = [
    "CONSUMER_GROUP",
    "HETEROGENEOUS",
    "HOMOGENEOUS",
    "SERVER_PREFIX",
    "SHARE_GROUP",
    "ServerAssignment",
    "ServerAssignor",
    "SubscriptionTypeAssignor",
    "ServerGroupSpec",
    "ServerMember",
    "ServerTopic",
    "Uuid",
    "server_name",
]

#: Prefix of every server assignor's qualified name (``server:uniform``).
SERVER_PREFIX = "server:"
HOMOGENEOUS = "homogeneous"
HETEROGENEOUS = "heterogeneous"
CONSUMER_GROUP = "consumer"
SHARE_GROUP = "share"

_topics_of = attrgetter("topics")

#: subscribers_by_topic(enough=...) checks after every this many members whether it may stop.
_SATURATION_CHECK = 8

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


@functools.lru_cache(maxsize=4096)
def _names_in_set_order(topics: tuple[str, ...]) -> tuple[str, ...]:
    # The order of the member's own HashSet<String> of names, which Java keeps with the member
    # from call to call: kept here per distinct subscription (a canonical tuple, above).
    return tuple(hash_set_copy_order(topics, java_string_hash))


@dataclass(frozen=True, slots=True)
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

    @classmethod
    def _built(
        cls,
        member_id: str,
        topics: tuple[str, ...],
        current: tuple[tuple[Uuid, tuple[int, ...]], ...],
        instance_id: str | None,
        rack: str | None,
    ) -> ServerMember:
        """A member whose ``topics`` and ``current`` are tuples, ``current`` of
        ``(topic_id, tuple of partitions)`` pairs (what the constructor would make of them): for
        the core's own spec builders, which build thousands (no copy of ``current``)."""
        member = object.__new__(cls)
        for name, value in (
            ("member_id", member_id),
            ("topics", _canonical_topics(topics)),
            ("current", current),
            ("instance_id", instance_id),
            ("rack", rack),
        ):
            object.__setattr__(member, name, value)
        return member

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
    :param member_order: the order the coordinator put the members into ``GroupSpec``'s
        ``HashMap``, which decides the order of members sharing a bucket. A real broker's
        ``TargetAssignmentBuilder`` inserts them in the order its member table iterates (the
        order ConsumerGroupDescribe lists them), a member joining with the heartbeat that
        computes the target last. None: ascending ids, as Kafka's own assignor tests and the
        golden data build it.
    """

    members: Mapping[str, ServerMember]
    topics: Mapping[Uuid, ServerTopic]
    unassignable: frozenset[tuple[Uuid, int]] = frozenset()
    group_type: str = CONSUMER_GROUP
    member_order: tuple[str, ...] | None = None
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
        if self.member_order is not None:
            order = tuple(self.member_order)
            if len(order) != len(self.members) or set(order) != self.members.keys():
                raise ValueError(
                    "member_order must list every member once: "
                    f"{sorted(set(order) ^ self.members.keys())[:5]} differ"
                    if set(order) != self.members.keys()
                    else "member_order must list every member once (an id is repeated)"
                )
            object.__setattr__(self, "member_order", order)

    # -- GroupSpec --------------------------------------------------------------------------

    @functools.cached_property
    def _member_order(self) -> tuple[str, ...]:
        # A new HashMap<String, ...> filled in member_order, by default in ascending id order.
        if self.member_order is not None:
            return tuple(java_hash_order(self.member_order))
        return tuple(java_sorted_hash_order(self.members))

    def member_ids(self) -> tuple[str, ...]:
        """``GroupSpec.memberIds()`` in Java's iteration order."""
        return self._member_order

    @functools.cached_property
    def subscription_type(self) -> str:
        """``homogeneous`` iff every member subscribes to the same topic names (existing or not)."""
        # Members usually share one interned tuple (ServerMember): compare objects first.
        tuples = list(map(_topics_of, self.members.values()))
        # list.count compares by identity first: one C-level pass over shared tuples.
        same = not tuples or tuples.count(tuples[0]) == len(tuples)
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
            # A Uuid is a non-empty tuple: filter(None, ...) drops exactly the missing names.
            cached = tuple(filter(None, map(by_name.get, _names_in_set_order(names))))
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

    def subscribers_by_topic(
        self, order: Sequence[str], enough: Mapping[Uuid, int] | None = None
    ) -> dict[Uuid, list[int]]:
        """Each existing topic someone subscribes to, with the positions in ``order`` (member
        ids) of its subscribers, ascending; topics in no particular order.

        :param enough: topic id -> a count: once every topic has more subscribers than its count,
            the remaining members are not looked at (their subscriptions are not even resolved),
            so such a topic's list holds its first subscribers only, at least count + 1 of them
            (range-like assignors give members past a topic's partition count nothing of it)
        """
        # Keyed by name while collecting: members' names go straight in, without resolving each
        # to its id (names of missing topics get a list too, dropped below).
        by_name: collections.defaultdict[str, list[int]] = collections.defaultdict(list)
        lists_of = by_name.__getitem__
        members = self.members
        pending = None
        if enough is not None:
            names = {topic_id: name for name, topic_id in self.topic_ids_by_name.items()}
            pending = {names[t]: n for t, n in enough.items() if t in names}
        for position, member_id in enumerate(order):
            # One C-level loop per member: append ``position`` to each of its topics' lists.
            topics = members[member_id].topics
            _consume(map(list.append, map(lists_of, topics), itertools.repeat(position)))
            if pending is not None and position % _SATURATION_CHECK == _SATURATION_CHECK - 1:
                pending = {t: n for t, n in pending.items() if len(by_name.get(t, ())) <= n}
                if not pending:
                    break
        return {
            topic_id: by_name[name]
            for name, topic_id in self.topic_ids_by_name.items()
            if by_name.get(name)
        }

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
