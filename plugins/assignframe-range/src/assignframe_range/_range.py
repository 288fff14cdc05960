"""Java's RangeAssignor (Kafka 4.0), including KIP-881 rack-aware assignment.

Per topic, subscribers are sorted (static members first by ``group.instance.id``, then by member
id, both in Java string order) and each takes a contiguous range of partitions; the first
``P % C`` get one extra. When some subscriber has a rack and some partition's replicas are not on
every rack, a rack-matching pass runs first: topics with the same subscribers and partition count
are treated as co-partitioned (partition *i* of all of them goes to the same member, on a matching
rack where possible); other rack-sensitive topics give each member partitions on its own rack.
Whatever is left is then assigned by plain ranges, honouring the same per-member quotas.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from assignframe import Cluster, GroupSubscription, TopicPartition
from assignframe.javaorder import java_hash_order, java_member_order, java_string_key

from ._topic_state import TopicAssignmentState

__all__ = ["assign_ranges"]

Assignment = dict[str, list[TopicPartition]]


def assign_ranges(group: GroupSubscription) -> Assignment:
    """Member id -> partitions, each list in the order Java's RangeAssignor produces."""
    assignment: Assignment = {member_id: [] for member_id in group.members}
    states = _topic_states(group)
    rack_aware = any(state.needs_rack_aware_assignment for state in states)
    if rack_aware:
        _assign_with_rack_matching(states, assignment)
    for state in states:
        _assign_contiguous(state, assignment, match_racks=False)
    if rack_aware:
        # Java sorts each member's list after a rack-aware run (TopicPartitionComparator).
        for partitions in assignment.values():
            partitions.sort(key=lambda tp: (java_string_key(tp.topic), tp.partition))
    return assignment


def _topic_states(group: GroupSubscription) -> list[TopicAssignmentState]:
    members = group.members
    consumer_racks = {m.member_id: m.rack for m in members.values() if m.rack}
    ordered = java_member_order(group)
    subscribers: dict[str, list[str]] = {}
    for member in ordered:
        for topic in dict.fromkeys(member.topics):
            subscribers.setdefault(topic, []).append(member.member_id)
    counts = group.cluster.partitions_per_topic
    states = []
    for topic in _java_topic_order(group):
        if counts.get(topic, 0) <= 0:
            continue
        consumers = subscribers[topic]
        has_racks = any(c in consumer_racks for c in consumers)
        racks = _replica_racks(group.cluster, topic, counts[topic]) if has_racks else ()
        states.append(TopicAssignmentState(topic, counts[topic], consumers, consumer_racks, racks))
    return states


def _java_topic_order(group: GroupSubscription) -> list[str]:
    """Topics in the iteration order of Java's ``partitionsPerTopic`` HashMap.

    That map is filled from a HashSet of every subscribed topic, itself filled member by member in
    the iteration order of the subscriptions HashMap; bucket collisions make each order matter.
    """
    member_order = java_hash_order(group.members)
    all_topics = java_hash_order(t for m in member_order for t in group.members[m].topics)
    counts = group.cluster.partitions_per_topic
    return java_hash_order(t for t in all_topics if counts.get(t, 0) > 0)


def _replica_racks(cluster: Cluster, topic: str, partition_count: int) -> list[tuple[str, ...]]:
    known = (cluster.partition_racks or {}).get(topic, ())
    return [tuple(known[p]) if p < len(known) else () for p in range(partition_count)]


def _assign_with_rack_matching(
    states: Iterable[TopicAssignmentState], assignment: Assignment
) -> None:
    co_partitioned: dict[tuple, list[TopicAssignmentState]] = {}
    for state in states:
        co_partitioned.setdefault(state.grouping_key, []).append(state)
    for group_states in co_partitioned.values():
        if len(group_states) > 1:
            _assign_co_partitioned(group_states, assignment)
        elif group_states[0].needs_rack_aware_assignment:
            _assign_contiguous(group_states[0], assignment, match_racks=True)


def _assign_co_partitioned(states: Sequence[TopicAssignmentState], assignment: Assignment) -> None:
    """Give partition *i* of every topic to the first member that can take it on its rack.

    Applies to topics with identical subscribers and partition counts even when they are not
    rack-sensitive themselves, as Java does, so co-partitioned topics stay aligned.
    """
    remaining = dict.fromkeys(states[0].consumers)
    for partition in range(len(states[0].partition_racks)):
        consumer = next((c for c in remaining if _can_take(states, c, partition)), None)
        if consumer is None:
            continue
        for state in states:
            assignment[consumer].append(TopicPartition(state.topic, partition))
            state.on_assigned(consumer, (partition,))
        if not any(state.max_assignable(consumer) > 0 for state in states):
            del remaining[consumer]
            if not remaining:
                return


def _can_take(states: Sequence[TopicAssignmentState], consumer: str, partition: int) -> bool:
    return all(
        s.racks_match(consumer, partition) and s.max_assignable(consumer) > 0 for s in states
    )


def _assign_contiguous(
    state: TopicAssignmentState, assignment: Assignment, match_racks: bool
) -> None:
    """Each consumer in order takes its quota from the front of what is left (on its rack)."""
    for consumer in state.consumers:
        if not state.has_unassigned():
            return
        limit = state.max_assignable(consumer)
        if limit == 0:
            continue
        rack = state.consumer_racks[consumer] if match_racks else None
        chosen = state.first_unassigned(limit, rack)
        if chosen:
            assignment[consumer].extend(TopicPartition(state.topic, p) for p in chosen)
            state.on_assigned(consumer, chosen)
