"""Chaining server-assignor rounds on our own results, as the group coordinator does.

After each call the coordinator writes every member's new target assignment as a record (topics
in the order the returned map iterates, partitions as ``new ArrayList<>(set)``) and reads it
back with ``Assignment.fromRecord`` (``putIfAbsent`` into ``new HashMap<Uuid, Set<Integer>>()``,
each set ``new HashSet<>(list)``); a member whose new assignment equals its current one keeps the
current object. That map is the member's ``current`` in the next call, and its iteration order
decides Java's tie-breaks there (see ``shared/golden/kip848/README.md``, "How rounds chain").

:func:`target_after` is that round trip; :func:`chained_rounds` feeds a scenario's rounds with
the assignor's own results instead of the recorded ``current``, which needs an assignor that
models Java's result order (:meth:`~assignframe.ServerAssignor.assign_in_java_order`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .javaorder import JavaHashMap, JavaHashSet, Uuid, java_int_hash
from .server_assignor import ServerAssignment, ServerAssignor
from .server_replay import ServerRound, server_rounds

__all__ = ["chained_rounds", "from_record", "target_after"]

Current = tuple[tuple[Uuid, tuple[int, ...]], ...]


def _uuid_hash(topic_id: Uuid) -> int:
    return topic_id.java_hash


def from_record(entries: Iterable[tuple[Uuid, Iterable[int]]]) -> Current:
    """``Assignment.fromRecord``: the map read back from a target-assignment record."""
    table: JavaHashMap[Uuid, tuple[int, ...]] = JavaHashMap(_uuid_hash)
    for topic_id, partitions in entries:
        table.put_if_absent(topic_id, tuple(JavaHashSet.copy_of(partitions, java_int_hash).keys()))
    return tuple(table.items())


def target_after(previous: Current, result: Mapping[Uuid, Iterable[int]]) -> Current:
    """A member's next ``current``: ``previous`` if the result holds the same partitions (and
    the same empty topics), else the record round trip of ``result`` (in Java's map order)."""
    if _contents(previous) == _contents(result.items()):
        return previous
    return from_record(result.items())


def _contents(entries: Iterable[tuple[Uuid, Iterable[int]]]) -> dict[Uuid, frozenset[int]]:
    return {topic_id: frozenset(partitions) for topic_id, partitions in entries}


def chained_rounds(
    scenario: Mapping[str, Any], assignor: ServerAssignor
) -> Iterator[tuple[ServerRound, ServerAssignment]]:
    """Each round with ``current`` built from the assignor's previous results, and its result.

    Round 0 keeps its recorded ``current`` (crafted scenarios start from one). Later rounds keep
    the recorded members, subscriptions and topics; a joining member starts empty and a static
    member replacement hands the old member's target to the new id.

    :raises ValueError: the assignor does not model Java's result order
    """
    targets: dict[str, Current] = {}
    for round_ in server_rounds(scenario):
        if round_.index > 0:
            round_ = _with_currents(round_, targets)
        result = assignor.assign_in_java_order(round_.spec)
        if result is None:
            raise ValueError(
                f"{assignor.qualified_name()} does not model Java's result order "
                "(assign_in_java_order), so its rounds cannot be chained exactly"
            )
        targets = {
            member_id: target_after(member.current, result.members.get(member_id, {}))
            for member_id, member in round_.spec.members.items()
        }
        yield round_, result


def _with_currents(round_: ServerRound, targets: Mapping[str, Current]) -> ServerRound:
    held = dict(targets)
    for event in round_.java.get("events") or ():
        if event.get("type") == "replace":  # in order: a replacement may be replaced again
            held[event["new"]] = held.pop(event["old"], ())
    members = {
        member_id: dataclasses.replace(member, current=held.get(member_id, ()))
        for member_id, member in round_.spec.members.items()
    }
    spec = dataclasses.replace(round_.spec, members=members)
    return dataclasses.replace(round_, spec=spec)
