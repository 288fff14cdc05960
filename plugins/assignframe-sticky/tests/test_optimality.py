"""Exact optimality on small groups: balance, then the most partitions kept, checked against an
exhaustive search written here (independent of the plugin's flow model).

For each random group (random subscriptions, random prior ownership) every valid assignment is
enumerated: each partition to one of its subscribers. Ours must reach the best balance (the
least sum of squared loads, which also gives the least KIP-54 score of all load vectors that
are "balanced" in the chain-of-moves sense), and among all assignments with our exact load
multiset it must keep the most partitions with their previous owners.
"""

from __future__ import annotations

import os
from itertools import product

from assignframe_codec import encode_sticky_user_data
from assignframe_sticky import CooperativeStickyStrategy, StickyStrategy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assignframe import Cluster, GroupSubscription, Member

# ASSIGNFRAME_STICKY_OPTIMAL=5000 for a long hunt
SETTINGS = settings(
    max_examples=int(os.environ.get("ASSIGNFRAME_STICKY_OPTIMAL", "400")),
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
    return counts, topics, owners


def _group(counts, topics, owners, cooperative: bool) -> GroupSubscription:
    strategy = CooperativeStickyStrategy() if cooperative else StickyStrategy()
    members = {}
    for member_id, subscribed in topics.items():
        mine = sorted(tp for tp, owner in owners.items() if owner == member_id)
        if cooperative:
            members[member_id] = Member(member_id, subscribed, owned_partitions=mine, generation=1)
        else:
            user_data = encode_sticky_user_data(mine, 1)
            members[member_id] = Member(
                member_id,
                subscribed,
                user_data=user_data,
                decoded_user_data=strategy.decode_user_data(user_data, 3),
            )
    return GroupSubscription(members, Cluster(counts), 2)


def _settled(strategy, group: GroupSubscription):
    """Cooperative: this round, then the follow-up once revoked partitions are released."""
    first = strategy.assign(group)
    if not isinstance(strategy, CooperativeStickyStrategy):
        return first
    members = {
        m: Member(m, x.topics, owned_partitions=first.partitions_of(m), generation=2)
        for m, x in group.members.items()
    }
    return strategy.assign(GroupSubscription(members, group.cluster, 3))


def exhaustive_optimum(counts, topics, owners) -> tuple[int, dict[tuple[int, ...], int]]:
    """The least sum of squared loads over every valid assignment, and per sorted load vector
    the most partitions kept."""
    members = sorted(topics)
    subscribed = {t for m in members for t in topics[m]}
    partitions = [(t, p) for t in TOPICS if t in subscribed for p in range(counts[t])]
    choices = [[m for m in members if tp[0] in topics[m]] for tp in partitions]
    least = None
    most_kept: dict[tuple[int, ...], int] = {}
    for pick in product(*choices):
        loads = dict.fromkeys(members, 0)
        for member in pick:
            loads[member] += 1
        vector = tuple(sorted(loads.values()))
        squares = sum(v * v for v in vector)
        least = squares if least is None else min(least, squares)
        kept = sum(owners.get(tp) == member for tp, member in zip(partitions, pick, strict=True))
        most_kept[vector] = max(most_kept.get(vector, 0), kept)
    return least or 0, most_kept


@SETTINGS
@given(case=small_groups(), cooperative=st.booleans())
def test_balance_then_most_kept_is_the_exact_optimum(case, cooperative):
    counts, topics, owners = case
    strategy = CooperativeStickyStrategy() if cooperative else StickyStrategy()
    assignment = _settled(strategy, _group(counts, topics, owners, cooperative))
    loads = {m: len(assignment.partitions_of(m)) for m in topics}
    vector = tuple(sorted(loads.values()))
    kept = sum(
        owners.get((tp.topic, tp.partition)) == m
        for m in topics
        for tp in assignment.partitions_of(m)
    )
    least, most_kept = exhaustive_optimum(counts, topics, owners)
    assert sum(v * v for v in vector) == least, f"not the best balance: {loads}"
    assert kept == most_kept[vector], f"kept {kept}, the best at loads {vector} is {most_kept}"
