"""Partitions as integers, and who owned which one before this rebalance.

Every partition of a subscribed, existing topic gets an integer id: topics sorted by name, ids of
one topic contiguous (``offset + partition``). The algorithm works on ids, lists and arrays only;
TopicPartition objects are built once per (topic, partition count) and cached, since building a
million of them costs about a second and a leader rebalances the same topics again and again.

Claims are resolved as Java does after KIP-341 / KAFKA-12984 / KIP-792: a claim from a newer
generation beats an older one; two claims from the same (newest) generation cancel out, so the
partition is owned by neither (a member naming one partition twice counts as two claims); a
claim of a topic the member no longer subscribes is dropped.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, repeat
from operator import attrgetter

from assignframe import Cluster, TopicPartition

from .userdata import Claim

__all__ = ["Ownership", "PartitionIndex", "resolve_claims"]

#: ``Ownership.claimant`` value for a partition claimed by more than one member.
MANY = -2
_NOBODY = -1


@lru_cache(maxsize=8192)
def topic_partitions(topic: str, count: int) -> tuple[TopicPartition, ...]:
    """All partitions of one topic, built once (TopicPartition is immutable, so sharing is safe)."""
    return tuple(TopicPartition(topic, p) for p in range(count))


@lru_cache(maxsize=4)
def _all_partitions(layout: tuple[tuple[str, int], ...]) -> tuple[TopicPartition, ...]:
    return tuple(chain.from_iterable(topic_partitions(t, n) for t, n in layout))


@dataclass(frozen=True)
class PartitionIndex:
    """Integer ids of every partition of the subscribed, existing topics.

    :param topics: subscribed topics with at least one partition, sorted
    :param offsets: id of partition 0 of each topic, plus the total at the end
    """

    topics: tuple[str, ...]
    offsets: tuple[int, ...]

    @classmethod
    def of(cls, cluster: Cluster, subscriptions: Iterable[tuple[str, ...]]) -> PartitionIndex:
        """:param subscriptions: the distinct topic tuples members subscribe"""
        counts = cluster.partitions_per_topic
        subscribed = set().union(*subscriptions)
        topics = tuple(sorted(t for t in subscribed if counts.get(t, 0) > 0))
        offsets = [0]
        for topic in topics:
            offsets.append(offsets[-1] + counts[topic])
        return cls(topics, tuple(offsets))

    @property
    def total(self) -> int:
        return self.offsets[-1]

    def position(self) -> dict[str, tuple[int, int, int]]:
        """topic -> (topic index, first id, partition count)."""
        offsets = self.offsets
        return {t: (i, offsets[i], offsets[i + 1] - offsets[i]) for i, t in enumerate(self.topics)}

    def topic_index(self, pid: int) -> int:
        return bisect_right(self.offsets, pid) - 1

    def topic_range(self, topic_index: int) -> range:
        return range(self.offsets[topic_index], self.offsets[topic_index + 1])

    def partition_objects(self) -> tuple[TopicPartition, ...]:
        """TopicPartition of every id, in id order (cached across calls)."""
        layout = tuple(
            (t, self.offsets[i + 1] - self.offsets[i]) for i, t in enumerate(self.topics)
        )
        return _all_partitions(layout)


@dataclass
class Ownership:
    """Resolved previous ownership.

    :param held: per member (by index), the ids it keeps a valid claim to, in claim order
    :param owner: per id, the member index owning it, or -1
    :param claimant: per id, who claimed it at all (any generation, subscribed or not): a member
        index, ``MANY`` or -1; None when nobody claimed anything. The cooperative protocol must
        not hand a partition to one member while another may still hold it.
    """

    held: list[list[int]]
    owner: array
    claimant: array | None


def resolve_claims(
    index: PartitionIndex,
    claims: Sequence[Claim],
    subscribed: Sequence[frozenset[int]],
    track_claimants: bool,
) -> Ownership:
    """Resolve every member's claim into one owner per partition (see the module docstring).

    :param claims: per member index, its claim
    :param subscribed: per member index, the topic indexes it subscribes
    :param track_claimants: also record every raw claimant (cooperative protocol)
    """
    position = index.position()
    smallest = min((place[2] for place in position.values()), default=0)
    every = [_ids_of(claim, position, smallest) for claim in claims]
    mine = [
        _filter_subscribed(ids, index, topics)
        for ids, topics in zip(every, subscribed, strict=True)
    ]
    claimed = set()
    total = 0
    for ids in every:
        claimed.update(ids)
        total += len(ids)
    if not total:
        return Ownership(mine, array("i", [_NOBODY]) * index.total, None)
    if len(claimed) == total:
        # the common case: no partition claimed twice; fill the arrays at C speed
        owner = _owner_array(index.total, mine)
        if not track_claimants:
            return Ownership(mine, owner, None)
        same = all(a is b for a, b in zip(every, mine, strict=True))
        return Ownership(mine, owner, owner if same else _owner_array(index.total, every))
    return _resolve_contested(index, claims, every, mine, track_claimants)


def _owner_array(total: int, id_lists: Sequence[list[int]]) -> array:
    owner = array("i", [_NOBODY]) * total
    for member, ids in enumerate(id_lists):
        deque(map(owner.__setitem__, ids, repeat(member)), maxlen=0)
    return owner


def _resolve_contested(index, claims, every, mine, track_claimants) -> Ownership:
    """The slow path, for groups where some partition is claimed more than once.

    Claims are contested whether or not the claimer still subscribes the topic (as Java does):
    a member that stopped subscribing may still hold the partition. Only subscribers keep what
    they win; what a non-subscriber wins goes back to the pool.
    """
    owner = array("i", [_NOBODY]) * index.total
    claimant = array("i", [_NOBODY]) * index.total if track_claimants else None
    generation_at: dict[int, int] = {}  # only for contested ids: the winning generation
    for member, ids in enumerate(every):
        if claimant is not None:
            _record_claimants(claimant, ids, member)
        for pid in ids:
            previous = owner[pid]
            if previous == _NOBODY and pid not in generation_at:
                owner[pid] = member
            elif previous == member:
                # One member naming a partition twice: Java counts two claims of one generation,
                # so nobody keeps it (and it is never handed out twice).
                owner[pid] = _NOBODY
                generation_at[pid] = claims[member].generation
            else:
                _contest(owner, generation_at, claims, pid, member, previous)
    held = [[pid for pid in ids if owner[pid] == member] for member, ids in enumerate(mine)]
    for member, ids in enumerate(every):
        if ids is not mine[member]:
            kept = set(held[member])
            for pid in ids:
                if owner[pid] == member and pid not in kept:
                    owner[pid] = _NOBODY
    return Ownership(held, owner, claimant)


def _ids_of(claim: Claim, position: Mapping[str, tuple[int, int, int]], smallest: int) -> list[int]:
    """Ids of the existing partitions a claim names (unknown topics and partitions dropped).

    :param smallest: the partition count of the smallest topic
    """
    if claim.flat:
        return _flat_ids(claim.flat, position, smallest)
    return [
        place[1] + p
        for group in claim.groups
        if (place := position.get(group.topic)) is not None
        for p in group.partitions
        if 0 <= p < place[2]
    ]


_partition_of = attrgetter("partition")


def _flat_ids(flat, position: Mapping[str, tuple[int, int, int]], smallest: int) -> list[int]:
    """Ids of a flat partition list. When every partition number fits every topic (the usual
    case, checked with two C-level passes), one unchecked comprehension does it: about half the
    time of the checked one, which matters at a million owned partitions."""
    numbers = list(map(_partition_of, flat))
    if numbers and min(numbers) >= 0 and max(numbers) < smallest:
        try:
            return [position[tp.topic][1] + tp.partition for tp in flat]
        except KeyError:
            pass  # a topic that no longer exists: take the careful way
    return [
        place[1] + tp.partition
        for tp in flat
        if (place := position.get(tp.topic)) is not None and 0 <= tp.partition < place[2]
    ]


def _record_claimants(claimant: array, ids: list[int], member: int) -> None:
    for pid in ids:
        seen = claimant[pid]
        if seen == _NOBODY:
            claimant[pid] = member
        elif seen != member:
            claimant[pid] = MANY


def _filter_subscribed(ids: list[int], index: PartitionIndex, topics: frozenset[int]) -> list[int]:
    """Drop ids of topics the member no longer subscribes (rare: checked per topic range)."""
    if len(topics) == len(index.topics) or not ids:
        return ids
    offsets = index.offsets
    return [pid for pid in ids if bisect_right(offsets, pid) - 1 in topics]


def _contest(
    owner: array,
    generation_at: dict[int, int],
    claims: Sequence[Claim],
    pid: int,
    member: int,
    previous: int,
) -> None:
    """A second claim for ``pid``: the newer generation wins, equal generations cancel out."""
    mine = claims[member].generation
    best = generation_at.get(pid, claims[previous].generation if previous >= 0 else mine)
    if mine > best:
        owner[pid] = member
        generation_at[pid] = mine
    elif mine == best:
        owner[pid] = _NOBODY  # same generation twice: neither can prove it owns the partition
        generation_at[pid] = mine
    else:
        generation_at[pid] = best
