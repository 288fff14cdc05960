"""Exact optimality on small groups: balance, then the most partitions kept, checked against an
exhaustive search written here (independent of the plugin's flow model).

For each random group (random subscriptions, random prior ownership) every valid assignment is
enumerated: each partition to one of its subscribers. Ours must reach the best balance (the
least sum of squared loads, which also gives the least KIP-54 score of all load vectors that
are "balanced" in the chain-of-moves sense), and among all assignments with our exact load
multiset it must put the fewest partitions on a member whose rack holds no replica (when racks
apply, by Java's rule) and, among those, keep the most partitions with their previous owners:
first those on their owner's rack, then any (Java releases an owned partition off its owner's
rack before it keeps anything, so such a partition never costs one on the rack).
"""

from __future__ import annotations

import os
from itertools import product

from assignframe_sticky import CooperativeStickyStrategy, StickyStrategy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import _rack_aware, rack_mismatches, settled, sticky_member

from assignframe import Cluster, GroupSubscription

# ASSIGNFRAME_STICKY_OPTIMAL=5000 for a long hunt
SETTINGS = settings(
    max_examples=int(os.environ.get("ASSIGNFRAME_STICKY_OPTIMAL", "1000")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TOPICS = ("a", "b", "c")


@st.composite
def small_groups(draw):
    """Up to 4 members, 3 topics, 7 partitions; each partition owned before by one of its
    subscribers or by nobody (a member that left, or a new partition)."""
    counts = {t: draw(st.integers(0, 3)) for t in TOPICS}
    while sum(counts.values()) > 7:
        counts[max(counts, key=counts.get)] -= 1
    members = [f"m{i}" for i in range(draw(st.integers(1, 4)))]
    topics = {m: tuple(sorted(draw(st.sets(st.sampled_from(TOPICS), min_size=1)))) for m in members}
    owners = {}
    for topic, count in counts.items():
        subscribers = [m for m in members if topic in topics[m]]
        for partition in range(count):
            owner = draw(st.sampled_from([None, *subscribers]))
            if owner is not None:
                owners[topic, partition] = owner
    racks = None
    if draw(st.booleans()):
        member_racks = {m: draw(st.sampled_from([None, "r1", "r2"])) for m in members}
        replicas = {
            t: tuple(
                tuple(sorted(draw(st.sets(st.sampled_from(["r1", "r2", "r3"]), max_size=2))))
                for _ in range(counts[t])
            )
            for t in TOPICS
        }
        racks = (member_racks, replicas)
    return counts, topics, owners, racks


def _group(counts, topics, owners, cooperative: bool, racks=None) -> GroupSubscription:
    strategy = CooperativeStickyStrategy() if cooperative else StickyStrategy()
    member_racks, replicas = racks if racks else ({}, None)
    members = {
        member_id: sticky_member(
            strategy,
            member_id,
            subscribed,
            sorted(tp for tp, owner in owners.items() if owner == member_id),
            1,
            member_racks.get(member_id),
        )
        for member_id, subscribed in topics.items()
    }
    return GroupSubscription(members, Cluster(counts, replicas), 2)


def exhaustive_optimum(group, owners) -> tuple[int, dict[tuple[int, ...], tuple[int, ...]]]:
    """The least sum of squared loads over every valid assignment, and per sorted load vector
    the best (fewest off-rack, then most kept on the rack, then most kept) as
    ``(off-rack, -kept on the rack, -kept)``."""
    topics = {m: x.topics for m, x in group.members.items()}
    counts = group.cluster.partitions_per_topic
    members = sorted(topics)
    subscribed = {t for m in members for t in topics[m]}
    partitions = [(t, p) for t in TOPICS if t in subscribed for p in range(counts.get(t, 0))]
    choices = [[m for m in members if tp[0] in topics[m]] for tp in partitions]
    off_rack = _off_rack_table(group, partitions)
    least = None
    best: dict[tuple[int, ...], tuple[int, ...]] = {}
    for pick in product(*choices):
        loads = dict.fromkeys(members, 0)
        for member in pick:
            loads[member] += 1
        vector = tuple(sorted(loads.values()))
        squares = sum(v * v for v in vector)
        least = squares if least is None else min(least, squares)
        score = _score(zip(partitions, pick, strict=True), owners, off_rack)
        best[vector] = min(best.get(vector, score), score)
    return least or 0, best


def _score(placed, owners, off_rack) -> tuple[int, int, int]:
    """``(off-rack, -kept on the owner's rack, -kept)`` of (partition, member) pairs."""
    misplaced = on_rack = kept = 0
    for tp, member in placed:
        off = off_rack.get((tp, member), 0)
        misplaced += off
        if owners.get(tp) == member:
            kept += 1
            on_rack += not off
    return misplaced, -on_rack, -kept


def _off_rack_table(group, partitions) -> dict:
    """(partition, member) -> 1 where the member's rack holds no replica, when racks apply."""
    replicas = group.cluster.partition_racks
    if not replicas or not _rack_aware(group):
        return {}
    return {
        ((t, p), m): 1
        for (t, p) in partitions
        for m, x in group.members.items()
        if x.rack and x.rack not in replicas[t][p]
    }


@SETTINGS
@given(case=small_groups(), cooperative=st.booleans())
def test_balance_then_racks_then_most_kept_is_the_exact_optimum(case, cooperative):
    counts, topics, owners, racks = case
    strategy = CooperativeStickyStrategy() if cooperative else StickyStrategy()
    group = _group(counts, topics, owners, cooperative, racks)
    assignment = settled(strategy, group)
    loads = {m: len(assignment.partitions_of(m)) for m in topics}
    vector = tuple(sorted(loads.values()))
    placed = [((tp.topic, tp.partition), m) for m in topics for tp in assignment.partitions_of(m)]
    score = _score(placed, owners, _off_rack_table(group, [tp for tp, _ in placed]))
    least, best = exhaustive_optimum(group, owners)
    assert sum(v * v for v in vector) == least, f"not the best balance: {loads}"
    assert score[0] == rack_mismatches(group, assignment)
    assert score == best[vector], best
