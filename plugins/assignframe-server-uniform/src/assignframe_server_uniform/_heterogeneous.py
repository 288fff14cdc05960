"""``UniformHeterogeneousAssignmentBuilder``: members subscribe to different topics.

Members are numbered in Java's member order; every tie between members goes to the lower
number. Current partitions of still-subscribed topics are all kept (no quota cut); the other
partitions go, topic by topic, to the least loaded subscribers. Topics are processed by
partitions per subscriber (descending), subscriber count (ascending), topic id (``Uuid`` order).
Then up to 16 balancing passes over the topics with two or more subscribers move partitions from
the most to the least loaded subscribers of each topic: a topic counts as balanced when its own
subscribers differ by at most one, so overlapping subscriptions can stay "almost balanced".
"""

from __future__ import annotations

from assignframe import ServerGroupSpec
from assignframe.javaorder import Uuid

from ._balancer import MemberBalancer

__all__ = ["assign_heterogeneous", "build_heterogeneous"]

MAX_BALANCING_PASSES = 16
UNOWNED = -1


class _Builder:
    """The builder's state; with ``log``, it also notes each member's map operations in order
    (for :mod:`._java_order`): ``(True, topic, p)`` added, ``(False, topic, p)`` removed."""

    def __init__(self, group: ServerGroupSpec, log: bool = False) -> None:
        self.group = group
        self.member_ids = list(group.member_ids())
        self.sizes = [0] * len(self.member_ids)
        subscribers = group.subscribers_by_topic(self.member_ids)  # ascending numbers
        self.subscribers = subscribers
        self.counts = {t: group.num_partitions(t) for t in self.subscribers}
        self.owners = {t: [UNOWNED] * n for t, n in self.counts.items()}
        self.assignment: list[dict[Uuid, set[int]]] = []
        self.log: list[list[tuple[bool, Uuid, int]]] | None = (
            [[] for _ in self.member_ids] if log else None
        )
        self.dropped_topics = [False] * len(self.member_ids)

    def topic_key(self, topic_id: Uuid) -> tuple[float, int, Uuid]:
        subscribers = len(self.subscribers[topic_id])
        return (-(self.counts[topic_id] / subscribers), subscribers, topic_id)

    def keep_current(self) -> None:
        """Keep current partitions of subscribed topics; drop the rest (whole topics)."""
        group = self.group
        for index, member_id in enumerate(self.member_ids):
            kept: dict[Uuid, set[int]] = {}
            for topic_id, partitions in group.members[member_id].current:
                if not group.is_subscribed(member_id, topic_id):
                    self.dropped_topics[index] = True
                    continue
                owners = self.owners[topic_id]
                for p in partitions:
                    if not 0 <= p < len(owners):
                        raise ValueError(
                            f"member {member_id!r} holds partition {p} of topic {topic_id}, "
                            f"which has {len(owners)} partitions"
                        )
                    owners[p] = index
                self.sizes[index] += len(partitions)
                kept[topic_id] = set(partitions)
            self.assignment.append(kept)

    def assign_unowned(self) -> None:
        balancer = MemberBalancer(self.sizes)
        for topic_id in sorted(self.subscribers, key=self.topic_key):
            free = [p for p, owner in enumerate(self.owners[topic_id]) if owner == UNOWNED]
            if not free:
                continue
            balancer.initialize(self.subscribers[topic_id])
            for p in free:
                self.move(topic_id, p, balancer.next_least_loaded())

    def balance(self) -> None:
        topics = sorted((t for t, s in self.subscribers.items() if len(s) >= 2), key=self.topic_key)
        if not topics:
            return
        balancer = MemberBalancer(self.sizes)
        last_rebalanced = -1
        for _ in range(MAX_BALANCING_PASSES):
            for index, topic_id in enumerate(topics):
                if index == last_rebalanced:
                    return  # a whole loop over the topics without a move
                moved = self.balance_topic(topic_id, balancer)
                if moved or last_rebalanced == -1:
                    last_rebalanced = index

    def balance_topic(self, topic_id: Uuid, balancer: MemberBalancer) -> int:
        if balancer.initialize(self.subscribers[topic_id]) <= 1:
            return 0
        owners = self.owners[topic_id]
        by_owner = sorted(range(len(owners)), key=lambda p: (owners[p], p))
        start: dict[int, int] = {}
        end: dict[int, int] = {}
        for position, p in enumerate(by_owner):
            start.setdefault(owners[p], position)
            end[owners[p]] = position + 1
        moved = 0
        while not balancer.is_balanced():
            giver = balancer.next_most_loaded()
            while giver != -1 and end.get(giver, 0) - start.get(giver, 0) <= 0:
                balancer.exclude_most_loaded()
                giver = balancer.next_most_loaded()
            if giver == -1:
                break
            end[giver] -= 1
            partition = by_owner[end[giver]]
            taker = balancer.next_least_loaded()
            if balancer.is_balanced():
                break
            self.move(topic_id, partition, taker)
            moved += 1
        return moved

    def move(self, topic_id: Uuid, partition: int, member: int) -> None:
        owners = self.owners[topic_id]
        previous = owners[partition]
        if self.log is not None:
            if previous != UNOWNED:
                self.log[previous].append((False, topic_id, partition))
            self.log[member].append((True, topic_id, partition))
        if previous != UNOWNED:
            held = self.assignment[previous].get(topic_id)
            if held is not None:
                held.discard(partition)
                if not held:
                    del self.assignment[previous][topic_id]
            self.sizes[previous] -= 1
        self.assignment[member].setdefault(topic_id, set()).add(partition)
        owners[partition] = member
        self.sizes[member] += 1


def build_heterogeneous(group: ServerGroupSpec, log: bool = False) -> _Builder | None:
    """The finished builder (None when nobody subscribes to an existing topic)."""
    builder = _Builder(group, log)
    if not builder.subscribers:
        return None
    builder.keep_current()
    builder.assign_unowned()
    builder.balance()
    return builder


def assign_heterogeneous(group: ServerGroupSpec) -> dict[str, dict[Uuid, tuple[int, ...]]]:
    """Member id -> topic id -> partitions (empty when nobody subscribes to an existing topic)."""
    builder = build_heterogeneous(group)
    if builder is None:
        return {}
    return {
        member_id: {t: tuple(sorted(ps)) for t, ps in builder.assignment[i].items()}
        for i, member_id in enumerate(builder.member_ids)
    }
