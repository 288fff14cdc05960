"""The iteration order of the maps Java's builders return, for chaining rounds exactly.

The coordinator writes each member's new target assignment as a record in the order its map
iterates, reads it back into a ``HashMap``, and the next call's tie-breaks follow that order
(``assignframe.replay.server.target_after``). Java's builders never sort: a member whose
assignment did not change keeps its current map object; any other gets
``AssignorHelpers.deepCopyAssignment`` of it (``new HashMap<>(size)`` of ``new HashSet<>(set)``)
and then the builder's removals and ``computeIfAbsent(topic, ...).add(p)`` calls, in the order the
builder made them. Those operations are replayed here on :mod:`assignframe.javaorder` tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from assignframe import ServerGroupSpec
from assignframe.javaorder import JavaHashMap, JavaHashSet, Uuid, java_int_hash

__all__ = ["heterogeneous_order", "homogeneous_order"]

Current = tuple[tuple[Uuid, tuple[int, ...]], ...]
Ordered = dict[Uuid, tuple[int, ...]]


def _uuid_hash(topic_id: Uuid) -> int:
    return topic_id.java_hash


def _deep_copy(current: Current) -> JavaHashMap[Uuid, JavaHashSet[int]]:
    copy: JavaHashMap[Uuid, JavaHashSet[int]] = JavaHashMap(_uuid_hash, len(current))
    for topic_id, partitions in current:
        copy.put(topic_id, JavaHashSet.copy_of(partitions, java_int_hash))
    return copy


def _remove(copy: JavaHashMap[Uuid, JavaHashSet[int]], topic_id: Uuid, partition: int) -> None:
    held = copy.get(topic_id)
    if held is not None:
        held.remove(partition)
        if not len(held):
            copy.remove(topic_id)


def _as_ordered(copy: JavaHashMap[Uuid, JavaHashSet[int]]) -> Ordered:
    return {topic_id: tuple(held.keys()) for topic_id, held in copy.items()}


def homogeneous_order(
    group: ServerGroupSpec, result: Mapping[str, Mapping[Uuid, tuple[int, ...]]]
) -> dict[str, Ordered]:
    """``UniformHomogeneousAssignmentBuilder``: revocations first (quota cuts, dropped topics),
    then the handed-out partitions, which our result lists after the kept ones, in order."""
    if not result:
        return {}
    ordered = {}
    for member_id, member in group.members.items():
        got = result.get(member_id, {})
        current = member.current
        if {t: set(ps) for t, ps in current} == {t: set(ps) for t, ps in got.items()}:
            ordered[member_id] = dict(current)  # untouched: the old map object
            continue
        copy = _deep_copy(current)
        for topic_id, partitions in current:
            keep = set(got.get(topic_id, ()))
            for p in partitions:
                if p not in keep:
                    _remove(copy, topic_id, p)
        before = dict(current)
        for topic_id, partitions in got.items():
            old = set(before.get(topic_id, ()))
            for p in partitions:
                if p not in old:
                    copy.compute_if_absent(topic_id, _new_set(16)).add(p)
        ordered[member_id] = _as_ordered(copy)
    return ordered


def heterogeneous_order(group: ServerGroupSpec, builder: object) -> dict[str, Ordered]:
    """``UniformHeterogeneousAssignmentBuilder``: dropped topics, then the builder's logged adds
    and removes; new topic sets are sized for the topic's partitions per subscriber."""
    member_ids: list[str] = builder.member_ids  # type: ignore[attr-defined]
    log: list[list[tuple[bool, Uuid, int]]] = builder.log  # type: ignore[attr-defined]
    dropped: list[bool] = builder.dropped_topics  # type: ignore[attr-defined]
    subscribers: Mapping[Uuid, list[int]] = builder.subscribers  # type: ignore[attr-defined]
    ordered = {}
    for index, member_id in enumerate(member_ids):
        current = group.members[member_id].current
        if not log[index] and not dropped[index]:
            ordered[member_id] = dict(current)
            continue
        copy = _deep_copy(current)
        for topic_id, _ in current:
            if not group.is_subscribed(member_id, topic_id):
                copy.remove(topic_id)
        for added, topic_id, p in log[index]:
            if not added:
                _remove(copy, topic_id, p)
                continue
            count, members = group.num_partitions(topic_id), len(subscribers[topic_id])
            estimate = (count + members - 1) // members
            copy.compute_if_absent(topic_id, _new_set(estimate * 4 // 3 + 1)).add(p)
        ordered[member_id] = _as_ordered(copy)
    return ordered


def _new_set(capacity: int) -> Callable[[Uuid], JavaHashSet[int]]:
    def create(_topic_id: Uuid) -> JavaHashSet[int]:
        return JavaHashSet(java_int_hash, capacity)

    return create
