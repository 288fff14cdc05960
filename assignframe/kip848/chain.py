"""Chaining server-assignor rounds on our own results, as the group coordinator does.

After each call the coordinator writes every member's new target assignment as a record (topics
in the order the returned map iterates, partitions as ``new ArrayList<>(set)``) and reads it
back with ``Assignment.fromRecord`` (``putIfAbsent`` into ``new HashMap<Uuid, Set<Integer>>()``,
each set ``new HashSet<>(list)``); a member whose new assignment equals its current one keeps the
current object. That map is the member's ``current`` in the next call, and its iteration order
decides Java's tie-breaks there (see ``shared/golden/kip848/README.md``, "How rounds chain").

:func:`target_after` is that round trip. The consumer-group model chains its targets with it, and
:func:`assignframe.replay.server.chained_rounds` feeds a scenario's rounds with the assignor's own
results instead of the recorded ``current``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..javaorder import JavaHashMap, JavaHashSet, Uuid, java_int_hash, uuid_hash

__all__ = ["Current", "from_record", "target_after"]

Current = tuple[tuple[Uuid, tuple[int, ...]], ...]


def from_record(entries: Iterable[tuple[Uuid, Iterable[int]]]) -> Current:
    """``Assignment.fromRecord``: the map read back from a target-assignment record."""
    table: JavaHashMap[Uuid, tuple[int, ...]] = JavaHashMap(uuid_hash)
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
