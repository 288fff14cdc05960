"""A consumer-protocol group reaching its target heartbeat by heartbeat.

Timings are worked out by hand from the schedule (docs/simulate.md): with m members already in
the group and an interval I, member j (from 1) first heartbeats at j * I / (m + 1); a joiner at 0.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assignframe.errors import AssignframeError
from assignframe.kip848.convergence import ClientBehaviour, converge, upgrade_handover
from assignframe.kip848.reconcile import (
    ConsumerGroupMember,
    ConsumerMemberState,
    reconcile_member,
)
from assignframe.model import TopicPartition

T0, T1 = TopicPartition("t", 0), TopicPartition("t", 1)
TOPICS = {"t": "t"}


def stable(epoch, *partitions):
    return ConsumerGroupMember(
        epoch, epoch, ConsumerMemberState.STABLE, dict.fromkeys(partitions, epoch), {}, {"t"}
    )


def hand_over(behaviour, start_ms=0):
    """A owns t-0, B nothing; the new target (epoch 2) gives t-0 to B. I = 1000: A at 333, B 666."""
    return converge(
        {"A": stable(1, T0), "B": stable(1)},
        {"A": frozenset({T0}), "B": frozenset()},
        frozenset(),
        {"A": frozenset(), "B": frozenset({T0})},
        2,
        TOPICS,
        behaviour,
        start_ms,
    )


def test_the_java_consumer_acknowledges_at_once_and_the_new_owner_takes_it_at_its_heartbeat():
    # A learns at 333, revokes and acknowledges at once (t-0 is free at 333); B takes it at 666
    result = hand_over(ClientBehaviour(1000))
    (handover,) = result.handovers
    assert (handover.previous_owner, handover.new_owner) == ("A", "B")
    assert (handover.released_ms, handover.acquired_ms, handover.unowned_ms) == (333, 666, 333)
    assert result.revoked == {"A": (T0,)}
    assert (result.converged_ms, result.heartbeats) == (666, 1)
    assert result.owned == {"A": frozenset(), "B": frozenset({T0})}


@pytest.mark.parametrize(("after", "acquired"), [(1, 1666), (2, 2666)])
def test_a_slow_revoker_holds_the_new_owner_back(after, acquired):
    # A stops consuming t-0 at 333 but reports it until its after-th regular heartbeat
    # (1333, 2333); B, waiting since 666, gets it at its next heartbeat after that
    result = hand_over(ClientBehaviour(1000, revoke_after_heartbeats=after))
    (handover,) = result.handovers
    assert (handover.released_ms, handover.acquired_ms) == (333, acquired)
    assert result.heartbeats == after + 1


def test_the_new_owner_moves_to_the_target_epoch_while_it_waits():
    result = hand_over(ClientBehaviour(1000, revoke_after_heartbeats=1))
    b_at_666 = next(s for s in result.steps if s.member == "B" and s.at_ms == 666)
    assert b_at_666.after.state is ConsumerMemberState.UNRELEASED_PARTITIONS
    assert b_at_666.after.member_epoch == 2 and not b_at_666.after.assigned
    assert b_at_666.heartbeat.owner_epochs == {T0: 1}  # A still holds it, at A's epoch
    a_at_333 = next(s for s in result.steps if s.member == "A" and s.at_ms == 333)
    assert a_at_333.after.state is ConsumerMemberState.UNREVOKED_PARTITIONS
    assert a_at_333.after.member_epoch == 1


@pytest.mark.parametrize(("mode", "reported"), [("when_changed", None), ("always", {T0})])
def test_a_client_that_omits_unchanged_owned_partitions_still_owns_them(mode, reported):
    result = hand_over(ClientBehaviour(1000, owned_partitions=mode))
    first = result.steps[0]
    assert (first.member, first.at_ms) == ("A", 333)
    assert first.heartbeat.owned == (None if reported is None else frozenset(reported))
    assert first.after.state is ConsumerMemberState.UNREVOKED_PARTITIONS  # either way


def test_batching_delays_the_target_not_the_hand_over():
    (handover,) = hand_over(ClientBehaviour(1000), start_ms=3000).handovers
    assert (handover.released_ms, handover.acquired_ms) == (3333, 3666)


def test_a_joiner_gets_free_partitions_in_its_join_response():
    result = converge(
        {"A": stable(1, T0), "J": ConsumerGroupMember.joining({"t"})},
        {"A": frozenset({T0})},
        frozenset({"J"}),
        {"A": frozenset({T0}), "J": frozenset({T1})},
        2,
        TOPICS,
        ClientBehaviour(1000),
    )
    (handover,) = result.handovers
    assert (handover.partition, handover.previous_owner, handover.acquired_ms) == (T1, None, 0)
    join = result.steps[0]
    assert (join.member, join.at_ms, join.heartbeat.owned) == ("J", 0, frozenset())


def test_a_departed_owners_partition_is_free_from_the_change():
    result = converge(
        {"B": stable(1)},
        {"B": frozenset()},
        frozenset(),
        {"B": frozenset({T0})},
        2,
        TOPICS,
        ClientBehaviour(1000),
    )
    (handover,) = result.handovers
    assert (handover.previous_owner, handover.released_ms, handover.acquired_ms) == (None, 0, 500)


def test_a_deleted_topic_is_taken_back_and_given_to_nobody():
    result = converge(
        {"A": stable(1, T0)},
        {"A": frozenset({T0})},
        frozenset(),
        {"A": frozenset()},
        2,
        {},
        ClientBehaviour(1000),
    )
    assert result.revoked == {"A": (T0,)} and not result.handovers
    assert result.members["A"].assigned == {}


def test_every_step_is_the_builders_answer_to_the_groups_real_state():
    result = hand_over(ClientBehaviour(1000, revoke_after_heartbeats=2))
    latest = {"A": stable(1, T0), "B": stable(1)}
    for step in result.steps:
        assert step.before == latest[step.member]  # nothing changed it between heartbeats
        holders = {tp: m.member_epoch for m in latest.values() for tp in m.holds}
        wanted = step.heartbeat.target
        assert step.heartbeat.owner_epochs == {tp: holders[tp] for tp in wanted if tp in holders}
        assert reconcile_member(step.before, step.heartbeat) == step.after
        latest[step.member] = step.after


def test_a_partition_in_two_targets_is_an_error_not_a_hang():
    with pytest.raises(AssignframeError, match="did not reach its target epoch 2"):
        converge(
            {"A": stable(1, T0), "B": stable(1)},
            {"A": frozenset({T0}), "B": frozenset()},
            frozenset(),
            {"A": frozenset({T0}), "B": frozenset({T0})},
            2,
            TOPICS,
            ClientBehaviour(1000),
        )


PARTITIONS = [TopicPartition(t, p) for t in ("t", "u") for p in range(4)]


@st.composite
def converted_groups(draw):
    """A group just converted online: members STABLE at epoch 1 with what they own (a partition
    owned by one member at most, some by nobody), each partition of the target given to one
    subscriber at most, an interval of any length."""
    count = draw(st.integers(1, 6))
    order = [f"m{j}" for j in range(count)]
    topics = {m: draw(st.sampled_from([frozenset("t"), frozenset("u"), frozenset("tu")]))
              for m in order}
    owners = draw(st.lists(st.sampled_from([None, *order]), min_size=8, max_size=8))
    owned = {m: frozenset(tp for tp, o in zip(PARTITIONS, owners, strict=True) if o == m)
             for m in order}
    target = {m: set() for m in order}
    for tp in PARTITIONS:
        takers = [m for m in order if tp.topic in topics[m]]
        taker = draw(st.sampled_from([None, *takers]))
        if taker is not None:
            target[taker].add(tp)
    interval = draw(st.integers(1, 2000))
    return order, owned, {m: frozenset(ps) for m, ps in target.items()}, topics, interval


@settings(max_examples=300, deadline=None)
@given(converted_groups())
def test_the_upgrade_handover_is_what_the_convergence_plays(group):
    order, owned, target, topics, interval = group
    behaviour = ClientBehaviour(interval)
    quick = upgrade_handover(order, owned, target, topics, behaviour)
    if interval < len(order) + 1:  # two first heartbeats may fall at the same time: played
        assert quick is None
        return
    members = {
        m: ConsumerGroupMember(1, 1, ConsumerMemberState.STABLE, dict.fromkeys(owned[m], 1), {},
                               topics[m])
        for m in order
    }
    played = converge(members, owned, frozenset(), target, 2, {"t": "t", "u": "u"}, behaviour)
    assert quick is not None
    assert quick.heartbeats == played.heartbeats
    assert sorted(quick.unowned_ms) == sorted(h.unowned_ms for h in played.handovers)
    assert quick.revoking_members == len(played.revoked)


@pytest.mark.parametrize(
    ("owned", "target", "behaviour"),
    [
        ({"A": {T0}, "B": {T0}}, {"A": set(), "B": {T0}}, ClientBehaviour(1000)),  # two owners
        ({"A": {T0}, "B": set()}, {"A": {T0}, "B": {T0}}, ClientBehaviour(1000)),  # two targets
        ({"A": {T0}, "B": set()}, {"A": set(), "B": {T0}}, ClientBehaviour(2)),  # same moment
        ({"A": {T0}, "B": set()}, {"A": set(), "B": {T0}},
         ClientBehaviour(1000, revoke_after_heartbeats=1)),  # a slow revoker
        ({"A": {T0}, "B": set()}, {"A": set(), "B": {T0}},
         ClientBehaviour(1000, owned_partitions="always")),
    ],
)
def test_the_upgrade_handover_leaves_other_shapes_to_the_convergence(owned, target, behaviour):
    owned = {m: frozenset(ps) for m, ps in owned.items()}
    target = {m: frozenset(ps) for m, ps in target.items()}
    topics = {"A": frozenset("t"), "B": frozenset("t")}
    assert upgrade_handover(["A", "B"], owned, target, topics, behaviour) is None


def test_the_upgrade_handover_leaves_a_target_outside_the_subscription_to_the_convergence():
    target = {"A": frozenset({T0})}
    assert upgrade_handover(["A"], {"A": frozenset()}, target, {"A": frozenset("u")}) is None
