"""Give every partition to N distinct subscribers, always the N least loaded.

Topics with the fewest subscribers go first (ties: more partitions first, then name), as in
KIP-49's fair assignor, so members with few choices are served before flexible ones are spent.
Popping N entries from a heap of (load, rank) yields N *distinct* members, which is what makes
the copies of one partition land on different members.
"""

from __future__ import annotations

import heapq

from assignframe import GroupSubscription, Member, TopicPartition

__all__ = ["assign_replicated"]

Assignment = dict[str, list[TopicPartition]]


def assign_replicated(group: GroupSubscription, replicas: int) -> Assignment:
    """Member id -> partitions (sorted), each partition owned by min(replicas, subscribers)."""
    rank = _rank(group)
    assignment: Assignment = {member_id: [] for member_id in group.members}
    subscribers = _subscribers_by_topic(group, rank)
    counts = group.cluster.partitions_per_topic
    for topic in sorted(subscribers, key=lambda t: (len(subscribers[t]), -counts[t], t)):
        _deal_copies(topic, counts[topic], subscribers[topic], replicas, rank, assignment)
    return {member_id: sorted(partitions) for member_id, partitions in assignment.items()}


def _rank(group: GroupSubscription) -> dict[str, int]:
    # Static members rank by group.instance.id so a restart (new member id) keeps its partitions.
    def key(member: Member) -> tuple[int, str]:
        if member.group_instance_id is not None:
            return (0, member.group_instance_id)
        return (1, member.member_id)

    ordered = sorted(group.members.values(), key=key)
    return {member.member_id: index for index, member in enumerate(ordered)}


def _subscribers_by_topic(group: GroupSubscription, rank: dict[str, int]) -> dict[str, list[str]]:
    counts = group.cluster.partitions_per_topic
    subscribers: dict[str, list[str]] = {}
    for member in sorted(group.members.values(), key=lambda m: rank[m.member_id]):
        for topic in dict.fromkeys(member.topics):
            if counts.get(topic, 0) > 0:
                subscribers.setdefault(topic, []).append(member.member_id)
    return subscribers


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
