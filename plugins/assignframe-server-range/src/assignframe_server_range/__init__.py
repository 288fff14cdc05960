"""``server:range``: the broker's KIP-848 ``RangeAssignor`` (not the client's ``range``).

Per topic, the topic's subscribers are sorted (static members first by instance id, then the
others by member id, as Java compares strings) and each takes a contiguous range: ``n // M``
partitions, one more for the first ``n % M``. It recomputes from scratch every time: it is NOT
sticky (the current assignment is ignored), and it is not rack-aware.
"""

from __future__ import annotations

import functools

from assignframe import ServerGroupSpec, hookimpl
from assignframe.javaorder import JavaAssignment, Uuid, member_sort_key
from assignframe.server_assignor import BuiltAssignment, SubscriptionTypeAssignor

__all__ = ["RangeAssignor", "assign_ranges"]


def _sorted_members(group: ServerGroupSpec) -> list[str]:
    """Static members first by instance id, then the others; ties by member id (Java order)."""
    members = group.members
    static = {m: i.instance_id for m, i in members.items() if i.instance_id is not None}
    if "".join(members).isascii() and "".join(static.values()).isascii():
        # ASCII: Python's string order is Java's, no UTF-16 keys needed.
        dynamic = sorted(m for m in members if m not in static) if static else sorted(members)
        return sorted(static, key=lambda m: (static[m], m)) + dynamic
    return sorted(
        members,
        key=lambda m: (member_sort_key(m, members[m].instance_id), member_sort_key(m, None)),
    )


def assign_ranges(group: ServerGroupSpec, homogeneous: bool,
                  ) -> dict[str, dict[Uuid, tuple[int, ...]]]:
    """Member id -> topic id -> its contiguous range; every member present (maybe empty).

    :param homogeneous: the group's subscription type, as
        :class:`~assignframe.server_assignor.SubscriptionTypeAssignor` dispatched on it
    """
    result: dict[str, dict[Uuid, tuple[int, ...]]] = {m: {} for m in group.members}
    if group.members:
        build = _assign_homogeneous if homogeneous else _assign_heterogeneous
        build(group, _sorted_members(group), result)
    return result


@functools.lru_cache(maxsize=1024)
def _ranges(partitions: int, subscribers: int) -> tuple[tuple[int, ...], ...]:
    """The ranges of the first subscribers (``n // M`` each, one more for the first ``n % M``);
    those past the end get nothing and are left out. Shared between topics (tuples)."""
    quota, extra = divmod(partitions, subscribers)
    ranges = []
    start = 0
    for index in range(min(partitions, subscribers)):
        count = quota + 1 if index < extra else quota
        ranges.append(tuple(range(start, start + count)))
        start += count
    return tuple(ranges)


def _assign_homogeneous(
    group: ServerGroupSpec, ordered: list[str], result: BuiltAssignment
) -> None:
    # Every topic has the same subscribers, so topics of one partition count give every member
    # the same range: one C-level dict per member and partition count.
    by_count: dict[int, list[Uuid]] = {}
    for topic_id in group.subscribed_topics(ordered[0]):
        by_count.setdefault(group.topics[topic_id].partitions, []).append(topic_id)
    for partitions, topic_ids in by_count.items():
        ranges = _ranges(partitions, len(ordered))  # as many as get any
        for member_id, partition_range in zip(ordered, ranges, strict=False):
            result[member_id].update(dict.fromkeys(topic_ids, partition_range))


def _assign_heterogeneous(
    group: ServerGroupSpec, ordered: list[str], result: BuiltAssignment
) -> None:
    # Members past a topic's partition count get none of it: collecting a topic's subscribers
    # stops one past that count (its subscriber count then only matters as "more than n").
    counts = {topic_id: topic.partitions for topic_id, topic in group.topics.items()}
    for topic_id, positions in group.subscribers_by_topic(ordered, enough=counts).items():
        partitions = counts[topic_id]
        # More subscribers than partitions: how many more does not change the ranges.
        ranges = _ranges(partitions, min(len(positions), partitions + 1))
        for position, partition_range in zip(positions, ranges, strict=False):
            result[ordered[position]][topic_id] = partition_range


def java_ordered(
    group: ServerGroupSpec, result: BuiltAssignment, homogeneous: bool
) -> BuiltAssignment:
    """Each member's map in the order Java's builds it: ``new HashMap<>((int) (n / 0.75f) + 1)``
    filled with ``put`` in the order of the subscribed topic ids (the first sorted member's in a
    homogeneous group, with ``n`` its existing topics; the member's own otherwise, with ``n`` its
    subscribed names, missing topics included); a range iterates in ascending order."""
    first = _sorted_members(group)[0]
    ordered = {}
    for member_id, topics in result.items():
        source = first if homogeneous else member_id
        ids = group.subscribed_topic_ids(source)
        size = len(ids) if homogeneous else group.subscribed_name_count(source)
        table = JavaAssignment(size * 4 // 3 + 1)
        for topic_id in ids:
            if topic_id in topics:
                table.put_range(topic_id, topics[topic_id])
        ordered[member_id] = table.ordered()
    return ordered


class RangeAssignor(SubscriptionTypeAssignor):
    """Kafka's group-coordinator ``RangeAssignor`` (name ``range``)."""

    name = "range"

    def build_homogeneous(self, group: ServerGroupSpec, java_order: bool) -> BuiltAssignment:
        result = assign_ranges(group, homogeneous=True)
        return java_ordered(group, result, homogeneous=True) if java_order else result

    def build_heterogeneous(self, group: ServerGroupSpec, java_order: bool) -> BuiltAssignment:
        result = assign_ranges(group, homogeneous=False)
        return java_ordered(group, result, homogeneous=False) if java_order else result


@hookimpl
def register_strategies(registry):
    registry.add(RangeAssignor)
