"""Java's RoundRobinAssignor: one circular walk over the sorted members for all partitions.

Partitions of every subscribed topic are laid out in (topic, partition) order, topics in Java
string order. A pointer circles the sorted members; each partition goes to the next member at or
after the pointer that subscribes to its topic, and the pointer moves past that member.
"""

from __future__ import annotations

from bisect import bisect_left

from assignframe import GroupSubscription, TopicPartition
from assignframe.javaorder import java_member_order, java_string_key

__all__ = ["assign_round_robin"]


def assign_round_robin(group: GroupSubscription) -> dict[str, list[TopicPartition]]:
    """Member id -> partitions, each list in the order Java's RoundRobinAssignor produces."""
    assignment: dict[str, list[TopicPartition]] = {member_id: [] for member_id in group.members}
    ring = java_member_order(group)
    positions = _subscriber_positions(ring)
    counts = group.cluster.partitions_per_topic
    pointer = 0
    for topic in sorted(positions, key=java_string_key):
        partition_count = counts.get(topic, 0)
        if partition_count <= 0:
            continue
        pointer = _deal_topic(topic, partition_count, positions[topic], pointer, ring, assignment)
    return assignment


def _subscriber_positions(ring: list) -> dict[str, list[int]]:
    """Topic -> ascending ring positions of its subscribers."""
    positions: dict[str, list[int]] = {}
    for index, member in enumerate(ring):
        for topic in dict.fromkeys(member.topics):
            positions.setdefault(topic, []).append(index)
    return positions


def _deal_topic(
    topic: str,
    partition_count: int,
    subscribers: list[int],
    pointer: int,
    ring: list,
    assignment: dict[str, list[TopicPartition]],
) -> int:
    """Deal one topic's partitions; returns the pointer for the next topic.

    Skipping non-subscribers one by one (as Java does) costs O(members) per partition; jumping to
    the next subscriber position with a binary search gives the same result in O(1) amortized.
    """
    first = bisect_left(subscribers, pointer) % len(subscribers)
    for partition in range(partition_count):
        position = subscribers[(first + partition) % len(subscribers)]
        assignment[ring[position].member_id].append(TopicPartition(topic, partition))
    last = subscribers[(first + partition_count - 1) % len(subscribers)]
    return (last + 1) % len(ring)
