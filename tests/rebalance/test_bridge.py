"""The consumer bridge and the runner play one group protocol: same bytes, same kept partitions,
same hand-over decisions, same errors.

The same membership changes run through a :class:`GroupRunner` and through real kafka-python
assignor objects (``assignframe.kafka_python.assignors``) driven by an in-memory double of
kafka-python's client side (``kafka_python_double``). The leader's view of the group is taken
from the ``after_assignment`` hook on both sides.
"""

from __future__ import annotations

import logging

import pytest
from core_strategies import CooperativeBalance, Modulo
from kafka_python_double import ClientGroup

from assignframe import (
    Cluster,
    Consumer,
    GroupAssignment,
    GroupRunner,
    MemberState,
    RebalanceProtocol,
    Strategy,
    TopicPartition,
    UserDataError,
    hookimpl,
)
from assignframe.errors import InconsistentGroupProtocolError, InvalidAssignmentError
from assignframe.kafka_python import assignors
from assignframe.rebalance.bridge import ConsumerBridge, JoinedMember

T, U = "t", "u"


class _Recall:
    """User data lists what the member owned when it last received an assignment (the state
    it is handed then), so runner and bridge send equal bytes only if they agree on what a
    member keeps when it joins."""

    def subscription_user_data(self, topics, state):
        return ",".join(f"{tp.topic}-{tp.partition}" for tp in state.strategy_state or ()).encode()

    def decode_user_data(self, user_data, subscription_version):
        if user_data is not None and user_data.startswith(b"\xff"):
            raise UserDataError("not recall user data")
        return None if user_data is None else user_data.decode()

    def on_assignment(self, assignment, generation, state):
        return MemberState(assignment.partitions, generation, state.owned_partitions)


class RecallModulo(_Recall, Modulo):
    name = "recall-modulo"


class RecallBalance(_Recall, CooperativeBalance):
    name = "recall-balance"
    protocols = (RebalanceProtocol.COOPERATIVE,)


class Thief(Strategy):
    """Cooperative, but gives every partition to the last member at once."""

    name = "thief"
    protocols = (RebalanceProtocol.COOPERATIVE,)

    def assign(self, group):
        last = sorted(group.members)[-1]
        return GroupAssignment.from_partitions(
            {m: group.cluster.partitions(T) if m == last else [] for m in group.members}
        )


class Copier(Strategy):
    """Cooperative: owners keep what they own and the last member gets a copy of everything (a
    redundant assignment: nothing is taken from an owner, which Java's check allows)."""

    name = "copier"
    protocols = (RebalanceProtocol.COOPERATIVE,)

    def assign(self, group):
        last = sorted(group.members)[-1]
        return GroupAssignment.from_partitions(
            {
                m: group.cluster.partitions(T) if m == last else member.owned_partitions
                for m, member in group.members.items()
            }
        )


class LeaderViews:
    """Every group a leader handed a strategy, in order (``after_assignment``)."""

    def __init__(self) -> None:
        self.groups: list = []

    @hookimpl
    def register_strategies(self, registry):
        for cls in (RecallModulo, RecallBalance, Thief, Copier):
            registry.add(cls)

    @hookimpl
    def after_assignment(self, strategy, group, assignment):
        self.groups.append(group)

    def take(self) -> list:
        taken, self.groups = self.groups, []
        return taken


@pytest.fixture
def views(spm) -> LeaderViews:
    plugin = LeaderViews()
    spm.register(plugin, name="leader-views")
    return plugin


def play_both(spm, views, steps, strategies, partitions, *, wire=True):
    """Each step (member_id -> topics) through the runner and the kafka-python double; asserts
    they agree round by round and returns the runner's rounds."""
    runner = GroupRunner(strategies, cluster=Cluster(partitions), pm=spm, wire=wire)
    client = ClientGroup(spm, partitions)
    played = []
    for topics_by_member in steps:
        consumers = [Consumer(m, tuple(t), tuple(strategies)) for m, t in topics_by_member.items()]
        ours = runner.rebalance(consumers).rounds
        runner_views = views.take()
        theirs = client.rebalance(topics_by_member, strategies)
        client_views = views.take()
        assert len(ours) == len(theirs), [r.revoked for r in ours]
        for round_, client_round, runner_view, client_view in zip(
            ours, theirs, runner_views, client_views, strict=True
        ):
            assert round_.generation == client_round.generation
            assert dict(round_.subscriptions) == client_round.subscriptions
            assert runner_view.members == client_view.members  # kept partitions, user data
            assert runner_view.generation == client_view.generation
            assert dict(round_.assignment_bytes) == client_round.assignment_bytes
            assert {
                m: [(tp.topic, tp.partition) for tp in lost] for m, lost in round_.revoked.items()
            } == {
                m: [(tp.topic, tp.partition) for tp in lost]
                for m, lost in client_round.revoked.items()
            }
        played.extend(ours)
    return played


# -- whole groups ------------------------------------------------------------------------------


@pytest.mark.parametrize("wire", [True, False])
def test_eager_group_sends_the_runners_bytes(spm, views, wire):
    """EAGER members give up everything at join: the state a member is handed with its next
    assignment owns nothing, on both sides (today's main handed the bridge's strategy the
    partitions the member had already revoked)."""
    steps = [{"a": [T], "b": [T]}, {"a": [T], "b": [T], "c": [T]}, {"b": [T], "c": [T]}]
    played = play_both(spm, views, steps, ["recall-modulo"], {T: 6}, wire=wire)
    assert [r.generation for r in played] == [1, 2, 3]
    assert played[1].group.members["a"].decoded_user_data == ""  # a kept nothing at join


@pytest.mark.parametrize("wire", [True, False])
def test_cooperative_group_keeps_and_hands_over_as_the_runner(spm, views, wire):
    steps = [
        {"a": [T, U], "b": [T, U]},
        {"a": [T, U], "b": [T, U], "c": [T, U]},  # a and b release, c gets them in a follow-up
        {"a": [T], "c": [T, U]},  # b leaves; a drops topic u and keeps only t's partitions
    ]
    played = play_both(spm, views, steps, ["recall-balance"], {T: 4, U: 2}, wire=wire)
    assert [r.followup for r in played] == [False, False, True, False]
    joined = played[1]
    assert joined.revoked and joined.assignment.partitions_of("c") == ()
    assert played[2].assignment.partitions_of("c") != ()
    dropped = played[3].group.members["a"]
    assert dropped.owned_partitions and all(tp.topic == T for tp in dropped.owned_partitions)


# -- the cooperative hand-over -----------------------------------------------------------------


def test_a_partition_moved_straight_to_another_member_is_refused_by_both(spm, views):
    runner = GroupRunner("thief", cluster=Cluster({T: 3}), pm=spm)
    client = ClientGroup(spm, {T: 3})
    runner.rebalance([Consumer("a", (T,))])
    client.rebalance({"a": [T]}, ["thief"])
    with pytest.raises(InvalidAssignmentError) as by_runner:
        runner.rebalance([Consumer("a", (T,)), Consumer("b", (T,))])
    with pytest.raises(InvalidAssignmentError) as by_bridge:
        client.rebalance({"a": [T], "b": [T]}, ["thief"])
    assert str(by_runner.value) == str(by_bridge.value)
    assert "t-0, t-1, t-2" in str(by_bridge.value)


def test_a_copy_given_while_the_owner_keeps_it_passes_in_both(spm, views):
    """Java's rule is 'added to one member while revoked from another': an owner that keeps its
    partition revokes nothing. (Today's main bridge refused this round; its runner allowed it.)"""
    steps = [{"a": [T], "b": [T]}, {"a": [T], "b": [T], "c": [T]}]
    played = play_both(spm, views, steps, ["copier"], {T: 4})
    assert played[-1].assignment.partitions_of("c") == tuple(TopicPartition(T, p) for p in range(4))


# -- errors ------------------------------------------------------------------------------------


def test_strategies_sharing_no_rebalance_protocol_are_one_error(spm):
    """modulo is EAGER only, restless COOPERATIVE only: no consumer can offer both."""
    with pytest.raises(InconsistentGroupProtocolError, match="modulo.*restless") as by_bridge:
        assignors("modulo", "restless", plugins=spm)
    runner = GroupRunner("modulo", cluster=Cluster({T: 1}), pm=spm)
    with pytest.raises(InconsistentGroupProtocolError, match="modulo.*restless") as by_runner:
        runner.rebalance([Consumer("a", (T,), ("modulo", "restless"))])
    assert str(by_runner.value).split(": ", 1)[1] == str(by_bridge.value).split(": ", 1)[1]


def test_unreadable_user_data_counts_as_none_in_both(spm, views, caplog):
    """A member whose user data the strategy cannot read has no prior ownership for it: the
    leader decodes it as no user data, warns once naming the group, member and strategy."""
    subscription = bytes.fromhex("000300000001000174" + "00000001ff" + "00000000ffffffffffff")
    caplog.set_level(logging.WARNING, logger="assignframe.classic.protocol")
    runner = GroupRunner("recall-modulo", cluster=Cluster({T: 2}), pm=spm, group_id="billing")
    for _ in range(2):
        runner.rebalance([Consumer("odd", (T,), subscription=subscription), Consumer("b", (T,))])
    by_runner = views.take()[0].members["odd"]
    bridge = ConsumerBridge(
        spm.strategy("recall-modulo"), spm, RebalanceProtocol.EAGER, group_id="billing"
    )
    bridge.assign([JoinedMember("odd", None, subscription)], Cluster({T: 2}))
    by_bridge = views.take()[0].members["odd"]
    assert by_runner == by_bridge
    assert by_bridge.user_data is None and by_bridge.decoded_user_data is None
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 2  # once per runner, once per bridge
    assert all(
        w.startswith("group 'billing': member 'odd' has user data strategy 'recall-modulo'")
        for w in warnings
    )
