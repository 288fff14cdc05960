"""Generation rules (KIP-341, KAFKA-12984, KIP-792), protocols, and where Java is invalid."""

from __future__ import annotations

from assignframe_codec import encode_sticky_user_data
from assignframe_sticky import CooperativeStickyStrategy, StickyStrategy

from assignframe import Cluster, GroupSubscription, Member, RebalanceProtocol, TopicPartition


def _sticky_member(member_id, topics, claims, generation):
    strategy = StickyStrategy()
    user_data = encode_sticky_user_data(claims, generation)
    return Member(
        member_id,
        topics,
        user_data=user_data,
        decoded_user_data=strategy.decode_user_data(user_data, 3),
    )


def _owned(assignment, member_id):
    return sorted((tp.topic, tp.partition) for tp in assignment.partitions_of(member_id))


def test_protocols_prefer_cooperative_like_java():
    strategy = CooperativeStickyStrategy()
    assert set(strategy.protocols) == {RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE}
    assert strategy.protocol is RebalanceProtocol.COOPERATIVE
    assert StickyStrategy().protocols == (RebalanceProtocol.EAGER,)


def test_newer_generation_wins_and_equal_generations_cancel():
    # m1 (gen 2) and m2 (gen 2) both claim t-2: neither keeps it; m3 (gen 1) claims t-3, which
    # m2 (gen 2) claims too: m2 keeps it. Unique claims are kept, stale or not.
    group = GroupSubscription(
        {
            "m1": _sticky_member("m1", ("t",), [("t", 0), ("t", 2)], 2),
            "m2": _sticky_member("m2", ("t",), [("t", 2), ("t", 3)], 2),
            "m3": _sticky_member("m3", ("t",), [("t", 3), ("t", 4)], 1),
        },
        Cluster({"t": 6}),
        3,
    )
    assignment = StickyStrategy().assign(group)
    assert ("t", 0) in _owned(assignment, "m1")
    assert ("t", 3) in _owned(assignment, "m2")
    assert ("t", 4) in _owned(assignment, "m3")
    assert sorted(len(_owned(assignment, m)) for m in group.members) == [2, 2, 2]


def test_v0_user_data_counts_as_no_generation():
    group = GroupSubscription(
        {
            "old": _sticky_member("old", ("t",), [("t", 0), ("t", 1)], None),
            "new": _sticky_member("new", ("t",), [("t", 1)], 1),
        },
        Cluster({"t": 2}),
        2,
    )
    assignment = StickyStrategy().assign(group)
    assert _owned(assignment, "new") == [("t", 1)]
    assert _owned(assignment, "old") == [("t", 0)]


def test_cooperative_withholds_what_another_member_still_owns():
    strategy = CooperativeStickyStrategy()
    group = GroupSubscription(
        {
            "a": Member("a", ("t",), owned_partitions=[("t", p) for p in range(4)], generation=1),
            "b": Member("b", ("t",), generation=-1),
        },
        Cluster({"t": 4}),
        2,
    )
    assignment = strategy.assign(group)
    assert len(_owned(assignment, "a")) == 2
    assert _owned(assignment, "b") == []  # revoked from a first; b gets them in the follow-up
    follow_up = GroupSubscription(
        {
            "a": Member("a", ("t",), owned_partitions=assignment.partitions_of("a"), generation=2),
            "b": Member("b", ("t",), generation=2),
        },
        Cluster({"t": 4}),
        3,
    )
    again = strategy.assign(follow_up)
    assert _owned(again, "a") == _owned(assignment, "a")
    assert len(_owned(again, "b")) == 2


def test_an_empty_subscription_looked_at_first_gets_nothing():
    """Java's equal-subscriptions shortcut starts from the first member's topic set, so a member
    with no topics seen first can be handed partitions; ours never is."""
    for strategy in (StickyStrategy(), CooperativeStickyStrategy()):
        group = GroupSubscription(
            {
                "a-idle": Member("a-idle", ()),
                "b": Member("b", ("t",)),
                "c": Member("c", ("t",)),
            },
            Cluster({"t": 5}),
            1,
        )
        assignment = strategy.assign(group)
        assert assignment.partitions_of("a-idle") == ()
        assert sorted(len(assignment.partitions_of(m)) for m in "bc") == [2, 3]


def test_unequal_subscriptions_are_balanced_by_chains_of_moves():
    """KIP-54 example 2 shape: one member can take only t0; balance needs the others to shift."""
    group = GroupSubscription(
        {
            "c0": Member("c0", ("t0",)),
            "c1": Member("c1", ("t0", "t1")),
            "c2": Member("c2", ("t0", "t1", "t2")),
        },
        Cluster({"t0": 1, "t1": 2, "t2": 3}),
        1,
    )
    assignment = StickyStrategy().assign(group)
    assert [len(assignment.partitions_of(m)) for m in ("c0", "c1", "c2")] == [1, 2, 3]


def test_rack_local_partitions_preferred_within_the_quota():
    racks = {"t": (("r1",), ("r2",), ("r1",), ("r2",))}
    group = GroupSubscription(
        {
            "a": Member("a", ("t",), rack="r1"),
            "b": Member("b", ("t",), rack="r2"),
        },
        Cluster({"t": 4}, racks),
        1,
    )
    assignment = StickyStrategy().assign(group)
    assert _owned(assignment, "a") == [("t", 0), ("t", 2)]
    assert _owned(assignment, "b") == [("t", 1), ("t", 3)]
    assert all(isinstance(tp, TopicPartition) for tp in assignment.partitions_of("a"))


def test_a_partition_claimed_twice_by_one_member_is_never_assigned_twice():
    # Found by the fleet audit: a corrupt previous assignment naming t-1 twice made the member
    # hold t-1 twice and left t-2 unassigned. Java counts the repeat as a second claim of the same
    # generation, so nobody keeps t-1 and it is assigned afresh.
    claims = [("t", 0), ("t", 1), ("t", 1)]
    for strategy in (StickyStrategy(), CooperativeStickyStrategy()):
        if isinstance(strategy, CooperativeStickyStrategy):
            member = Member("a", ("t",), owned_partitions=claims, generation=5)
        else:
            member = _sticky_member("a", ("t",), claims, 5)
        group = GroupSubscription({"a": member}, Cluster({"t": 3}), generation=6)
        assert _owned(strategy.assign(group), "a") == [("t", 0), ("t", 1), ("t", 2)], strategy.name
