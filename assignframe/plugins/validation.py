"""Shape checks on what strategies return (is it an assignment at all?).

Whether an assignment is *good* (each partition owned once, only by subscribers) is measured by
:mod:`assignframe.metrics`; here we only reject values the rest of the pipeline cannot encode.
"""

from __future__ import annotations

from operator import countOf, itemgetter
from typing import Any

from ..model import GroupAssignment, GroupSubscription, MemberAssignment, TopicPartition

__all__ = ["check_group_assignment"]

_topic, _number = itemgetter(0), itemgetter(1)


def check_group_assignment(result: Any, group: GroupSubscription) -> str | None:
    """Describe why ``result`` is not a GroupAssignment of exactly ``group``'s members, or None."""
    if not isinstance(result, GroupAssignment):
        return f"{type(result).__name__} instead of a GroupAssignment"
    problem = _member_set_problem(set(result.assignments), set(group.members))
    if problem:
        return problem
    for member_id, assignment in result.assignments.items():
        problem = _member_assignment_problem(assignment)
        if problem:
            return f"for member {member_id!r} {problem}"
    return None


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
