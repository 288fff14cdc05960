"""``SimpleHomogeneousAssignmentBuilder``: a share group whose members subscribe alike.

Target partitions: the assignable partitions of the first member's topics (in its
``subscribedTopicIds()`` order), ascending within a topic. Each partition wants
``ceil(M / T)`` owners, member ``i`` wants ``ceil(x*(i+1)) - ceil(x*i)`` partitions. Members keep
their current partitions of subscribed topics, then over-filled members give partitions up,
over-shared partitions lose owners (over-filled members first), and the partitions still short of
owners go to unfilled members. Which partition or member goes first follows the
iteration order of Java's hash tables, replayed with :mod:`assignframe.javaorder`.
"""

from __future__ import annotations

from assignframe import ServerGroupSpec
from assignframe.javaorder import (
    AssignmentEdits,
    JavaHashMap,
    JavaHashSet,
    Uuid,
    assignor_helpers_capacity,
    java_int_hash,
    topic_id_partition_hash,
)
from assignframe.server_assignor import BuiltAssignment

from ._common import (
    MemberAssignments,
    assign_remaining,
    built_result,
    desired_counts,
    desired_sharing,
)

__all__ = ["assign_homogeneous"]

TopicIdPartition = tuple[Uuid, int]


class _Builder:
    def __init__(self, group: ServerGroupSpec) -> None:
        self.group = group
        self.member_ids = group.member_ids()
        self.first = self.member_ids[0]
        self.topics = group.subscribed_topic_ids(self.first)
        self.targets: list[TopicIdPartition] = [
            (t, p)
            for t in self.topics
            for p in range(group.num_partitions(t))
            if group.is_partition_assignable(t, p)
        ]
        count = len(self.member_ids)
        self.sharing = desired_sharing(count, len(self.targets))
        self.desired = desired_counts(count, len(self.targets))
        self.current = [group.members[m].current for m in self.member_ids]
        self.new: MemberAssignments = {}
        self.by_partition: JavaHashMap[TopicIdPartition, JavaHashSet[int]] = JavaHashMap(
            topic_id_partition_hash, assignor_helpers_capacity(len(self.targets))
        )
        self.by_member: dict[int, JavaHashSet[TopicIdPartition]] = {}
        self.unfilled: set[int] = set()
        self.overfilled: set[int] = set()

    def _new_of(self, member: int) -> AssignmentEdits:
        if member not in self.new:
            self.new[member] = AssignmentEdits(self.current[member])
        return self.new[member]

    def _held_by(self, member: int) -> JavaHashSet[TopicIdPartition]:
        held = self.by_member.get(member)
        if held is None:
            held = self.by_member[member] = JavaHashSet(topic_id_partition_hash)
        return held

    def keep_current(self) -> None:
        """Count what each member holds of subscribed topics; drop the other topics."""
        for member, current in enumerate(self.current):
            held = 0
            for topic_id, partitions in current:
                if not self.group.is_subscribed(self.first, topic_id):
                    self._new_of(member).drop_topic(topic_id)
                    continue
                for p in partitions:
                    held += 1
                    self.by_partition.compute_if_absent((topic_id, p), _int_set).add(member)
                    self._held_by(member).add((topic_id, p))
                    if held >= self.desired[member]:
                        self._new_of(member)
            if held < self.desired[member]:
                self.unfilled.add(member)
            elif held > self.desired[member]:
                self.overfilled.add(member)

    def revoke_overshared(self) -> None:
        """Partitions with more owners than wanted lose owners, in owner-set order."""
        for partition, owners in self.by_partition.items():
            count = len(owners)
            if count <= self.sharing:
                continue
            topic_id, p = partition
            for member in owners.keys():
                if self._new_of(member).remove(topic_id, p):
                    count -= 1
                    owners.remove(member)
                    self.by_member[member].remove(partition)
                    self.unfilled.add(member)
                if count <= self.sharing:
                    break

    def revoke_overfilled(self) -> None:
        for member in sorted(self.overfilled):
            held = self.by_member[member]
            if len(held) <= self.desired[member]:
                continue
            for partition in held.keys():
                self.by_partition[partition].remove(member)
                held.remove(partition)
                self._new_of(member).remove(*partition)
                if len(held) == self.desired[member]:
                    break
        # Trimmed to their target, they no longer count as over-filled when over-shared
        # partitions pick whom to take from (Java's preference for over-filled members then
        # never applies: the golden crafted rounds show it).
        self.overfilled.clear()

    def assign_rest(self) -> None:
        for partition in self.targets:
            self.by_partition.compute_if_absent(partition, _int_set)
        assign_remaining(self.by_partition, self.unfilled, self.sharing, self._give)

    def _give(self, member: int, partition: TopicIdPartition) -> bool:
        self._new_of(member).add(*partition)
        held = self._held_by(member)
        held.add(partition)
        return len(held) >= self.desired[member]


def _int_set(_key: object) -> JavaHashSet[int]:
    return JavaHashSet(java_int_hash)


def assign_homogeneous(group: ServerGroupSpec, java_order: bool = False) -> BuiltAssignment:
    """Member id -> topic id -> partitions; empty (every member left out) when the first member
    subscribes to nothing. Java asks ``subscribedTopicIds().isEmpty()``, which counts names of
    missing topics: a group subscribed only to missing topics gets every member, with nothing."""
    builder = _Builder(group)
    if not group.subscribed_name_count(builder.first):
        return {}
    builder.keep_current()
    builder.revoke_overfilled()
    builder.revoke_overshared()
    builder.assign_rest()
    return built_result(builder.member_ids, builder.current, builder.new, java_order)
