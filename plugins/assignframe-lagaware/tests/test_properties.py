"""Properties of lag-aware that hold for every group (hypothesis)."""

from __future__ import annotations

from assignframe_lagaware import LagAwareStrategy
from hypothesis import given, settings
from hypothesis import strategies as st

from assignframe import Cluster, GroupSubscription, Member, TopicPartition


@st.composite
def skewed_groups(draw) -> GroupSubscription:
    topics = [f"t{k}" for k in range(draw(st.integers(1, 3)))]
    counts = {t: draw(st.integers(1, 9)) for t in topics}
    members = {}
    for j in range(draw(st.integers(1, 5))):
        subscribed = draw(st.lists(st.sampled_from(topics), min_size=1, unique=True))
        members[f"c{j}"] = Member(f"c{j}", tuple(subscribed))
    lag = st.one_of(st.just(0), st.integers(0, 1_000), st.integers(10_000, 1_000_000))
    lags = {TopicPartition(t, p): draw(lag) for t in topics for p in range(counts[t])}
    return GroupSubscription(members, Cluster(counts), lags=lags)


def _totals(group: GroupSubscription, assignment) -> list[int]:
    lags = group.lags or {}
    return [sum(lags[tp] for tp in assignment.partitions_of(m)) for m in sorted(group.members)]


@settings(max_examples=300, deadline=None)
@given(group=skewed_groups())
def test_refinement_never_widens_the_lag_spread_of_the_proposal(group):
    # Each swap lowers its heavier member and raises its lighter one, both strictly inside the
    # pair's old range: the maximum never grows and the minimum never shrinks.
    proposal = _totals(group, LagAwareStrategy(refine=False).assign(group))
    refined = _totals(group, LagAwareStrategy().assign(group))
    assert max(refined) <= max(proposal) and min(refined) >= min(proposal)
    assert sum(refined) == sum(proposal)


@settings(max_examples=300, deadline=None)
@given(group=skewed_groups())
def test_counts_per_topic_stay_within_floor_and_ceil(group):
    assignment = LagAwareStrategy().assign(group)
    for topic, partitions in group.cluster.partitions_per_topic.items():
        subscribers = [m for m, member in group.members.items() if topic in member.topics]
        held = [sum(tp.topic == topic for tp in assignment.partitions_of(m)) for m in subscribers]
        if held:
            assert max(held) - min(held) <= 1 and sum(held) == partitions


@settings(max_examples=100, deadline=None)
@given(group=skewed_groups())
def test_deterministic(group):
    assert LagAwareStrategy().assign(group) == LagAwareStrategy().assign(group)
