"""The orderings Java's assignors and group coordinator inherit from the JDK.

For strategies (and tools) that must reproduce the Java client's output exactly, e.g. range and
roundrobin, and for the coordinator's protocol election. Two orders matter:

* ``String.compareTo`` compares UTF-16 code units, not code points, so a topic named ``"😀"``
  (surrogates ``D83D DE00``) sorts *before* ``"Ａ"`` (``FF21``) in Java but after it in Python.
* ``java.util.HashMap`` iterates bucket by bucket. RangeAssignor walks its topics in that order
  (the order partitions appear in each member's assignment list), and the coordinator counts
  protocol votes in that order.
"""

from __future__ import annotations

from collections.abc import Iterable

from .model import GroupSubscription, Member

__all__ = [
    "java_hash_order",
    "java_member_order",
    "java_string_hash",
    "java_string_key",
    "member_sort_key",
]

_DEFAULT_CAPACITY = 16


def java_string_key(text: str) -> bytes:
    """Sort key equal to Java's ``String.compareTo``: big-endian UTF-16 compares unit by unit."""
    return text.encode("utf-16-be", "surrogatepass")


def member_sort_key(member_id: str, group_instance_id: str | None) -> tuple[int, bytes]:
    """Java's ``MemberInfo.compareTo``: static members first, by instance id; then by member id."""
    if group_instance_id is not None:
        return (0, java_string_key(group_instance_id))
    return (1, java_string_key(member_id))


def java_string_hash(text: str) -> int:
    """``String.hashCode()`` as an unsigned 32-bit int (``s[0]*31^(n-1) + ... + s[n-1]``)."""
    encoded = java_string_key(text)
    value = 0
    for i in range(0, len(encoded), 2):
        value = (value * 31 + (encoded[i] << 8 | encoded[i + 1])) & 0xFFFFFFFF
    return value


def _table_capacity(size: int) -> int:
    # HashMap doubles its table once size exceeds 0.75 * capacity, starting from 16.
    capacity = _DEFAULT_CAPACITY
    while size > capacity * 3 // 4:
        capacity *= 2
    return capacity


def java_hash_order(keys_in_insertion_order: Iterable[str]) -> list[str]:
    """Iteration order of a default ``HashMap``/``HashSet`` filled with these keys in this order.

    Buckets are visited in index order (the spread hash ``h ^ (h >>> 16)`` masked by the table
    size); keys sharing a bucket keep their insertion order, which resizing preserves. Buckets of
    eight or more colliding keys (treeified in Java) are not modelled.
    """
    keys = list(dict.fromkeys(keys_in_insertion_order))
    mask = _table_capacity(len(keys)) - 1

    def bucket(key: str) -> int:
        hashed = java_string_hash(key)
        return (hashed ^ (hashed >> 16)) & mask

    return [key for _, _, key in sorted((bucket(k), i, k) for i, k in enumerate(keys))]


def java_member_order(group: GroupSubscription) -> list[Member]:
    """Members as Java's assignors sort them: ``MemberInfo`` order, ties in ``HashMap`` order.

    Java sorts a list built from the subscriptions ``HashMap`` with a stable sort, so two members
    claiming the same ``group.instance.id`` keep that map's iteration order.
    """
    in_map_order = java_hash_order(group.members)
    return sorted(
        (group.members[m] for m in in_map_order),
        key=lambda m: member_sort_key(m.member_id, m.group_instance_id),
    )
