"""What both simple builders share: desired counts, copies, and the hand-out of the remainder."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator
from typing import TypeVar

from assignframe.javaorder import JavaHashMap, JavaHashSet, Uuid, java_int_hash

__all__ = [
    "MemberAssignments",
    "MemberEdits",
    "assign_remaining",
    "desired_counts",
    "desired_sharing",
]

K = TypeVar("K", bound=Hashable)

#: Member number -> the ``newGroupAssignment`` copy being edited.
MemberAssignments = dict[int, "MemberEdits"]


def desired_sharing(members: int, partitions: int) -> int:
    """How many members each partition wants: ``ceil(members / partitions)``, 0 with none."""
    return 0 if partitions == 0 else (members + partitions - 1) // partitions


def desired_counts(members: int, partitions: int) -> list[int]:
    """What the k-th of ``members`` wants: ``ceil(x*(k+1)) - ceil(x*k)``, in Java's doubles."""
    precise = desired_sharing(members, partitions) * partitions / members
    return [math.ceil(precise * (k + 1)) - math.ceil(precise * k) for k in range(members)]


def _uuid_hash(topic_id: Uuid) -> int:
    return topic_id.java_hash


class MemberEdits:
    """A member's ``newGroupAssignment``: ``AssignorHelpers.deepCopyAssignment`` of its current
    map, then the builder's edits, which are logged so that :meth:`java_order` can replay them
    on Java-ordered tables (a removed partition leaves its topic in the map, as in Java)."""

    __slots__ = ("current", "log", "topics")

    def __init__(self, current: tuple[tuple[Uuid, tuple[int, ...]], ...]) -> None:
        self.current = current
        self.topics: dict[Uuid, set[int]] = {t: set(partitions) for t, partitions in current}
        self.log: list[tuple[str, Uuid, int]] = []

    def drop_topic(self, topic_id: Uuid) -> None:
        self.topics.pop(topic_id, None)
        self.log.append(("drop", topic_id, -1))

    def remove(self, topic_id: Uuid, partition: int) -> bool:
        held = self.topics.get(topic_id)
        if held is None or partition not in held:
            return False
        held.discard(partition)
        self.log.append(("remove", topic_id, partition))
        return True

    def add(self, topic_id: Uuid, partition: int) -> None:
        self.topics.setdefault(topic_id, set()).add(partition)
        self.log.append(("add", topic_id, partition))

    def java_order(self) -> dict[Uuid, tuple[int, ...]]:
        """The map Java returns, topics and partitions in its iteration order."""
        copy: JavaHashMap[Uuid, JavaHashSet[int]] = JavaHashMap(_uuid_hash, len(self.current))
        for topic_id, partitions in self.current:
            copy.put(topic_id, JavaHashSet.copy_of(partitions, java_int_hash))
        for edit, topic_id, partition in self.log:
            if edit == "drop":
                copy.remove(topic_id)
            elif edit == "remove":
                copy[topic_id].remove(partition)
            else:
                copy.compute_if_absent(topic_id, _new_int_set).add(partition)
        return {topic_id: tuple(held.keys()) for topic_id, held in copy.items()}


def _new_int_set(_topic_id: Uuid) -> JavaHashSet[int]:
    return JavaHashSet(java_int_hash)


class _UnfilledMembers:
    """A ``HashSet<Integer>`` iterator over unfilled members (ascending: the table outgrows them).

    It survives across partitions and only restarts when it runs out; ``remove`` drops the member
    just returned, as ``Iterator.remove`` does.
    """

    def __init__(self, members: set[int]) -> None:
        self.members = members
        self._order: Iterator[int] = iter(sorted(members))
        self._peeked: int | None = None

    def has_next(self) -> bool:
        if self._peeked is None:
            self._peeked = next((m for m in self._order if m in self.members), None)
        return self._peeked is not None

    def next(self) -> int:
        if not self.has_next():
            # Java's iterator throws NoSuchElementException; the coordinator would fail the call.
            raise RuntimeError("Java's SimpleAssignor fails here (NoSuchElementException)")
        member, self._peeked = self._peeked, None
        assert member is not None
        return member

    def restart(self) -> None:
        self._order, self._peeked = iter(sorted(self.members)), None


def assign_remaining(
    owners_by_partition: JavaHashMap[K, JavaHashSet[int]],
    unfilled: set[int],
    sharing: int,
    give: Callable[[int, K], bool],
) -> None:
    """Walk partitions in table order; give each that wants more owners to unfilled members.

    The per-partition owner sets are not updated (Java's quirk), so after a wrap-around a member
    may be offered a partition it already got. ``give(member, partition)`` returns True when the
    member is now full and leaves the unfilled set.
    """
    if not unfilled:
        return
    members = _UnfilledMembers(unfilled)
    assigned_this_lap = False
    for partition, owners in owners_by_partition.items():
        wanted = sharing - len(owners)
        while wanted > 0:
            if not members.has_next():
                if not assigned_this_lap:
                    break
                members.restart()
                assigned_this_lap = False
            member = members.next()
            if member in owners:
                continue
            wanted -= 1
            assigned_this_lap = True
            if give(member, partition):
                unfilled.discard(member)
        if not unfilled:
            break
