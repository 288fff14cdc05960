"""``SimpleHeterogeneousAssignmentBuilder``: a share group whose members subscribe differently.

Each subscribed topic is balanced on its own, in the iteration order of Java's
``HashSet<Uuid>`` of all subscribed topics, among its subscribers (ascending member number):
``ceil(S / T)`` owners per partition, the k-th subscriber wants ``ceil(x*(k+1)) - ceil(x*k)``.
Members that do not subscribe want 0 and lose what they hold of it. Topics nobody subscribes to
any more are never visited, so their partitions stay where they are (Java's behaviour).
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
    uuid_hash,
)
from assignframe.server_assignor import BuiltAssignment

from ._common import (
    MemberAssignments,
    assign_remaining,
    built_result,
    desired_counts,
    desired_sharing,
)

__all__ = ["assign_heterogeneous", "topic_subscribers"]


def _int_set(_key: object) -> JavaHashSet[int]:
    return JavaHashSet(java_int_hash)


class _TopicBuilder:
    """``TopicAssignmentPartialBuilder``: one topic, editing the shared member assignments."""

    def __init__(
        self,
        topic_id: Uuid,
        targets: list[int],
        subscribers: list[int],
        current: list[tuple[tuple[Uuid, tuple[int, ...]], ...]],
        new: MemberAssignments,
    ) -> None:
        self.topic_id = topic_id
        self.targets = targets
        self.subscribers = subscribers
        self.current = current
        self.new = new
        self.by_partition: JavaHashMap[int, JavaHashSet[int]] = JavaHashMap(
            java_int_hash, assignor_helpers_capacity(len(targets))
        )
        self.by_member: JavaHashMap[int, JavaHashSet[int]] = JavaHashMap(
            java_int_hash, assignor_helpers_capacity(len(subscribers))
        )
        self.sharing = desired_sharing(len(subscribers), len(targets))
        self.desired = [0] * len(current)
        for k, want in enumerate(desired_counts(len(subscribers), len(targets))):
            self.desired[subscribers[k]] = want

    def _new_of(self, member: int) -> AssignmentEdits:
        if member not in self.new:
            self.new[member] = AssignmentEdits(self.current[member])
        return self.new[member]

    def build(self) -> None:
        self.collect_current()
        self.revoke_overfilled()
        self.revoke_overshared()
        capacity = assignor_helpers_capacity(len(self.subscribers))
        for p in self.targets:
            self.by_partition.compute_if_absent(p, lambda _: JavaHashSet(java_int_hash, capacity))
        unfilled = {
            m for m in self.subscribers if len(self.by_member.get(m) or ()) < self.desired[m]
        }
        assign_remaining(self.by_partition, unfilled, self.sharing, self._give)

    def collect_current(self) -> None:
        for member, current in enumerate(self.current):
            partitions = dict(current).get(self.topic_id)
            for p in partitions or ():
                self.by_partition.compute_if_absent(p, _int_set).add(member)
                self.by_member.compute_if_absent(member, _int_set).add(p)

    def revoke_overfilled(self) -> None:
        for member, held in self.by_member.items():
            for p in held.keys():
                if len(held) <= self.desired[member]:
                    break
                self.by_partition[p].remove(member)
                held.remove(p)
                self._new_of(member).remove(self.topic_id, p)

    def revoke_overshared(self) -> None:
        for p, owners in self.by_partition.items():
            count = len(owners)
            if count <= self.sharing:
                continue
            for member in owners.keys():
                if self._new_of(member).remove(self.topic_id, p):
                    count -= 1
                    owners.remove(member)
                    self.by_member[member].remove(p)
                if count <= self.sharing:
                    break

    def _give(self, member: int, partition: int) -> bool:
        self._new_of(member).add(self.topic_id, partition)
        held = self.by_member.compute_if_absent(member, _int_set)
        held.add(partition)
        return len(held) >= self.desired[member]


def topic_subscribers(group: ServerGroupSpec) -> dict[Uuid, list[int]]:
    """Each subscribed topic (in the order of Java's ``HashSet<Uuid>`` filled member by member)
    with its subscribers' numbers, ascending."""
    topics: JavaHashSet[Uuid] = JavaHashSet(uuid_hash)
    subscribers: dict[Uuid, list[int]] = {}
    for index, member_id in enumerate(group.member_ids()):
        for topic_id in group.subscribed_topic_ids(member_id):
            topics.add(topic_id)
            subscribers.setdefault(topic_id, []).append(index)
    return {topic_id: subscribers[topic_id] for topic_id in topics.keys()}


def assign_heterogeneous(group: ServerGroupSpec, java_order: bool = False) -> BuiltAssignment:
    """Member id -> topic id -> partitions (empty when nobody subscribes to an existing topic);
    with ``java_order``, each member's map in Java's iteration order."""
    member_ids = group.member_ids()
    subscribers = topic_subscribers(group)
    if not subscribers:
        return {}
    current = [group.members[m].current for m in member_ids]
    new: MemberAssignments = {}
    for topic_id in subscribers:
        targets = [
            p
            for p in range(group.num_partitions(topic_id))
            if group.is_partition_assignable(topic_id, p)
        ]
        _TopicBuilder(topic_id, targets, subscribers[topic_id], current, new).build()
    return built_result(member_ids, current, new, java_order)
