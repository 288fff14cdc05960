"""The iteration order of the map Java's homogeneous builder returns, for chaining rounds exactly.

The coordinator writes each member's new target assignment as a record in the order its map
iterates, reads it back into a ``HashMap``, and the next call's tie-breaks follow that order
(``assignframe.kip848.chain.target_after``). ``UniformHomogeneousAssignmentBuilder`` never
sorts: a member whose assignment did not change keeps its current map object; any other gets a
deep copy of it, loses its revoked partitions (quota cuts, topics no longer subscribed), then
gains the handed-out ones, which our result lists after the kept ones, in order. Replayed with
:class:`assignframe.javaorder.AssignmentEdits` (the heterogeneous builder logs its own edits).
"""

from __future__ import annotations

from collections.abc import Mapping

from assignframe import ServerGroupSpec
from assignframe.javaorder import AssignmentEdits, Uuid
from assignframe.server_assignor import BuiltAssignment

__all__ = ["homogeneous_order"]


def homogeneous_order(
    group: ServerGroupSpec, result: Mapping[str, Mapping[Uuid, tuple[int, ...]]]
) -> BuiltAssignment:
    """``result`` with each member's map in Java's iteration order."""
    if not result:
        return {}
    ordered = {}
    for member_id, member in group.members.items():
        got = result.get(member_id, {})
        current = member.current
        if {t: set(ps) for t, ps in current} == {t: set(ps) for t, ps in got.items()}:
            ordered[member_id] = dict(current)  # untouched: the old map object
            continue
        edits = AssignmentEdits(current)
        for topic_id, partitions in current:
            keep = set(got.get(topic_id, ()))
            for p in partitions:
                if p not in keep:
                    edits.remove(topic_id, p)
        before = dict(current)
        for topic_id, partitions in got.items():
            old = set(before.get(topic_id, ()))
            for p in partitions:
                if p not in old:
                    edits.add(topic_id, p)
        ordered[member_id] = edits.java_order(drop_emptied=True)
    return ordered
