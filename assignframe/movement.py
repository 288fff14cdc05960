"""Movement: what one round did to the previous round's owners. The one definition every tool
counts with (replay of every kind, decode, simulate, the audit, the migration prediction and the
watch history); fixing how a round's movement is counted means editing :func:`holder_changes`
(and :func:`movement`, its count-only fast path, held equal to it by tests/test_movement.py).

A round is measured against the *previous round's result*: who held each partition once the
previous round was done, members that have left since included. Per partition:

- *kept*: a member held it before and holds it now;
- *moved*: a member holds it that did not, and someone held it before (a hand-over; from a
  member that lost it, the first one when none lost it);
- *added*: nobody held it before (a first round, a created topic, new partitions): assigned,
  not moved;
- *revoked*: held before, by nobody now (a member left and nobody took it yet, a deleted topic,
  a cooperative round's revocation).

A partition with several holders (share groups) gives one entry per holder. What is held can be
anything hashable and ordered: partitions, a watch history's ``topic-p`` strings, Streams tasks.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from .model import GroupAssignment, TopicPartition

__all__ = ["HolderChanges", "OwnershipChanges", "holder_changes", "movement", "ownership_changes"]


class _Ordered(Hashable, Protocol):
    """Hashable and ordered: entries are listed in the order of what is held."""

    def __lt__(self, other: Any, /) -> bool: ...


Held = TypeVar("Held", bound=_Ordered)


@dataclass(frozen=True)
class HolderChanges(Generic[Held]):
    """The changes of one round, entry by entry (module docstring).

    :param kept: ``(held, member)``
    :param moved: ``(held, from, to)``
    :param revoked: ``(held, from)``
    :param added: ``(held, to)``
    """

    kept: tuple[tuple[Held, str], ...]
    moved: tuple[tuple[Held, str, str], ...]
    revoked: tuple[tuple[Held, str], ...]
    added: tuple[tuple[Held, str], ...]


#: the changes of an assignment: partitions held by member ids
OwnershipChanges = HolderChanges[TopicPartition]


def holder_changes(
    previous: Mapping[str, Iterable[Held]] | None, current: Mapping[str, Iterable[Held]]
) -> HolderChanges[Held]:
    """:class:`HolderChanges` from ``previous`` (member -> what it held; None: nothing was
    held) to ``current``."""
    before = _holders(previous) if previous is not None else {}
    after = _holders(current)
    kept: list[Any] = []
    moved: list[Any] = []
    revoked: list[Any] = []
    added: list[Any] = []
    for item in sorted(before.keys() | after.keys()):
        old, new = before.get(item, {}), after.get(item, {})
        if not new:
            revoked += [(item, member) for member in old]
        elif not old:
            added += [(item, member) for member in new]
        else:
            lost = [member for member in old if member not in new] or list(old)
            kept += [(item, member) for member in new if member in old]
            moved += [(item, lost[0], member) for member in new if member not in old]
    return HolderChanges(tuple(kept), tuple(moved), tuple(revoked), tuple(added))


def ownership_changes(
    previous: GroupAssignment | None, current: GroupAssignment
) -> OwnershipChanges:
    """:func:`holder_changes` of two assignments."""
    return holder_changes(
        None if previous is None else _partitions_of(previous), _partitions_of(current)
    )


def movement(previous: GroupAssignment, current: GroupAssignment) -> tuple[int, int]:
    """(kept, moved) of :func:`ownership_changes`, counted without listing them: the audit
    measures every strategy's replay of a group against the same current assignment."""
    previously_assigned, before_per_member = _previous_sets(previous)
    held = previous.assignments
    kept = moved = 0
    for member_id, assigned in current.assignments.items():
        was = held.get(member_id)
        if was is not None and was.partitions == assigned.partitions:  # kept it all (often)
            kept += len(before_per_member[member_id])
            continue
        before = before_per_member.get(member_id)
        # (now - before) & all_before == (now & all_before) - (now & before): before is a subset.
        kept_here = len(before.intersection(assigned.partitions)) if before else 0
        kept += kept_here
        moved += len(previously_assigned.intersection(assigned.partitions)) - kept_here
    return kept, moved


def _partitions_of(assignment: GroupAssignment) -> dict[str, tuple[TopicPartition, ...]]:
    return {m: a.partitions for m, a in assignment.assignments.items()}


def _holders(held: Mapping[str, Iterable[Held]]) -> dict[Held, dict[str, None]]:
    """item -> its holders, in member order (a member listing it twice holds it once)."""
    holders: dict[Held, dict[str, None]] = {}
    for member_id, items in held.items():
        for item in items:
            holders.setdefault(item, {})[member_id] = None
    return holders


_PreviousSets = tuple[frozenset[TopicPartition], dict[str, frozenset[TopicPartition]]]
_previous_cache: tuple[GroupAssignment, _PreviousSets] | None = None


def _previous_sets(previous: GroupAssignment) -> _PreviousSets:
    """Every partition of ``previous``, and each member's, as sets. The last result is kept
    (with a reference to ``previous``, so its identity stays unique; one tuple, swapped whole):
    an audit compares every strategy's replay with the same current assignment."""
    global _previous_cache
    cache = _previous_cache
    if cache is not None and cache[0] is previous:
        return cache[1]
    sets = (
        frozenset(itertools.chain.from_iterable(_partitions_of(previous).values())),
        {m: frozenset(a.partitions) for m, a in previous.assignments.items()},
    )
    _previous_cache = (previous, sets)
    return sets
