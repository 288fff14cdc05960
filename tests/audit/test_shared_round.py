"""Strategies whose hooks are all assignframe's defaults share a replay's first round
(``GroupRunner.rebalance_alike``): each must play exactly the rebalance it plays alone, on fleet
groups (faults included) and through cooperative follow-ups; the audit's outcomes stay each
strategy's own, errors included."""

from __future__ import annotations

import pytest
from audit_snapshots import fleet_groups
from core_strategies import CooperativeBalance

from assignframe import Cluster, GroupSubscription, hookimpl
from assignframe.audit.rerun import AuditContext, replay_strategies, replay_strategy
from assignframe.model import GroupAssignment, MemberAssignment, TopicPartition
from assignframe.plugins.manager import PluginManager
from assignframe.rebalance.runner import Consumer, GroupRunner, alike_groups
from assignframe.strategy import Strategy

ALIKE = ("range", "roundrobin", "fair")


SNAPSHOTS = fleet_groups(60, seed=9)


class Balance2(CooperativeBalance):
    """A second cooperative strategy with default hooks (its own name, the same algorithm)."""

    name = "cooperative-balance-2"


class Failing(Strategy):
    """Default hooks, an ``assign`` that always fails."""

    name = "failing"

    def assign(self, group: GroupSubscription) -> GroupAssignment:
        raise RuntimeError("failing assigns nothing")


class _Plugin:
    @hookimpl
    def register_strategies(self, registry):
        registry.add(CooperativeBalance)
        registry.add(Balance2)
        registry.add(Failing)


def _pm():
    """The installed strategies (range, fair ...), the core's test strategies and this file's."""
    pm = PluginManager()
    pm.register(_Plugin())
    return pm


def _alone(pm, snapshot, name):
    runner = GroupRunner(name, cluster=snapshot.cluster, pm=pm, wire=False)
    runner.adopt(snapshot.current, max(snapshot.generation, 1))
    consumers = [
        Consumer(m.member_id, m.topics, (name,), m.rack, m.group_instance_id)
        for m in snapshot.members.values()
    ]
    return runner.rebalance(consumers, lags=snapshot.lags)


def _alike(pm, snapshot, names):
    runner = GroupRunner(names[0], cluster=snapshot.cluster, pm=pm, wire=False)
    runner.adopt(snapshot.current, max(snapshot.generation, 1))
    consumers = [
        Consumer(m.member_id, m.topics, (), m.rack, m.group_instance_id)
        for m in snapshot.members.values()
    ]
    return runner.rebalance_alike(names, consumers, lags=snapshot.lags)


def test_the_default_strategies_that_replay_alike():
    pm = PluginManager()
    instances = {name: pm.strategy(name) for name in ("range", "sticky", "roundrobin", "fair")}
    instances["cooperative-sticky"] = pm.strategy("cooperative-sticky")
    assert alike_groups(pm, instances) == [ALIKE]


@pytest.mark.parametrize("names", [ALIKE, ("cooperative-balance", "cooperative-balance-2")])
def test_a_shared_first_round_plays_what_each_strategy_plays_alone(names):
    pm = _pm()
    assert len(SNAPSHOTS) > 30
    followups = 0
    for snapshot in SNAPSHOTS:
        shared = _alike(pm, snapshot, names)
        assert list(shared) == list(names)
        for name in names:
            alone = _alone(pm, snapshot, name)
            where = f"{name} on {snapshot.group_id}"
            assert shared[name].settled == alone.settled, where
            # every field of every round: leader's view, assignment, revocations, bytes
            assert shared[name].rounds == alone.rounds, where
            assert [r.previous for r in shared[name].rounds] == [
                r.previous for r in alone.rounds
            ], where
            followups += len(alone.rounds) - 1
    if "cooperative-balance" in names:
        assert followups, "no cooperative follow-up round was compared"


def test_each_alike_strategy_continues_from_its_own_state():
    """A later rebalance after a shared one: the runner that shared is left as it was."""
    pm = _pm()
    names = ("cooperative-balance", "cooperative-balance-2")
    runner = GroupRunner(names[0], cluster=Cluster({"t": 6}), pm=pm, wire=False)
    runner.adopt(
        GroupAssignment({"a": MemberAssignment(tuple(TopicPartition("t", p) for p in range(6)))}),
        3,
    )
    before = runner.states
    played = runner.rebalance_alike(names, [Consumer("a", ("t",)), Consumer("b", ("t",))])
    assert runner.states == before and runner.generation == 3
    for name in names:
        rounds = played[name].rounds
        assert [r.generation for r in rounds] == [4, 5], name
        assert rounds[0].revoked == {"a": tuple(TopicPartition("t", p) for p in range(3, 6))}
        assert rounds[-1].assignment.partitions_of("b") == tuple(
            TopicPartition("t", p) for p in range(3, 6)
        )


def test_strategies_with_their_own_hooks_or_options_are_refused():
    runner = GroupRunner("range", cluster=Cluster({"t": 2}), wire=False)
    with pytest.raises(ValueError, match="do not replay alike"):
        runner.rebalance_alike(("range", "sticky"), [Consumer("a", ("t",))])
    with pytest.raises(ValueError, match="no strategies, options or bytes"):
        runner.rebalance_alike(("range", "roundrobin"), [Consumer("a", ("t",), options={"x": 1})])


def test_a_failing_strategy_keeps_its_error_and_the_others_their_outcomes():
    pm = _pm()
    context = AuditContext(pm, ("range", "failing", "roundrobin"))
    snapshot = next(s for s in SNAPSHOTS if s.group_type == "classic" and len(s.members) > 2)
    outcomes = replay_strategies(snapshot, context.strategies, context)
    assert [o.strategy for o in outcomes] == ["range", "failing", "roundrobin"]
    error = outcomes[1].error
    assert error.startswith("StrategyResultError: strategy 'failing'"), error
    assert error.endswith("raised RuntimeError: failing assigns nothing"), error
    for outcome in (outcomes[0], outcomes[2]):
        assert outcome.error is None
        assert outcome == replay_strategy(snapshot, outcome.strategy, context)


def test_the_audit_replays_alike_what_it_replays_one_by_one(context):
    """Every outcome of the default set, shared or not, equals the strategy replayed alone."""
    compared = 0
    for snapshot in SNAPSHOTS:
        if snapshot.group_type != "classic":
            continue
        outcomes = replay_strategies(snapshot, context.strategies, context)
        alone = [replay_strategy(snapshot, name, context) for name in context.strategies]
        assert outcomes == alone, snapshot.group_id
        compared += 1
    assert compared > 30
