"""KIP-49's greedy pass: every partition to the least-loaded member subscribed to its topic.

Most constrained topics go first (fewest subscribers; ties: more partitions first, then name),
so the members with few choices fill up before the flexible ones are spent.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence

from assignframe import GroupSubscription, TopicPartition

__all__ = ["assign_least_loaded", "member_rank"]

Assignment = dict[str, list[TopicPartition]]


def member_rank(group: GroupSubscription) -> dict[str, int]:
    """Tie-break order between equally loaded members: Java's member order
    (:meth:`GroupSubscription.member_order`: static members by instance id, then ids), so a
    restarted static member keeps its place and an unchanged group gets an unchanged assignment.
    """
    return {member_id: rank for rank, member_id in enumerate(group.member_order())}


def assign_least_loaded(
    group: GroupSubscription, subscribers: Mapping[str, Sequence[str]], rank: dict[str, int]
) -> Assignment:
    """Member id -> partitions, topics taken most-constrained first.

    :param subscribers: topic -> subscribed member ids (``group.subscribers_by_topic()``)
    :param rank: member id -> tie-break rank among equally loaded members
    """
    assignment: Assignment = {member_id: [] for member_id in group.members}
    counts = group.cluster.partitions_per_topic
    for topic in sorted(subscribers, key=lambda t: (len(subscribers[t]), -counts[t], t)):
        _deal_to_least_loaded(topic, counts[topic], subscribers[topic], rank, assignment)
    return assignment


def _deal_to_least_loaded(
    topic: str,
    partition_count: int,
    members: Sequence[str],
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
