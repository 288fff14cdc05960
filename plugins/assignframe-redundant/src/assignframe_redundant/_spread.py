"""Give every partition to N distinct subscribers, always the N least loaded.

Topics with the fewest subscribers go first (ties: more partitions first, then name), as in
KIP-49's fair assignor, so members with few choices are served before flexible ones are spent.
Popping N entries from a heap of (load, rank) yields N *distinct* members, which is what makes
the copies of one partition land on different members.
"""

from __future__ import annotations

import heapq

from assignframe import GroupSubscription, TopicPartition

__all__ = ["assign_replicated"]

Assignment = dict[str, list[TopicPartition]]


def assign_replicated(group: GroupSubscription, replicas: int) -> Assignment:
    """Member id -> partitions (sorted), each partition owned by min(replicas, subscribers)."""
    rank = {member_id: index for index, member_id in enumerate(group.member_order())}
    assignment: Assignment = {member_id: [] for member_id in group.members}
    subscribers = group.subscribers_by_topic()
    counts = group.cluster.partitions_per_topic
    for topic in sorted(subscribers, key=lambda t: (len(subscribers[t]), -counts[t], t)):
        _deal_copies(topic, counts[topic], subscribers[topic], replicas, rank, assignment)
    return {member_id: sorted(partitions) for member_id, partitions in assignment.items()}


def _deal_copies(
    topic: str,
    partition_count: int,
    members: list[str],
    replicas: int,
    rank: dict[str, int],
    assignment: Assignment,
) -> None:
    copies = min(replicas, len(members))
    heap = [(len(assignment[m]), rank[m], m) for m in members]
    heapq.heapify(heap)
    for partition in range(partition_count):
        owners = [heapq.heappop(heap) for _ in range(copies)]
        for load, member_rank, member_id in owners:
            assignment[member_id].append(TopicPartition(topic, partition))
            heapq.heappush(heap, (load + 1, member_rank, member_id))
