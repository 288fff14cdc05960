"""What both simple builders share: desired counts, the members' edited copies, and the
hand-out of the remainder."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator
from typing import TypeVar

from assignframe.javaorder import AssignmentEdits, JavaHashMap, JavaHashSet, Uuid
from assignframe.server_assignor import BuiltAssignment

__all__ = [
    "JavaAssignorFailure",
    "MemberAssignments",
    "assign_remaining",
    "built_result",
    "desired_counts",
    "desired_sharing",
]

K = TypeVar("K", bound=Hashable)

#: Member number -> its ``newGroupAssignment`` entry: ``AssignorHelpers.deepCopyAssignment`` of
#: the current map, made the first time the builder touches the member, then edited. Removing a
#: partition leaves its topic in the map, even when empty (Java's builders do not drop it).
MemberAssignments = dict[int, AssignmentEdits]


def desired_sharing(members: int, partitions: int) -> int:
    """How many members each partition wants: ``ceil(members / partitions)``, 0 with none."""
    return 0 if partitions == 0 else (members + partitions - 1) // partitions


def desired_counts(members: int, partitions: int) -> list[int]:
    """What the k-th of ``members`` wants: ``ceil(x*(k+1)) - ceil(x*k)``, in Java's doubles."""
    precise = desired_sharing(members, partitions) * partitions / members
    return [math.ceil(precise * (k + 1)) - math.ceil(precise * k) for k in range(members)]


class JavaAssignorFailure(RuntimeError):
    """The group is one Kafka's assignor throws on; reproduced, as the coordinator's call fails."""


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
            raise JavaAssignorFailure(
                "Kafka's SimpleAssignor fails on this group: its unfilled-member iterator runs "
                "out (NoSuchElementException), and the coordinator fails the assignment"
            )
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


def built_result(
    member_ids: tuple[str, ...],
    current: list[tuple[tuple[Uuid, tuple[int, ...]], ...]],
    new: MemberAssignments,
    java_order: bool,
) -> BuiltAssignment:
    """Member id -> topic id -> partitions: a member the builder never touched keeps its current
    map (the same object in Java); the others their edited copy, sorted or in Java's order."""
    out = {}
    for i, member_id in enumerate(member_ids):
        edits = new.get(i)
        if edits is None:
            out[member_id] = dict(current[i])
        else:
            out[member_id] = edits.java_order() if java_order else edits.sorted()
    return out
