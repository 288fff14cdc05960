"""Property tests over random groups and multi-round histories (hypothesis).

Histories (joins, leaves, subscription changes, partition growth, empty subscriptions) run
through the core's GroupRunner, so state travels through the codec as on a real group. Claims
with stale and duplicate generations are built directly, since real members never send them.
"""

from __future__ import annotations

import os
from collections import deque

from assignframe_codec import encode_cooperative_user_data, encode_sticky_user_data
from assignframe_sticky import CooperativeStickyStrategy, StickyStrategy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import STICKY_NAMES, check_assignment, check_round

from assignframe import Cluster, GroupRunner, GroupSubscription, Member
from assignframe.testing.strategies import histories

# ASSIGNFRAME_STICKY_EXAMPLES=1000 for a long hunt
SETTINGS = settings(
    max_examples=int(os.environ.get("ASSIGNFRAME_STICKY_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
STRATEGIES = {"sticky": StickyStrategy(), "cooperative-sticky": CooperativeStickyStrategy()}


def improving_path_exists(group: GroupSubscription, assignment) -> bool:
    """Can a chain of moves (a gives a partition to b, b one to c, ...) bring a member's load
    closer to another's? (stronger than KIP-54's single-move test)"""
    load = {m: len(a.partitions) for m, a in assignment.assignments.items()}
    held_topics = {m: {tp.topic for tp in a.partitions} for m, a in assignment.assignments.items()}
    subscribers: dict[str, list[str]] = {}
    for member_id, member in sorted(group.members.items()):
        for topic in member.topics:
            subscribers.setdefault(topic, []).append(member_id)
    for source in load:
        seen, queue = {source}, deque([source])
        while queue:
            giver = queue.popleft()
            for topic in held_topics[giver]:
                for taker in subscribers.get(topic, ()):
                    if taker not in seen:
                        if load[taker] <= load[source] - 2:
                            return True
                        seen.add(taker)
                        queue.append(taker)
    return False


@SETTINGS
@given(history=histories(), name=st.sampled_from(STICKY_NAMES))
def test_histories_stay_valid_balanced_settled_and_sticky(history, name):
    cooperative = name == "cooperative-sticky"
    runner = GroupRunner(name, cluster=history[0].cluster)
    for step in history:
        rebalance = runner.rebalance(step.consumers, cluster=step.cluster)
        assert len(rebalance.rounds) <= 2, "more than one follow-up round"
        for round_ in rebalance.rounds:
            assert check_round(round_, cooperative) == []
        final = rebalance.final
        assert check_round(final, cooperative=False) == []
        assert not improving_path_exists(final.group, final.assignment)
        # nothing changed: the same members again keep everything, in one round
        again = runner.rebalance(step.consumers).rounds
        assert len(again) == 1
        assert {m: set(a.partitions) for m, a in again[0].assignment.assignments.items()} == {
            m: set(a.partitions) for m, a in final.assignment.assignments.items()
        }


@st.composite
def claimed_groups(draw, cooperative: bool):
    """Members with random (stale, duplicate, foreign, unknown) claims and generations."""
    counts = draw(
        st.dictionaries(st.sampled_from(["t0", "t1", "t2"]), st.integers(0, 6), min_size=1)
    )
    every = [(t, p) for t, n in sorted(counts.items()) for p in range(n + 1)]  # +1: unknown
    members = {}
    for i in range(draw(st.integers(1, 6))):
        member_id = f"m{i}"
        topics = tuple(sorted(draw(st.sets(st.sampled_from(["t0", "t1", "t2", "ghost"])))))
        claims = draw(st.lists(st.sampled_from(every), unique=True)) if every else []
        generation = draw(st.integers(-1, 3))
        if cooperative:
            user_data = encode_cooperative_user_data(generation)
            members[member_id] = Member(
                member_id,
                topics,
                owned_partitions=claims,
                generation=generation,
                user_data=user_data,
            )
        else:
            user_data = encode_sticky_user_data(claims, None if generation < 0 else generation)
            members[member_id] = Member(member_id, topics, user_data=user_data)
    return GroupSubscription(members, Cluster(counts), draw(st.integers(1, 5)))


def _decoded(group: GroupSubscription, strategy) -> GroupSubscription:
    members = {
        m: Member(
            m,
            x.topics,
            x.owned_partitions,
            x.generation,
            user_data=x.user_data,
            decoded_user_data=strategy.decode_user_data(x.user_data, 3),
        )
        for m, x in group.members.items()
    }
    return GroupSubscription(members, group.cluster, group.generation)


@SETTINGS
@given(data=st.data(), name=st.sampled_from(STICKY_NAMES))
def test_stale_and_duplicate_claims(data, name):
    cooperative = name == "cooperative-sticky"
    strategy = STRATEGIES[name]
    group = _decoded(data.draw(claimed_groups(cooperative)), strategy)
    assignment = strategy.assign(group)
    assert check_assignment(group, assignment, cooperative) == []
    assert not improving_path_exists(group, _completed(group, assignment, cooperative))
    reversed_group = GroupSubscription(
        dict(reversed(group.members.items())), group.cluster, group.generation
    )
    assert strategy.assign(reversed_group) == assignment
    assert strategy.assign(group) == assignment


def _completed(group, assignment, cooperative):
    """Cooperative rounds withhold partitions still owned elsewhere; balance is judged on the
    assignment those rounds are heading to (eager: the assignment itself)."""
    if not cooperative:
        return assignment
    return StickyStrategy().assign(
        GroupSubscription({m: Member(m, x.topics) for m, x in group.members.items()}, group.cluster)
    )
