"""Orders built on Java's hashes and tables: the iteration order of a ``HashMap<String, ?>``
filled in insertion order or in ascending ``String`` order (``GroupSpec.memberIds()``), and the
order Java's client assignors sort members in. Kept from call to call: each string's spread hash
and, per table size, its place key (a float that sorts ASCII ids by bucket, then by their first
characters), as Java keeps a ``String``'s hash in the ``String``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import NamedTuple, Protocol, TypeVar

from .tables import (
    _DEFAULT_CAPACITY,
    _MIN_TREEIFY_CAPACITY,
    JavaHashSet,
    java_string_hash,
    java_string_key,
    member_sort_key,
)

__all__ = ["java_hash_order", "java_member_order", "java_sorted_hash_order"]


#: String -> spread hash (``h ^ (h >>> 16)``) of the member ids seen lately: a plain dict, as
#: member ordering looks up ten thousands of them per call (cleared when it grows too large).
_SPREAD_STRING_HASHES: dict[str, int] = {}
_SPREAD_CACHE_LIMIT = 1 << 17


def _spread_string_hashes(strings: list[str]) -> list[int]:
    cache = _SPREAD_STRING_HASHES
    found = list(map(cache.get, strings))
    if None in found:
        if len(cache) > _SPREAD_CACHE_LIMIT:
            cache.clear()
        for i, text in enumerate(strings):
            if found[i] is None:
                h = java_string_hash(text)
                found[i] = cache[text] = h ^ (h >> 16)
    return found  # type: ignore[return-value]  # no None left


class _PlaceKeys(NamedTuple):
    """Place keys of ASCII strings in a table of one capacity: the bucket, then the first
    characters (7 bits each), packed into the 53 bits a float holds exactly, so that member
    ordering is one C-level sort of floats. Kept from call to call, as Java keeps a String's
    hash in the String (cleared, like the hashes, when they grow too large)."""

    of: dict[str, float]
    #: place key -> the first string seen with it
    first: dict[float, str]
    #: strings whose place key another string seen shares (their order needs whole strings)
    shared: set[str]


_PLACE_KEYS: dict[int, _PlaceKeys] = {}


def _place_keys(strings: list[str], capacity: int) -> _PlaceKeys:
    """The place keys of a table of ``capacity``, ``strings``' among them."""
    keys = _PLACE_KEYS.get(capacity)
    if keys is None:
        keys = _PLACE_KEYS[capacity] = _PlaceKeys({}, {}, set())
    if len(keys.of) + len(strings) > _SPREAD_CACHE_LIMIT:
        keys.of.clear()
        keys.first.clear()
        keys.shared.clear()
    mask = capacity - 1
    chars = (53 - mask.bit_length()) // 7
    for text, spread in zip(strings, _spread_string_hashes(strings), strict=True):
        if text not in keys.of:
            key = spread & mask
            for char in text[:chars].ljust(chars, "\0"):
                key = key << 7 | ord(char)
            place = keys.of[text] = float(key)
            first = keys.first.setdefault(place, text)
            if first != text:
                keys.shared.update((first, text))
    return keys


# -- orders built on the above ------------------------------------------------------------------


def java_hash_order(keys_in_insertion_order: Iterable[str]) -> list[str]:
    """Iteration order of a default ``HashMap<String, ?>``/``HashSet`` filled with these keys.

    Buckets are visited in index order (the spread hash masked by the final table length); keys
    sharing a bucket keep their insertion order, which resizing preserves. Small tables (where a
    long chain can force an extra doubling) are replayed with :class:`JavaHashMap`.
    """
    keys = list(dict.fromkeys(keys_in_insertion_order))
    if len(keys) <= _MIN_TREEIFY_CAPACITY * 3 // 4:
        table: JavaHashSet[str] = JavaHashSet(java_string_hash)
        for key in keys:
            table.add(key)
        return table.keys()
    capacity = _DEFAULT_CAPACITY
    while len(keys) > capacity * 3 // 4:
        capacity *= 2
    mask = capacity - 1
    buckets = [(h ^ (h >> 16)) & mask for h in map(java_string_hash, keys)]
    order = sorted(range(len(keys)), key=buckets.__getitem__)  # stable: insertion order in a bucket
    return [keys[i] for i in order]


def java_sorted_hash_order(keys: Iterable[str]) -> list[str]:
    """Iteration order of a default ``HashMap<String, ?>`` filled with ``keys`` in ascending
    ``String.compareTo`` order (how the coordinator builds ``GroupSpec.memberIds()``).

    Within a bucket that insertion order is the sorted order, so one sort by (bucket, key) gives
    it, without sorting the keys first (for ASCII keys, a sort of cached float place keys).
    """
    # A mapping's or set's keys are unique already.
    unique = list(keys) if isinstance(keys, Mapping | AbstractSet) else list(dict.fromkeys(keys))
    if len(unique) <= _MIN_TREEIFY_CAPACITY * 3 // 4:
        return java_hash_order(sorted(unique, key=java_string_key))
    capacity = _DEFAULT_CAPACITY
    while len(unique) > capacity * 3 // 4:
        capacity *= 2
    if "".join(unique).isascii():
        # ASCII: a key's place key orders it by bucket, then by its first characters (Java's
        # String order for ASCII). Where two strings seen share a place key (the same bucket
        # and first characters: ~1e-9 a pair for random ids) the whole strings decide below.
        # Sorted by a key function: the floats are compared in C, the strings carried along.
        places = _PLACE_KEYS.get(capacity)
        ordered = None
        if places is not None:
            with contextlib.suppress(KeyError):  # a string not seen yet
                ordered = sorted(unique, key=places.of.__getitem__)
        if places is None or ordered is None:
            places = _place_keys(unique, capacity)
            ordered = sorted(unique, key=places.of.__getitem__)
        if not places.shared or places.shared.isdisjoint(unique):
            return ordered
    mask = capacity - 1
    buckets = [(h ^ (h >> 16)) & mask for h in map(java_string_hash, unique)]
    return [
        key for _, _, key in sorted(zip(buckets, map(java_string_key, unique), unique, strict=True))
    ]


class _MemberIds(Protocol):
    """A member as ordering sees it (the model's ``Member``, which builds on this module)."""

    @property
    def member_id(self) -> str: ...

    @property
    def group_instance_id(self) -> str | None: ...


M_co = TypeVar("M_co", bound=_MemberIds, covariant=True)
M = TypeVar("M", bound=_MemberIds)


class _Members(Protocol[M_co]):
    """A group as ordering sees it (the model's ``GroupSubscription``)."""

    @property
    def members(self) -> Mapping[str, M_co]: ...


def java_member_order(group: _Members[M]) -> list[M]:
    """Members as Java's assignors sort them: ``MemberInfo`` order, ties in ``HashMap`` order.

    Java sorts a list built from the subscriptions ``HashMap`` with a stable sort, so two members
    claiming the same ``group.instance.id`` keep that map's iteration order.
    """
    in_map_order = java_hash_order(group.members)
    return sorted(
        (group.members[m] for m in in_map_order),
        key=lambda m: member_sort_key(m.member_id, m.group_instance_id),
    )
