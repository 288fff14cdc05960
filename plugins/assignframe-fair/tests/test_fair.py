"""Fair: the KIP-49 example, the greedy pass's weak spot, and optimal balance as a property."""

from __future__ import annotations

import random

from assignframe_fair import FairStrategy
from hypothesis import given, settings
from hypothesis import strategies as st

from assignframe import Cluster, GroupSubscription, Member

KIP49_COUNTS = {"T1": 2, "T2": 1, "T3": 2, "T4": 1, "T5": 2}
KIP49_TOPICS = {
    "C1": ("T1", "T2", "T3", "T4", "T5"),
    "C2": ("T1", "T3", "T5"),
    "C3": ("T1", "T3", "T5"),
    "C4": ("T1", "T2", "T3", "T4", "T5"),
}


def _group(topics_of, counts, **instance_ids):
    members = {
        m: Member(m, ts, group_instance_id=instance_ids.get(m)) for m, ts in topics_of.items()
    }
    return GroupSubscription(members, Cluster(counts))


def _readable(group, **options):
    assignment = FairStrategy(**options).assign(group)
    return {m: [str(tp) for tp in assignment.partitions_of(m)] for m in group.members}


def _spread(group, assignment):
    loads = [
        len(assignment.partitions_of(m))
        for m, member in group.members.items()
        if any(group.cluster.partitions_per_topic.get(t, 0) for t in member.topics)
    ]
    return max(loads) - min(loads) if loads else 0


def test_kip49_example():
    expected = {
        "C1": ["T2-0", "T3-0"],
        "C2": ["T1-0", "T3-1"],
        "C3": ["T1-1", "T5-0"],
        "C4": ["T4-0", "T5-1"],
    }
    group = _group(KIP49_TOPICS, KIP49_COUNTS)
    assert _readable(group) == expected
    assert _readable(group, refine=False) == expected  # KIP-49's greedy pass alone


def test_chains_repair_a_member_the_greedy_pass_strands():
    # t1 (3 subscribers) goes first and its only partition lands on c0; c5 subscribes to nothing
    # else and would sit idle. A chain (c0 gives t1-0 to c5) fixes it.
    topics_of = {f"c{i}": ("t0", "t1") for i in range(3)}
    topics_of |= {"c3": ("t0",), "c4": ("t0",), "c5": ("t1",)}
    group = _group(topics_of, {"t0": 5, "t1": 1})
    assert _readable(group, refine=False)["c5"] == []
    assert _readable(group)["c5"] == ["t1-0"]
    assert _spread(group, FairStrategy().assign(group)) == 0


def test_identical_subscriptions_are_within_one():
    topics_of = {f"m{i}": ("a", "b", "c") for i in range(7)}
    group = _group(topics_of, {"a": 5, "b": 9, "c": 11})
    assert _spread(group, FairStrategy().assign(group)) <= 1


def test_result_does_not_depend_on_member_order():
    topics_of = dict(KIP49_TOPICS)
    shuffled = list(topics_of.items())
    random.Random(3).shuffle(shuffled)
    assert _readable(_group(topics_of, KIP49_COUNTS)) == _readable(
        _group(dict(shuffled), KIP49_COUNTS)
    )


def test_static_members_rank_by_instance_id():
    topics_of = {"b": ("t",), "a": ("t",)}
    group = _group(topics_of, {"t": 1}, b="instance-0", a="instance-1")
    assert _readable(group) == {"b": ["t-0"], "a": []}


@st.composite
def unequal_groups(draw):
    topics = [f"t{i}" for i in range(draw(st.integers(1, 5)))]
    counts = {t: draw(st.integers(0, 6)) for t in topics}
    member_count = draw(st.integers(1, 6))
    topics_of = {
        f"m{i}": tuple(draw(st.lists(st.sampled_from(topics + ["ghost"]), max_size=4, unique=True)))
        for i in range(member_count)
    }
    return topics_of, counts


@settings(max_examples=300, deadline=None)
@given(case=unequal_groups())
def test_spread_is_the_best_any_assignment_can_reach(case, optimal_spread):
    topics_of, counts = case
    group = _group(topics_of, counts)
    assert _spread(group, FairStrategy().assign(group)) == optimal_spread(counts, topics_of)
