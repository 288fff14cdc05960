"""The data model every strategy, hook and tool shares.

Everything here is a frozen dataclass holding plain Python values (no kafka-python types), so
strategies are pure functions of their input, testable without a broker and picklable for Spark.
Mappings are copied into fresh dicts on construction; treat them as read-only.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import repeat
from operator import countOf
from typing import Any, NamedTuple, TypeVar

from .javaorder import member_sort_key

__all__ = [
    "Cluster",
    "GroupAssignment",
    "GroupSubscription",
    "Member",
    "MemberAssignment",
    "MemberState",
    "RebalanceProtocol",
    "SubscriptionMetadata",
    "TopicPartition",
    "checked_pairs_as_partitions",
    "count_error",
    "group_size_error",
    "partition_pairs",
    "partitions_from_pairs",
    "partitions_of_topic",
    "topic_partitions",
    "trusted",
]

_Model = TypeVar("_Model")
_new = object.__new__
_tuple_new = tuple.__new__


class RebalanceProtocol(enum.Enum):
    """How a group hands partitions over (KIP-429).

    EAGER members give up everything before each rebalance; COOPERATIVE members keep what they own
    and give up only what the new assignment takes away, rejoining for a follow-up round.
    """

    EAGER = "eager"
    COOPERATIVE = "cooperative"


class TopicPartition(NamedTuple):
    """One partition of one topic; orders by (topic, partition) like Java's comparators.

    A named tuple: immutable, and its hash, equality and ordering are the tuple's own (C code).
    Strategies and metrics hash partitions by the million; a frozen dataclass's generated
    ``__hash__`` and ``__init__`` cost several times more. It equals the plain pair
    ``(topic, partition)``.
    """

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


def partitions_from_pairs(pairs: Iterable[Any]) -> tuple[TopicPartition, ...]:
    """Build TopicPartitions from ``(topic, partition)`` pairs, keeping their order.

    A tuple that already holds only TopicPartitions is returned as is, after one C-level scan
    of the element types (~20 ns per partition; strategies build these by the million, and the
    Python-level rebuild costs ~7x more).
    """
    if type(pairs) is tuple and countOf(map(type, pairs), TopicPartition) == len(pairs):
        return pairs
    return tuple(p if isinstance(p, TopicPartition) else TopicPartition(p[0], p[1]) for p in pairs)


def partitions_of_topic(topic: str, numbers: Iterable[int]) -> Iterator[TopicPartition]:
    """``TopicPartition(topic, n)`` for each of ``numbers``, in their order
    (:func:`checked_pairs_as_partitions`). Readers of the wire's per-topic groups build these
    by the hundred per member."""
    return checked_pairs_as_partitions(zip(repeat(topic), numbers))


def checked_pairs_as_partitions(pairs: Iterable[Any]) -> Iterator[TopicPartition]:
    """A TopicPartition of each ``(topic, number)`` pair the caller has checked (a str and an
    int), made in C (``tuple.__new__``): about half the cost of calling the class per
    partition, whose ``__new__`` is a Python function."""
    return map(_tuple_new, repeat(TopicPartition), pairs)


def partition_pairs(partitions: Iterable[TopicPartition]) -> list[list[Any]]:
    """The JSON form of partitions, ``[[topic, partition], ...]`` in their order (what
    :func:`partitions_from_pairs` reads back)."""
    return [[tp.topic, tp.partition] for tp in partitions]


def trusted(cls: type[_Model], **fields: Any) -> _Model:
    """An instance of the frozen model class ``cls`` from ``fields`` (every one of its fields,
    by name) that are already what its constructor would make of them: partitions a tuple of
    TopicPartitions, topics a tuple, mappings fresh dicts. Skips ``__init__`` and
    ``__post_init__`` (a third of the cost of building the object): only for the core's own
    producers whose values come from the model or the codec, never for a user's input, which
    the public constructors normalise."""
    instance = _new(cls)
    instance.__dict__.update(fields)
    return instance


def _set_partitions(owner: object, name: str) -> None:
    """Normalise a partitions field in place, writing it only when it changes."""
    value = getattr(owner, name)
    partitions = partitions_from_pairs(value)
    if partitions is not value:
        object.__setattr__(owner, name, partitions)


def _frozen_dict(owner: object, name: str, value: Mapping[Any, Any] | None) -> None:
    object.__setattr__(owner, name, None if value is None else dict(value))


#: Partition ids are int32 (0 .. 2**31 - 1), so no topic has more partitions than this.
MAX_PARTITION_COUNT = 2**31
#: The most partitions one group's topics may total for the tools to replay or measure it: a
#: replay holds every partition of the group's topics in memory (about 1 GB at this size), and
#: a count beyond any real cluster's is almost always a corrupt input, refused before it allocates.
MAX_GROUP_PARTITIONS = 5_000_000


def count_error(value: Any) -> str | None:
    """Why ``value`` is not a topic's partition count (an integer 0 .. 2**31), or None."""
    if not isinstance(value, int) or isinstance(value, bool):
        return f"expected a partition count (an integer), got {value!r}"
    if not 0 <= value <= MAX_PARTITION_COUNT:
        return (f"a partition count is 0 .. {MAX_PARTITION_COUNT:,} (partition ids are int32), "
                f"got {value:,}")
    return None


def group_size_error(counts: Mapping[str, int]) -> str | None:
    """Why a group with these topics (topic -> partition count) is too large to replay, or None."""
    total = sum(counts.values())
    if total <= MAX_GROUP_PARTITIONS:
        return None
    return (f"its topics total {total:,} partitions; the tools replay groups of at most "
            f"{MAX_GROUP_PARTITIONS:,}")


@functools.lru_cache(1024)
def topic_partitions(topic: str, count: int) -> tuple[TopicPartition, ...]:
    """Every partition of ``topic`` (``count`` of them) in partition order, built once per
    (topic, count): the rounds of a replay, a group's targets and the generations of one group
    share the objects (and compare by identity)."""
    return tuple([TopicPartition(topic, p) for p in range(count)])


@dataclass(frozen=True)
class Cluster:
    """What the leader knows of the topics: partition counts and, optionally, replica racks.

    :param partitions_per_topic: topic -> number of partitions (topics absent here do not exist)
    :param partition_racks: topic -> one tuple of replica racks per partition (KIP-881), or None
    """

    partitions_per_topic: Mapping[str, int]
    partition_racks: Mapping[str, tuple[tuple[str, ...], ...]] | None = None

    def __post_init__(self) -> None:
        _frozen_dict(self, "partitions_per_topic", self.partitions_per_topic)
        if self.partition_racks is not None:
            racks = {t: tuple(tuple(r) for r in per) for t, per in self.partition_racks.items()}
            object.__setattr__(self, "partition_racks", racks)

    def partitions(self, topic: str) -> tuple[TopicPartition, ...]:
        """All partitions of ``topic`` in partition order (empty if the topic is unknown)."""
        return topic_partitions(topic, self.partitions_per_topic.get(topic, 0))

    def racks_of(self, partition: TopicPartition) -> tuple[str, ...]:
        """Replica racks of one partition (empty when unknown)."""
        if not self.partition_racks:
            return ()
        per_partition = self.partition_racks.get(partition.topic, ())
        return (
            per_partition[partition.partition] if partition.partition < len(per_partition) else ()
        )

    @property
    def has_racks(self) -> bool:
        return bool(self.partition_racks)


@dataclass(frozen=True)
class Member:
    """One member's subscription as the leader sees it (the decoded JoinGroup metadata).

    :param member_id: coordinator-assigned member id
    :param topics: subscribed topics, in the order the subscription carried them (Java sorts them)
    :param owned_partitions: partitions the member says it owns (subscription v1+, cooperative)
    :param generation: generation the member last took part in (subscription v2+), -1 if none
    :param group_instance_id: static membership id (KIP-345), or None
    :param rack: the member's rack (subscription v3+), or None
    :param user_data: the raw user data bytes (None and empty are different on the wire)
    :param decoded_user_data: the strategy's decoding of ``user_data`` (decode_user_data hook)
    :param subscription_version: the ConsumerProtocol version the subscription was read from
    """

    member_id: str
    topics: tuple[str, ...]
    owned_partitions: tuple[TopicPartition, ...] = ()
    generation: int = -1
    group_instance_id: str | None = None
    rack: str | None = None
    user_data: bytes | None = None
    decoded_user_data: Any = None
    subscription_version: int = 3

    def __post_init__(self) -> None:
        object.__setattr__(self, "topics", tuple(self.topics))
        _set_partitions(self, "owned_partitions")


@dataclass(frozen=True)
class GroupSubscription:
    """Every member's subscription plus the cluster view: the input of ``Strategy.assign``.

    :param members: member_id -> Member
    :param cluster: partition counts and racks
    :param generation: the generation this rebalance will create (first rebalance = 1)
    :param options: free-form strategy options given by the operator (e.g. ``{"replicas": 2}``)
    :param lags: per-partition lag when known (``{TopicPartition: int}``), else None
    """

    members: Mapping[str, Member]
    cluster: Cluster
    generation: int = 1
    options: Mapping[str, Any] = field(default_factory=dict)
    lags: Mapping[TopicPartition, int] | None = None

    def __post_init__(self) -> None:
        _frozen_dict(self, "members", self.members)
        _frozen_dict(self, "options", self.options)
        _frozen_dict(self, "lags", self.lags)

    def subscribed_topics(self) -> tuple[str, ...]:
        """Sorted union of every member's topics."""
        return tuple(sorted({t for m in self.members.values() for t in m.topics}))

    def member_order(self) -> tuple[str, ...]:
        """Member ids in Java's ``MemberInfo`` order, the tie-break every Java assignor uses:
        static members first by ``group.instance.id``, then the others by member id, both
        compared as Java strings (UTF-16 code units). A restarted static member (new id, same
        instance id) keeps its place."""
        members = self.members
        return tuple(
            sorted(members, key=lambda m: member_sort_key(m, members[m].group_instance_id))
        )

    def subscribers_by_topic(self) -> dict[str, tuple[str, ...]]:
        """Topic -> ids of the members subscribed to it, in :meth:`member_order`; only topics the
        cluster has with at least one partition, in sorted order."""
        counts = self.cluster.partitions_per_topic
        subscribers: dict[str, list[str]] = {}
        for member_id in self.member_order():
            for topic in dict.fromkeys(self.members[member_id].topics):
                if counts.get(topic, 0) > 0:
                    subscribers.setdefault(topic, []).append(member_id)
        return {topic: tuple(subscribers[topic]) for topic in sorted(subscribers)}


@dataclass(frozen=True)
class MemberAssignment:
    """What the leader sends one member in SyncGroup.

    :param partitions: assigned partitions, in the order they are written on the wire
    :param user_data: strategy user data for the member (None is written as null)
    """

    partitions: tuple[TopicPartition, ...]
    user_data: bytes | None = None

    def __post_init__(self) -> None:
        _set_partitions(self, "partitions")


@dataclass(frozen=True)
class SubscriptionMetadata:
    """What a member puts in its JoinGroup subscription for one strategy (ConsumerProtocol v3).

    :param topics: subscribed topics (written sorted, as Java does)
    :param user_data: the strategy's user data, or None (null on the wire)
    :param owned_partitions: partitions still owned (empty for EAGER strategies)
    :param generation: the member's last generation, -1 if none
    :param rack: the member's rack (``client.rack``), or None
    """

    topics: tuple[str, ...]
    user_data: bytes | None = None
    owned_partitions: tuple[TopicPartition, ...] = ()
    generation: int = -1
    rack: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "topics", tuple(self.topics))
        _set_partitions(self, "owned_partitions")


@dataclass(frozen=True)
class GroupAssignment:
    """The output of ``Strategy.assign``: member_id -> MemberAssignment for every member."""

    assignments: Mapping[str, MemberAssignment]

    def __post_init__(self) -> None:
        _frozen_dict(self, "assignments", self.assignments)

    @classmethod
    def from_partitions(
        cls,
        partitions: Mapping[str, Iterable[Any]],
        user_data: Mapping[str, bytes | None] | None = None,
    ) -> GroupAssignment:
        """Build from member_id -> partitions (TopicPartitions or ``(topic, partition)`` pairs)."""
        user_data = user_data or {}
        return cls(
            {
                m: MemberAssignment(partitions_from_pairs(ps), user_data.get(m))
                for m, ps in partitions.items()
            }
        )

    def partitions_of(self, member_id: str) -> tuple[TopicPartition, ...]:
        assignment = self.assignments.get(member_id)
        return assignment.partitions if assignment else ()


@dataclass(frozen=True)
class MemberState:
    """What one consumer remembers between rebalances (never shared between consumers).

    :param owned_partitions: what the member owns now
    :param generation: the generation of its last successful assignment, -1 before any
    :param strategy_state: anything the strategy keeps for its next subscription (see on_assignment)
    """

    owned_partitions: tuple[TopicPartition, ...] = ()
    generation: int = -1
    strategy_state: Any = None

    def __post_init__(self) -> None:
        _set_partitions(self, "owned_partitions")
