"""lag-sticky: counts first, lag within tolerance, otherwise previous owners keep partitions."""

from __future__ import annotations

from assignframe_lagaware import LagStickyStrategy
from assignframe_lagaware.ownership import decode_previous, previous_owners

from assignframe import Cluster, GroupSubscription, Member, MemberState, TopicPartition

T = "t"


def tp(p: int) -> TopicPartition:
    return TopicPartition(T, p)


def _member(member_id: str, owned=(), generation=-1, topics=(T,)) -> Member:
    return Member(member_id, tuple(topics), owned_partitions=tuple(tp(p) for p in owned),
                  generation=generation)


def _group(members: list[Member], partitions: int, lags: list[int] | None) -> GroupSubscription:
    return GroupSubscription(
        members={m.member_id: m for m in members},
        cluster=Cluster({T: partitions}),
        lags=None if lags is None else {tp(p): lag for p, lag in enumerate(lags)},
    )


def _owned(result, member_id: str) -> set[int]:
    return {x.partition for x in result.partitions_of(member_id)}


def test_balanced_previous_assignment_is_kept():
    group = _group([_member("a", [0, 3], 4), _member("b", [1, 2], 4)], 4, [10, 10, 10, 10])
    result = LagStickyStrategy().assign(group)
    assert _owned(result, "a") == {0, 3} and _owned(result, "b") == {1, 2}


def test_lag_imbalance_beyond_tolerance_is_swapped_away():
    # a holds both heavy partitions; one count-neutral swap evens the totals.
    group = _group([_member("a", [0, 1], 4), _member("b", [2, 3], 4)], 4, [100, 100, 1, 1])
    result = LagStickyStrategy().assign(group)
    assert len(_owned(result, "a") & {0, 1}) == 1


def test_imbalance_within_tolerance_is_left_alone():
    group = _group([_member("a", [0, 1], 4), _member("b", [2, 3], 4)], 4, [50, 50, 48, 48])
    result = LagStickyStrategy(lag_tolerance=0.1).assign(group)
    assert _owned(result, "a") == {0, 1}


def test_cooperative_move_is_withheld_while_the_old_owner_still_owns_it():
    # A new member joins: whatever moves to it is revoked first and assigned in the follow-up.
    group = _group([_member("a", [0, 1, 2, 3], 4), _member("b")], 4, [1, 1, 1, 1])
    result = LagStickyStrategy().assign(group)
    assert _owned(result, "b") == set()
    assert len(_owned(result, "a")) == 2


def test_same_generation_double_claim_is_owned_by_neither():
    group = _group([_member("a", [0, 1], 4), _member("b", [1], 4), _member("c")], 3, None)
    owners = previous_owners(group)
    assert tp(1) not in owners and owners[tp(0)] == "a"


def test_newer_generation_claim_wins():
    group = _group([_member("a", [0], 3), _member("b", [0], 5)], 2, None)
    owners = previous_owners(group)
    assert owners[tp(0)] == "b"


def test_user_data_round_trips_previous_assignment():
    strategy = LagStickyStrategy()
    assert strategy.subscription_user_data((T,), MemberState()) is None
    data = strategy.subscription_user_data((T,), MemberState((tp(2), tp(0)), 7))
    decoded = decode_previous(data)
    assert decoded is not None and decoded.generation == 7
    assert set(decoded.partitions) == {tp(0), tp(2)}
