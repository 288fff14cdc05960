"""``server:range``: the broker's KIP-848 ``RangeAssignor`` (not the client's ``range``).

Per topic, the topic's subscribers are sorted (static members first by instance id, then the
others by member id, as Java compares strings) and each takes a contiguous range: ``n // M``
partitions, one more for the first ``n % M``. It recomputes from scratch every time: it is NOT
sticky (the current assignment is ignored), and it is not rack-aware.
"""

from __future__ import annotations

from assignframe import HOMOGENEOUS, ServerGroupSpec, hookimpl
from assignframe.javaorder import JavaAssignment, Uuid, member_sort_key
from assignframe.server_assignor import BuiltAssignment, SubscriptionTypeAssignor

__all__ = ["RangeAssignor", "assign_ranges"]


def _sorted_members(group: ServerGroupSpec) -> list[str]:
    members = group.members
    return sorted(
        members,
        key=lambda m: (member_sort_key(m, members[m].instance_id), member_sort_key(m, None)),
    )


def _topic_subscribers(group: ServerGroupSpec, ordered: list[str]) -> dict[Uuid, list[str]]:
    """Each subscribed, existing topic with its subscribers in sorted order."""
    if group.subscription_type == HOMOGENEOUS:
        return {t: ordered for t in group.subscribed_topics(ordered[0])}
    return {
        topic_id: [ordered[i] for i in positions]
        for topic_id, positions in group.subscribers_by_topic(ordered).items()
    }


def assign_ranges(group: ServerGroupSpec) -> dict[str, dict[Uuid, tuple[int, ...]]]:
    """Member id -> topic id -> its contiguous range; every member present (maybe empty)."""
    result: dict[str, dict[Uuid, tuple[int, ...]]] = {m: {} for m in group.members}
    if not group.members:
        return result
    ordered = _sorted_members(group)
    for topic_id, subscribers in _topic_subscribers(group, ordered).items():
        quota, extra = divmod(group.num_partitions(topic_id), len(subscribers))
        start = 0
        for index, member_id in enumerate(subscribers):
            count = quota + 1 if index < extra else quota
            if count == 0:
                break  # members past the end get nothing
            result[member_id][topic_id] = tuple(range(start, start + count))
            start += count
    return result


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
        result = assign_ranges(group)
        return java_ordered(group, result, homogeneous=True) if java_order else result

    def build_heterogeneous(self, group: ServerGroupSpec, java_order: bool) -> BuiltAssignment:
        result = assign_ranges(group)
        return java_ordered(group, result, homogeneous=False) if java_order else result


@hookimpl
def register_strategies(registry):
    registry.add(RangeAssignor)
