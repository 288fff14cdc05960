"""``UniformHomogeneousAssignmentBuilder``: every member subscribes to the same topics.

Quotas: ``T`` partitions over ``M`` members, ``T // M`` each and one more for the first
``T % M`` members *in Java's member order* that can still use it. Each member keeps its current
partitions up to its quota (topic groups in its current map's order, partitions in set order);
the rest joins the unassigned list, which starts with every partition nobody holds, topic by
topic in the order of Java's ``new HashSet<Uuid>(subscribedTopicIds())``. Members below quota
then take partitions from the front of that list, in member order.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Sequence

from assignframe import ServerGroupSpec
from assignframe.javaorder import Uuid, hash_set_copy_order, uuid_hash

__all__ = ["assign_homogeneous"]

Assignment = dict[str, dict[Uuid, tuple[int, ...]]]
_current_of = operator.attrgetter("current")
_partitions_of = operator.attrgetter("partitions")


def topic_order(group: ServerGroupSpec) -> tuple[Uuid, ...]:
    """The builder's topic set, ``new HashSet<>(first member's subscribedTopicIds())``, in order."""
    first = group.member_ids()[0]
    # c.size() of TopicIds counts subscribed names of missing topics too: it sizes the table.
    return _hash_set_order(group.subscribed_topic_ids(first), group.subscribed_name_count(first))


@functools.lru_cache(maxsize=256)
def _hash_set_order(ids: tuple[Uuid, ...], size: int) -> tuple[Uuid, ...]:
    # A function of the ids (in their order) and the size alone: kept per distinct subscription,
    # as the spec keeps each subscription's HashSet order of names (a 1,000-topic group's calls
    # hash and compare the ids, ~0.06 ms, instead of ordering them again, ~0.5 ms).
    return tuple(hash_set_copy_order(ids, uuid_hash, size=size))


def assign_homogeneous(group: ServerGroupSpec) -> Assignment:
    """Member id -> topic id -> partitions (empty when the topics subscribed do not exist)."""
    topics = topic_order(group)
    if not topics:
        return {}
    # The order holds existing topics only (subscribed_topic_ids drops missing names).
    counts = list(map(_partitions_of, map(group.topics.__getitem__, topics)))
    members = group.member_ids()
    minimum, remaining = divmod(sum(counts), len(members))
    group_members = group.members
    if not any(map(_current_of, group_members.values())):
        return _fresh(members, minimum, remaining, topics, counts)
    unassigned = _unheld_partitions(group, topics, counts)
    subscribed = set(topics)
    currents = list(map(_current_of, map(group_members.__getitem__, members)))
    # Each member's map starts as what it holds (C-level); the loop replaces the few that lose
    # partitions, and only computes quotas for the rest.
    result: Assignment = dict(zip(members, map(dict, currents), strict=True))
    unfilled: list[tuple[str, int]] = []
    size = len(members)
    for index, current in enumerate(currents):
        extra = remaining > 0
        quota = minimum + 1 if extra else minimum
        if len(current) == 1 and current[0][0] in subscribed and len(current[0][1]) <= quota:
            quota -= len(current[0][1])  # the usual member: one topic, all of it kept
        elif current:
            member_id = members[index]
            kept, quota = _keep_within_quota(group, member_id, subscribed, quota, unassigned)
            result[member_id] = kept
        # A member that cannot fill even its minimum leaves the extra partition to a later one,
        # as long as enough members remain to take every extra.
        if quota > 0 and extra and size - index > remaining:
            quota -= 1
            extra = False
        if quota > 0:
            unfilled.append((members[index], quota))
        if extra:
            remaining -= 1
    _hand_out(unfilled, unassigned, result)
    return result


def _fresh(
    members: tuple[str, ...],
    minimum: int,
    remaining: int,
    topics: tuple[Uuid, ...],
    counts: list[int],
) -> Assignment:
    """Nobody holds anything: what the loop above gives, without walking empty assignments.

    Every member leaves its extra partition to later ones while more members remain than
    extras, so the last ``remaining`` members in Java's order get ``minimum + 1``.
    """
    first_extra = len(members) - remaining
    everything = list(zip(topics, counts, strict=True))
    if 0 in counts:  # rare: keep the general hand-out
        unfilled = [
            (member_id, minimum + 1 if index >= first_extra else minimum)
            for index, member_id in enumerate(members)
            if minimum or index >= first_extra
        ]
        fallback: Assignment = {member_id: {} for member_id in members}
        _hand_out(unfilled, [(t, _partition_range(0, n)) for t, n in everything], fallback)
        return fallback
    if not remaining and not any(map(operator.mod, counts, itertools.repeat(minimum))):
        # One quota that tiles every topic (as 100 partitions do for 10 each): member i takes
        # the i-th run of the partitions, topic after topic, from C-level iterators (a dict
        # display per member: cheaper than a dict.fromkeys call).
        per_topic = list(map(operator.floordiv, counts, itertools.repeat(minimum)))
        keys = itertools.chain.from_iterable(map(itertools.repeat, topics, per_topic))
        runs_of = {n: _runs(0, minimum, n) for n in set(per_topic)}  # topics alike share them
        runs = itertools.chain.from_iterable(map(runs_of.__getitem__, per_topic))
        maps = [{t: run} for t, run in zip(keys, runs, strict=True)]
        return dict(zip(members, maps, strict=True))
    # The members take consecutive runs of the partitions, topic after topic: members of one
    # quota that fit in what is left of the current topic take their runs as one block.
    # In member order: those before first_extra get nothing when the minimum is 0.
    result: Assignment = {} if minimum else {m: {} for m in members[:first_extra]}
    chunk, offset = 0, 0
    topic_id, count = everything[0]
    index = 0 if minimum else first_extra  # members before first_extra get nothing then
    while index < len(members):
        if index < first_extra:
            quota, limit = minimum, first_extra
        else:
            quota, limit = minimum + 1, len(members)
        fit = min((count - offset) // quota, limit - index)
        if fit:
            block = map(dict.fromkeys, itertools.repeat((topic_id,)), _runs(offset, quota, fit))
            result.update(zip(members[index : index + fit], block, strict=True))
            index += fit
            offset += fit * quota
        else:  # the member's run spans topics
            assignment: dict[Uuid, tuple[int, ...]] = {}
            result[members[index]] = assignment
            index += 1
            while quota:
                taken = min(quota, count - offset)
                assignment[topic_id] = _partition_range(offset, offset + taken)
                quota -= taken
                offset += taken
                if quota:
                    chunk, offset = chunk + 1, 0
                    if chunk == len(everything):
                        break
                    topic_id, count = everything[chunk]
            if chunk == len(everything):
                break  # the partitions ran out within this member's run
        if offset == count:
            chunk, offset = chunk + 1, 0
            if chunk == len(everything):
                break
            topic_id, count = everything[chunk]
    for member_id in members[index:]:  # the partitions ran out before them
        result[member_id] = {}
    return result


@functools.lru_cache(maxsize=256)
def _runs(offset: int, quota: int, count: int) -> tuple[tuple[int, ...], ...]:
    """``count`` consecutive runs of ``quota`` partitions from ``offset`` (shared tuples)."""
    starts = range(offset, offset + count * quota, quota)
    return tuple(_partition_range(start, start + quota) for start in starts)


#: The partition numbers every tuple this module makes is sliced from: one int object per
#: number, so a run handed out in one call and held as "current" in the next compares with
#: ``_partition_range`` element by element by identity (no int comparison).
_PARTITIONS: tuple[int, ...] = tuple(range(1024))


def _partition_range(start: int, stop: int) -> tuple[int, ...]:
    """``tuple(range(start, stop))`` made of the shared int objects."""
    global _PARTITIONS
    if stop > len(_PARTITIONS):
        grown = max(stop, 2 * len(_PARTITIONS))
        _PARTITIONS = _PARTITIONS + tuple(range(len(_PARTITIONS), grown))
    return _PARTITIONS[start:stop]


def _unheld_partitions(
    group: ServerGroupSpec, topics: tuple[Uuid, ...], counts: list[int]
) -> list[tuple[Uuid, tuple[int, ...]]]:
    """Per topic in ``topics`` order (of ``counts`` partitions each), its partitions that no
    member's current assignment holds."""
    held: dict[Uuid, list[tuple[int, ...]]] = {}
    for member in group.members.values():
        for topic_id, partitions in member.current:
            held.setdefault(topic_id, []).append(partitions)
    chunks = []
    for topic_id, count in zip(topics, counts, strict=True):
        runs = held.get(topic_id, ())
        if _all_held_in_runs(runs, count):
            continue  # the usual target: runs that tile the topic, checked without a set
        taken = set(itertools.chain.from_iterable(runs))
        if not taken:
            free: tuple[int, ...] = _partition_range(0, count)
        elif len(taken) >= count and taken.issuperset(range(count)):
            continue  # all held (the usual case): no per-partition loop
        else:
            free = tuple(p for p in _partition_range(0, count) if p not in taken)
        if free:
            chunks.append((topic_id, free))
    return chunks


def _all_held_in_runs(runs: Sequence[tuple[int, ...]], count: int) -> bool:
    """Whether ``runs``, ordered, are consecutive ranges that hold ``0 .. count - 1`` once each
    (False says nothing: the caller then checks partition by partition)."""
    ordered = tuple(sorted(runs))
    if ordered and count == len(ordered[0]) * len(ordered):
        # Runs of one length (the usual target): one compare with the cached runs, run by run
        # by identity when they are the tuples an earlier call handed out.
        if ordered == _runs(0, len(ordered[0]), len(ordered)):
            return True
    whole = _range_tuple(count)
    start = 0
    for run in ordered:
        end = start + len(run)
        if run != whole[start:end]:
            return False
        start = end
    return start == count


@functools.lru_cache(maxsize=64)
def _range_tuple(count: int) -> tuple[int, ...]:
    return _partition_range(0, count)


def _keep_within_quota(
    group: ServerGroupSpec,
    member_id: str,
    subscribed: set[Uuid],
    quota: int,
    unassigned: list[tuple[Uuid, tuple[int, ...]]],
) -> tuple[dict[Uuid, tuple[int, ...]], int]:
    kept: dict[Uuid, tuple[int, ...]] = {}
    for topic_id, partitions in group.members[member_id].current:
        if topic_id not in subscribed:
            continue  # the whole topic is revoked
        if len(partitions) <= quota:
            quota -= len(partitions)
            kept[topic_id] = partitions
            continue
        if quota:
            kept[topic_id] = partitions[:quota]
        unassigned.append((topic_id, partitions[quota:]))
        quota = 0
    return kept, quota


def _hand_out(
    unfilled: list[tuple[str, int]],
    unassigned: list[tuple[Uuid, tuple[int, ...]]],
    result: Assignment,
) -> None:
    """Members below quota, in order, take partitions from the front of the unassigned list."""
    chunk, offset, chunks = 0, 0, len(unassigned)
    if not chunks:
        return
    topic_id, partitions = unassigned[0]
    for member_id, quota in unfilled:
        assignment = result[member_id]
        while quota > 0:
            taken = partitions[offset : offset + quota]  # slices of tuples are tuples
            held = assignment.get(topic_id)
            assignment[topic_id] = taken if held is None else held + taken
            quota -= len(taken)
            offset += len(taken)
            if offset == len(partitions):
                chunk, offset = chunk + 1, 0
                if chunk == chunks:
                    return
                topic_id, partitions = unassigned[chunk]
