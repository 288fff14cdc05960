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

import collections
import functools
import itertools
from collections.abc import Callable, Iterable
from typing import Any

from assignframe import ServerGroupSpec
from assignframe.javaorder import AssignmentEdits, Uuid

from ._balancer import MemberBalancer

__all__ = ["build_heterogeneous"]

MAX_BALANCING_PASSES = 16
UNOWNED = -1

# Runs an iterator to its end, keeping nothing (a C-level loop).
_consume: Callable[[Iterable[Any]], None] = collections.deque(maxlen=0).extend


@functools.lru_cache(maxsize=64)
def _singles(count: int) -> tuple[tuple[int], ...]:
    """``(0,), (1,), ... (count - 1,)``: one-partition tuples, shared by every result."""
    return tuple((p,) for p in range(count))


class _Builder:
    """The builder's state; with ``java_order``, each member's map edits are also logged in
    order (:class:`~assignframe.javaorder.AssignmentEdits`) to give Java's result order.

    Who holds what is kept once, as each topic's owner per partition (and each member's count):
    the members' maps are made at the end from the owners. No set per member and topic is built
    and edited on the way (50,000 of them in a group of 1,000 members on 500 topics each), which
    was most of the call's allocations: memory the interpreter asks the system for afresh on every
    call, and containers the cyclic collector scans again and again while they live.
    """

    def __init__(self, group: ServerGroupSpec, java_order: bool = False) -> None:
        self.group = group
        self.member_ids = list(group.member_ids())
        self.sizes = [0] * len(self.member_ids)
        subscribers = group.subscribers_by_topic(self.member_ids)  # ascending numbers
        self.subscribers = subscribers
        self.counts = {t: group.num_partitions(t) for t in self.subscribers}
        self.owners = {t: [UNOWNED] * n for t, n in self.counts.items()}
        #: (member number, topic id) of current topics kept with no partitions (Java keeps them)
        self.kept_empty: list[tuple[int, Uuid]] = []
        self.edits: list[AssignmentEdits] | None = (
            [AssignmentEdits(group.members[m].current) for m in self.member_ids]
            if java_order
            else None
        )

    def topic_key(self, topic_id: Uuid) -> tuple[float, int, Uuid]:
        subscribers = len(self.subscribers[topic_id])
        return (-(self.counts[topic_id] / subscribers), subscribers, topic_id)

    def keep_current(self) -> None:
        """Keep current partitions of subscribed topics; drop the rest (whole topics)."""
        group = self.group
        for index, member_id in enumerate(self.member_ids):
            for topic_id, partitions in group.members[member_id].current:
                if not group.is_subscribed(member_id, topic_id):
                    if self.edits is not None:
                        self.edits[index].drop_topic(topic_id)
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
                if not partitions:
                    self.kept_empty.append((index, topic_id))

    def assign_unowned(self) -> None:
        balancer = MemberBalancer(self.sizes)
        for topic_id in sorted(self.subscribers, key=self.topic_key):
            free = [p for p, owner in enumerate(self.owners[topic_id]) if owner == UNOWNED]
            if not free:
                continue
            balancer.initialize(self.subscribers[topic_id])
            if self.edits is not None:
                for p in free:
                    self.move(topic_id, p, balancer.next_least_loaded())
            else:
                self.give_unowned(topic_id, free, balancer.least_loaded(len(free)))

    def give_unowned(self, topic_id: Uuid, free: list[int], receivers: list[int]) -> None:
        """:meth:`move` of each unowned partition in ``free`` to its receiver, in C-level loops
        but the sizes'."""
        if len(free) != len(receivers):
            raise ValueError(f"{len(free)} partitions for {len(receivers)} receivers")
        _consume(map(self.owners[topic_id].__setitem__, free, receivers))
        sizes = self.sizes
        for member in receivers:
            sizes[member] += 1

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
        if self.edits is not None:
            self.log_move(topic_id, partition, previous, member)
        if previous != UNOWNED:
            self.sizes[previous] -= 1
        owners[partition] = member
        self.sizes[member] += 1

    def log_move(self, topic_id: Uuid, partition: int, previous: int, member: int) -> None:
        assert self.edits is not None
        if previous != UNOWNED:
            self.edits[previous].remove(topic_id, partition)
        # A topic new to a member gets a set sized for the topic's partitions per subscriber.
        subscribers = len(self.subscribers[topic_id])
        estimate = (self.counts[topic_id] + subscribers - 1) // subscribers
        self.edits[member].add(topic_id, partition, estimate * 4 // 3 + 1)

    def result(self) -> dict[str, dict[Uuid, tuple[int, ...]]]:
        """Member id -> topic id -> ascending partitions (every member, maybe with nothing)."""
        maps: list[dict[Uuid, tuple[int, ...]]] = [{} for _ in self.member_ids]
        for index, topic_id in self.kept_empty:
            maps[index][topic_id] = ()  # may get partitions below
        for topic_id, owners in self.owners.items():
            if len(set(owners)) == len(owners):
                # Every partition to a different member (the usual spread): one C-level loop
                # over shared one-partition tuples.
                _consume(map(
                    dict.__setitem__,
                    map(maps.__getitem__, owners),
                    itertools.repeat(topic_id),
                    _singles(len(owners)),
                ))
                continue
            held: dict[int, list[int]] = {}
            for partition, owner in enumerate(owners):
                held.setdefault(owner, []).append(partition)
            for owner, partitions in held.items():
                maps[owner][topic_id] = tuple(partitions)
        return dict(zip(self.member_ids, maps, strict=True))

    def java_ordered(self) -> dict[str, dict[Uuid, tuple[int, ...]]]:
        """The result in Java's map order: an untouched member keeps its current map object."""
        assert self.edits is not None, "built without java_order"
        return {
            # edits.current is the member's ServerMember.current: tuples of partitions
            member_id: edits.java_order(drop_emptied=True)
            if edits.log
            else dict(edits.current)  # type: ignore[arg-type]
            for member_id, edits in zip(self.member_ids, self.edits, strict=True)
        }


def build_heterogeneous(group: ServerGroupSpec, java_order: bool = False) -> _Builder | None:
    """The finished builder (None when nobody subscribes to an existing topic)."""
    builder = _Builder(group, java_order)
    if not builder.subscribers:
        return None
    builder.keep_current()
    builder.assign_unowned()
    builder.balance()
    return builder
