"""The group runner: eager and cooperative rounds, follow-ups, election, crafted bytes."""

from __future__ import annotations

import pytest

from assignframe import (
    Cluster,
    Consumer,
    GroupRunner,
    RebalanceProtocol,
    SubscriptionMetadata,
    TopicPartition,
)
from assignframe.classic import wire
from assignframe.errors import InconsistentGroupProtocolError, InvalidAssignmentError

T = "t"
CLUSTER = Cluster({T: 6})


def tps(*numbers: int, topic: str = T) -> tuple[TopicPartition, ...]:
    return tuple(TopicPartition(topic, n) for n in numbers)


def consumers(*ids: str, strategies: tuple[str, ...] = ()) -> list[Consumer]:
    return [Consumer(m, (T,), strategies) for m in ids]


def owned_in_subscriptions(round_) -> dict[str, tuple[TopicPartition, ...]]:
    return {m: member.owned_partitions for m, member in round_.group.members.items()}


def assert_nothing_taken_from_its_owner(round_):
    """Java's validateCooperativeAssignment, as a test oracle."""
    owners = {tp: m for m, owned in owned_in_subscriptions(round_).items() for tp in owned}
    for member_id, assignment in round_.assignment.assignments.items():
        for tp in assignment.partitions:
            assert owners.get(tp, member_id) == member_id, f"{tp} taken from {owners[tp]}"


# -- eager -----------------------------------------------------------------------------------


def test_eager_rounds_count_generations_and_encode_exact_bytes(spm):
    runner = GroupRunner("modulo", cluster=CLUSTER, pm=spm)
    first = runner.rebalance(consumers("a", "b"))
    assert [r.generation for r in first.rounds] == [1] and first.settled
    # A fresh member: no owned partitions, generation -1, null user data and rack.
    assert (
        first.first.subscriptions["a"].hex()
        == "00030000000100017" + "4ffffffff00000000ffffffffffff"
    )
    assert first.final.assignment.partitions_of("a") == tps(0, 2, 4)
    assert wire.decode_member_assignment(first.final.assignment_bytes["b"]).partitions == tps(
        1, 3, 5
    )
    second = runner.rebalance(consumers("a", "b", "c"))
    assert second.final.generation == 2 and second.final.index == 1
    member_a = second.final.group.members["a"]
    # EAGER members revoke everything before joining but still send their last generation.
    assert member_a.owned_partitions == () and member_a.generation == 1
    assert runner.states["a"].owned_partitions == tps(0, 3)
    assert second.final.revoked == {}


def test_eager_metrics_compare_with_previous_round(spm):
    runner = GroupRunner("modulo", cluster=CLUSTER, pm=spm)
    runner.rebalance(consumers("a", "b"))
    metrics = runner.rebalance(consumers("a", "b", "c")).final.metrics
    assert metrics.partitions_kept == 2 and metrics.partitions_moved == 4
    assert metrics.validity.is_valid and metrics.balance_score == 0


def test_leaving_member_state_is_forgotten(spm):
    runner = GroupRunner("modulo", cluster=CLUSTER, pm=spm)
    runner.rebalance(consumers("a", "b"))
    runner.rebalance(consumers("a"))
    assert set(runner.states) == {"a"}
    back = runner.rebalance(consumers("a", "b"))
    assert back.final.group.members["b"].generation == -1  # a new consumer with an old id


def test_metadata_change_and_explicit_generation(spm):
    runner = GroupRunner("modulo", cluster=CLUSTER, pm=spm)
    runner.rebalance(consumers("a"), generation=5)
    grown = runner.rebalance(consumers("a"), cluster=Cluster({T: 8}))
    assert grown.final.generation == 6 and len(grown.final.assignment.partitions_of("a")) == 8
    with pytest.raises(ValueError, match="generation 6 does not follow generation 6"):
        runner.rebalance(consumers("a"), generation=6)


def test_duplicate_or_missing_consumers_are_rejected(spm):
    runner = GroupRunner("modulo", cluster=CLUSTER, pm=spm)
    with pytest.raises(ValueError, match="'a' joins twice"):
        runner.play_round(consumers("a", "a"))
    with pytest.raises(ValueError, match="at least one consumer"):
        runner.play_round([])


# -- cooperative -----------------------------------------------------------------------------


def test_cooperative_join_plays_a_followup_round(spm):
    runner = GroupRunner("cooperative-balance", cluster=CLUSTER, pm=spm)
    runner.rebalance(consumers("a", "b"))
    joined = runner.rebalance(consumers("a", "b", "c"))
    assert [r.followup for r in joined.rounds] == [False, True] and joined.settled
    first, followup = joined.rounds
    assert [first.generation, followup.generation] == [2, 3]
    # Round 1: a and b release one partition each, nobody receives them yet.
    assert first.revoked == {"a": tps(4), "b": tps(5)} and first.rejoining == ("a", "b")
    assert first.assignment.partitions_of("c") == ()
    # The follow-up hands the released partitions to c.
    assert followup.assignment.partitions_of("c") == tps(4, 5) and followup.revoked == {}
    for round_ in joined.rounds:
        assert_nothing_taken_from_its_owner(round_)
        assert round_.metrics.validity.is_valid
    # Withheld while a and b still own them: not unowned, but the round is not complete.
    assert first.rebalance_protocol is RebalanceProtocol.COOPERATIVE
    assert first.metrics.validity.withheld == tps(4, 5) and first.metrics.validity.unowned == ()
    assert not first.metrics.validity.is_complete and followup.metrics.validity.is_complete
    # Movement counts across the rebalance: the follow-up moved the two released partitions
    # (from a and b to c), measured against the assignment before the rebalance began.
    assert (first.metrics.partitions_kept, first.metrics.partitions_moved) == (4, 0)
    assert (followup.metrics.partitions_kept, followup.metrics.partitions_moved) == (4, 2)


def test_cooperative_members_send_owned_partitions(spm):
    runner = GroupRunner("cooperative-balance", cluster=Cluster({T: 4, "u": 2}), pm=spm)
    runner.rebalance([Consumer("a", (T, "u"))])
    # a drops topic u: it keeps (and announces) only partitions of still-subscribed topics.
    second = runner.rebalance([Consumer("a", (T,))])
    assert second.first.group.members["a"].owned_partitions == tps(0, 1, 2, 3)
    assert second.first.group.members["a"].generation == 1


def test_rebalance_gives_up_after_max_followups(spm):
    runner = GroupRunner("restless", cluster=CLUSTER, pm=spm, max_followups=3)
    runner.rebalance(consumers("a"))
    restless = runner.rebalance(consumers("a", "b"))
    assert not restless.settled
    assert [r.followup for r in restless.rounds] == [False, True, True, True]
    assert [r.generation for r in restless.rounds] == [2, 3, 4, 5]


def test_cooperative_strategy_moving_an_owned_partition_is_rejected(pm):
    from assignframe import GroupAssignment, Strategy, hookimpl

    class Thief(Strategy):
        name = "thief"
        protocols = (RebalanceProtocol.COOPERATIVE,)

        def assign(self, group):
            last = sorted(group.members)[-1]
            return GroupAssignment.from_partitions(
                {m: group.cluster.partitions(T) if m == last else [] for m in group.members}
            )

    class Plugin:
        @hookimpl
        def register_strategies(self, registry):
            registry.add(Thief)

    pm.register(Plugin())
    runner = GroupRunner("thief", cluster=CLUSTER, pm=pm)
    runner.rebalance(consumers("a"))
    with pytest.raises(InvalidAssignmentError, match="'thief' runs COOPERATIVE.*t-0"):
        runner.rebalance(consumers("a", "b"))


# -- election --------------------------------------------------------------------------------


def test_group_runs_the_elected_strategy(spm):
    runner = GroupRunner("modulo", cluster=CLUSTER, pm=spm)
    mixed = [
        Consumer("a", (T,), ("cooperative-balance", "modulo")),
        Consumer("b", (T,), ("cooperative-balance", "modulo")),
        Consumer("c", (T,), ("modulo", "cooperative-balance")),
    ]
    assert runner.play_round(mixed).protocol == "cooperative-balance"
    only_modulo = mixed[:2] + [Consumer("c", (T,), ("modulo",))]
    assert runner.play_round(only_modulo).protocol == "modulo"


def test_mixed_offer_makes_members_eager(spm):
    """[cooperative-balance, modulo] is EAGER (KIP-429's first bounce): owned partitions are
    dropped at join even though the elected strategy is cooperative."""
    runner = GroupRunner("cooperative-balance", cluster=CLUSTER, pm=spm)
    upgrading = consumers("a", "b", strategies=("cooperative-balance", "modulo"))
    runner.rebalance(upgrading)
    second = runner.rebalance(
        upgrading + consumers("c", strategies=("cooperative-balance", "modulo"))
    )
    assert second.first.protocol == "cooperative-balance"
    assert all(m.owned_partitions == () for m in second.first.group.members.values())
    assert len(second.rounds) == 1  # eager members never rejoin for revocations
    cooperative = runner.rebalance(consumers("a", "b", "c", strategies=("cooperative-balance",)))
    assert cooperative.first.group.members["a"].owned_partitions != ()


def test_no_common_strategy_is_rejected(spm):
    runner = GroupRunner("modulo", cluster=CLUSTER, pm=spm)
    with pytest.raises(InconsistentGroupProtocolError):
        runner.play_round([Consumer("a", (T,), ("modulo",)), Consumer("b", (T,), ("restless",))])


# -- crafted subscriptions -------------------------------------------------------------------


def test_crafted_subscription_bytes_are_sent_verbatim(spm):
    crafted = bytes.fromhex(  # v3: topics [t], user data null, owned t-0 t-2, generation 1, no rack
        "000300000001000174ffffffff0000000100017400000002000000000000000200000001ffff"
    )
    runner = GroupRunner("cooperative-balance", cluster=CLUSTER, pm=spm)
    round_ = runner.play_round(
        [
            Consumer("a", (T,), subscription=crafted, group_instance_id="static-a"),
            Consumer("b", (T,)),
        ]
    )
    assert round_.subscriptions["a"] == crafted
    member = round_.group.members["a"]
    assert member.owned_partitions == tps(0, 2) and member.generation == 1
    assert member.group_instance_id == "static-a"  # from the join, not the bytes
    assert_nothing_taken_from_its_owner(round_)
    assert {tp for tp in round_.assignment.partitions_of("a")} >= set(tps(0, 2))


def test_crafted_cooperative_round_that_withholds_gets_its_followup(spm):
    """Issue 13 item 8: the partitions a crafted subscription claims are the member's state, so
    when the leader withholds some, the member revokes them and rejoins, and the follow-up
    round hands them over, as in a real group. (Today's main ignored the claims: no follow-up,
    t-3..t-5 stayed unassigned.)"""
    claims_all = wire.encode_subscription_metadata(
        SubscriptionMetadata((T,), None, tps(0, 1, 2, 3, 4, 5), generation=4, rack=None)
    )
    runner = GroupRunner("cooperative-balance", cluster=CLUSTER, pm=spm)
    played = runner.rebalance([Consumer("a", (T,), subscription=claims_all), Consumer("b", (T,))])
    assert played.settled and [r.followup for r in played.rounds] == [False, True]
    first, followup = played.rounds
    assert first.assignment.partitions_of("a") == tps(0, 1, 2)
    assert first.metrics.validity.withheld == tps(3, 4, 5)
    assert first.revoked == {"a": tps(3, 4, 5)}
    # In the follow-up a sends its own subscription: what it kept, in the generation it got.
    assert followup.group.members["a"].owned_partitions == tps(0, 1, 2)
    assert followup.group.members["a"].generation == first.generation
    assert followup.assignment.partitions_of("b") == tps(3, 4, 5)
    assert followup.metrics.validity.is_complete


def test_crafted_eager_claims_never_cause_a_followup(spm):
    claims_all = wire.encode_subscription_metadata(
        SubscriptionMetadata((T,), None, tps(0, 1, 2, 3, 4, 5), generation=4, rack=None)
    )
    runner = GroupRunner("modulo", cluster=CLUSTER, pm=spm)
    played = runner.rebalance([Consumer("a", (T,), subscription=claims_all), Consumer("b", (T,))])
    assert len(played.rounds) == 1 and played.first.revoked == {}


# -- starting from an existing assignment ----------------------------------------------------


def test_adopt_starts_where_a_played_round_would(spm):
    played = GroupRunner("cooperative-balance", cluster=CLUSTER, pm=spm)
    played.rebalance(consumers("a", "b"))
    adopted = GroupRunner("cooperative-balance", cluster=CLUSTER, pm=spm)
    adopted.adopt(played.rebalance(consumers("a", "b")).final.assignment, played.generation)
    assert adopted.generation == played.generation and adopted.states == played.states
    after_played = played.rebalance(consumers("a", "b", "c"))
    after_adopted = adopted.rebalance(consumers("a", "b", "c"))
    assert [r.result_pairs() for r in after_adopted.rounds] == [
        r.result_pairs() for r in after_played.rounds
    ]
    assert after_adopted.first.metrics.partitions_kept == after_played.first.metrics.partitions_kept


def test_adopt_delivers_partitions_in_wire_order(spm):
    from assignframe import GroupAssignment

    interleaved = [TopicPartition("u", 1), TopicPartition(T, 0), TopicPartition("u", 0)]
    runner = GroupRunner("cooperative-balance", cluster=Cluster({T: 1, "u": 2}), pm=spm)
    runner.adopt(GroupAssignment.from_partitions({"a": interleaved}), 4)
    assert runner.states["a"].owned_partitions == (interleaved[0], interleaved[2], interleaved[1])
    assert runner.states["a"].generation == 4
    with pytest.raises(ValueError, match="does not follow"):
        runner.adopt(GroupAssignment.from_partitions({"a": interleaved}), 3)


# -- lags ------------------------------------------------------------------------------------


def test_leader_asks_the_lag_source_once_per_round_when_no_lags_are_given(spm):
    from assignframe.lag import StaticLagSource

    lags = {TopicPartition(T, p): 10 * p for p in range(6)}
    spm.register(StaticLagSource({**lags, TopicPartition("other", 0): 5}, group_id="g"))
    runner = GroupRunner("modulo", cluster=CLUSTER, pm=spm, group_id="g")
    assert runner.rebalance(consumers("a", "b")).final.group.lags == lags
    given = {TopicPartition(T, 0): 1}
    assert runner.rebalance(consumers("a", "b"), lags=given).final.group.lags == given
    stranger = GroupRunner("modulo", cluster=CLUSTER, pm=spm, group_id="another-group")
    assert stranger.rebalance(consumers("a")).final.group.lags is None
    anonymous = GroupRunner("modulo", cluster=CLUSTER, pm=spm)
    assert anonymous.rebalance(consumers("a")).final.group.lags is None
