"""KIP-49's greedy pass: every partition to the least-loaded member subscribed to its topic.

Most constrained topics go first (fewest subscribers; ties: more partitions first, then name),
so the members with few choices fill up before the flexible ones are spent.
"""

from __future__ import annotations

import heapq

from assignframe import GroupSubscription, Member, TopicPartition

__all__ = ["assign_least_loaded", "member_rank", "subscribers_by_topic"]

Assignment = dict[str, list[TopicPartition]]


def member_rank(group: GroupSubscription) -> dict[str, int]:
    """Tie-break order between equally loaded members: static members by instance id, then ids.

    Ranking static members by ``group.instance.id`` keeps a restarted member (new member id, same
    instance id) in its place, so an unchanged group gets an unchanged assignment.
    """

    def key(member: Member) -> tuple[int, str]:
        if member.group_instance_id is not None:
            return (0, member.group_instance_id)
        return (1, member.member_id)

    ordered = sorted(group.members.values(), key=key)
    return {member.member_id: rank for rank, member in enumerate(ordered)}


def assign_least_loaded(
    group: GroupSubscription, subscribers: dict[str, list[str]], rank: dict[str, int]
) -> Assignment:
    """Member id -> partitions, topics taken most-constrained first.

    :param subscribers: topic -> subscribed member ids (see :func:`subscribers_by_topic`)
    :param rank: member id -> tie-break rank among equally loaded members
    """
    assignment: Assignment = {member_id: [] for member_id in group.members}
    counts = group.cluster.partitions_per_topic
    for topic in sorted(subscribers, key=lambda t: (len(subscribers[t]), -counts[t], t)):
        _deal_to_least_loaded(topic, counts[topic], subscribers[topic], rank, assignment)
    return assignment


def subscribers_by_topic(group: GroupSubscription, rank: dict[str, int]) -> dict[str, list[str]]:
    """Topics that exist and have partitions -> subscribed member ids, in rank order."""
    counts = group.cluster.partitions_per_topic
    subscribers: dict[str, list[str]] = {}
    for member in sorted(group.members.values(), key=lambda m: rank[m.member_id]):
        for topic in dict.fromkeys(member.topics):
            if counts.get(topic, 0) > 0:
                subscribers.setdefault(topic, []).append(member.member_id)
    return subscribers


def _deal_to_least_loaded(
    topic: str,
    partition_count: int,
    members: list[str],
    rank: dict[str, int],
    assignment: Assignment,
) -> None:
    # A fresh heap per topic costs O(subscribers) and sees current loads, so no stale entries.
    heap = [(len(assignment[m]), rank[m], m) for m in members]
    heapq.heapify(heap)
    for partition in range(partition_count):
        load, member_rank_, member_id = heap[0]
        assignment[member_id].append(TopicPartition(topic, partition))
        heapq.heapreplace(heap, (load + 1, member_rank_, member_id))
