"""Shape checks on what strategies return (is it an assignment at all?).

Whether an assignment is *good* (each partition owned once, only by subscribers) is measured by
:mod:`assignframe.metrics`; here we only reject values the rest of the pipeline cannot encode.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from operator import attrgetter, countOf, itemgetter
from types import NoneType
from typing import Any

from ..model import GroupAssignment, GroupSubscription, MemberAssignment, TopicPartition

__all__ = ["check_group_assignment"]

_topic, _number = itemgetter(0), itemgetter(1)
_partitions, _user_data = attrgetter("partitions"), attrgetter("user_data")


def check_group_assignment(result: Any, group: GroupSubscription) -> str | None:
    """Describe why ``result`` is not a GroupAssignment of exactly ``group``'s members, or None."""
    if not isinstance(result, GroupAssignment):
        return f"{type(result).__name__} instead of a GroupAssignment"
    assignments = result.assignments
    if assignments.keys() != group.members.keys():  # compared as sets
        problem = _member_set_problem(set(assignments), set(group.members))
        if problem:
            return problem
    if _all_plain(tuple(assignments.values())):
        return None
    for member_id, assignment in assignments.items():  # name the first member that is not
        problem = _member_assignment_problem(assignment)
        if problem:
            return f"for member {member_id!r} {problem}"
    return None


def _all_plain(assignments: tuple[Any, ...]) -> bool:
    """True when every one of ``assignments`` is a MemberAssignment of bytes or None user data
    and partitions as the wire encoder needs them: the usual case, C-level scans of the whole
    group (no call per member). False says only: look member by member."""
    size = len(assignments)
    if countOf(map(type, assignments), MemberAssignment) != size:
        return False
    user_data = tuple(map(type, map(_user_data, assignments)))
    if countOf(user_data, NoneType) + countOf(user_data, bytes) != size:
        return False
    total = sum(map(len, map(_partitions, assignments)))
    return (
        countOf(map(type, _every_partition(assignments)), TopicPartition) == total
        and countOf(map(type, map(_topic, _every_partition(assignments))), str) == total
        and countOf(map(type, map(_number, _every_partition(assignments))), int) == total
    )


def _every_partition(assignments: tuple[MemberAssignment, ...]) -> Iterator[Any]:
    return chain.from_iterable(map(_partitions, assignments))


def _member_set_problem(returned: set[str], expected: set[str]) -> str | None:
    missing, unexpected = sorted(expected - returned), sorted(returned - expected)
    if not (missing or unexpected):
        return None
    parts = []
    if missing:
        parts.append(f"no entry for member(s) {', '.join(map(repr, missing))}")
    if unexpected:
        parts.append(f"entries for non-member(s) {', '.join(map(repr, unexpected))}")
    return "an assignment with " + " and ".join(parts)


def _member_assignment_problem(assignment: Any) -> str | None:
    if not isinstance(assignment, MemberAssignment):
        return f"a {type(assignment).__name__} instead of a MemberAssignment"
    if assignment.user_data is not None and not isinstance(assignment.user_data, bytes):
        return f"user_data of type {type(assignment.user_data).__name__} instead of bytes"
    partitions = assignment.partitions
    size = len(partitions)
    if (  # the usual case, three C-level scans: every value as the wire encoder needs it
        countOf(map(type, partitions), TopicPartition) == size
        and countOf(map(type, map(_topic, partitions)), str) == size
        and countOf(map(type, map(_number, partitions)), int) == size
    ):
        return None
    for partition in partitions:  # name the first that is not
        if not (
            type(partition) is TopicPartition
            and type(partition.topic) is str
            and type(partition.partition) is int
        ):
            return f"a partition {partition!r} that is not TopicPartition(str, int)"
    return None
