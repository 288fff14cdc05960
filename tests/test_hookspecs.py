"""One ``test_hook_<name>`` per hook (tests/docs checks the list is complete): a plugin
implementing the hook changes what the runner or the plugin manager does."""

from __future__ import annotations

import pytest
from core_strategies import Modulo

from assignframe import (
    Cluster,
    Consumer,
    GroupAssignment,
    GroupRunner,
    MemberState,
    SubscriptionMetadata,
    hookimpl,
)
from assignframe.classic import wire
from assignframe.errors import StrategyResultError

CLUSTER = Cluster({"t": 4})
CONSUMERS = [Consumer("a", ("t",)), Consumer("b", ("t",))]


def test_hook_register_strategies(pm):
    class Plugin:
        @hookimpl
        def register_strategies(self, registry):
            registry.add(Modulo)

    pm.register(Plugin(), name="modulo-plugin")
    assert pm.strategy_names() == ("modulo",)
    assert pm.strategy_info()[0].plugin == "modulo-plugin"


def test_hook_subscription_metadata(spm):
    class ForceRack:
        @hookimpl
        def subscription_metadata(self, topics, state, protocol):
            return SubscriptionMetadata(topics, b"hello", (), state.generation, "forced-rack")

    spm.register(ForceRack())
    round_ = GroupRunner("modulo", cluster=CLUSTER, pm=spm).play_round(CONSUMERS)
    decoded = wire.decode_subscription(round_.subscriptions["a"])
    assert decoded.rack_id == "forced-rack" and decoded.user_data == b"hello"
    assert round_.group.members["b"].rack == "forced-rack"


def test_hook_decode_user_data(spm):
    seen = []

    class Decoder:
        @hookimpl
        def decode_user_data(self, member_id, user_data, subscription_version):
            seen.append((member_id, subscription_version))
            return {"member": member_id}

    spm.register(Decoder())
    round_ = GroupRunner("modulo", cluster=CLUSTER, pm=spm).play_round(CONSUMERS)
    assert round_.group.members["a"].decoded_user_data == {"member": "a"}
    assert sorted(seen) == [("a", 3), ("b", 3)]


def test_hook_on_assignment(spm):
    class Remember:
        @hookimpl
        def on_assignment(self, assignment, generation, state):
            return MemberState(assignment.partitions, generation, ("seen", generation))

    spm.register(Remember())
    runner = GroupRunner("modulo", cluster=CLUSTER, pm=spm)
    runner.rebalance(CONSUMERS)
    runner.rebalance(CONSUMERS)
    assert runner.states["a"].strategy_state == ("seen", 2)


def test_hook_assign(spm):
    class EverythingToA:
        @hookimpl(tryfirst=True)
        def assign(self, strategy, group):
            if strategy.name != "modulo":
                return None  # fall through to the default for other strategies
            return GroupAssignment.from_partitions({"a": group.cluster.partitions("t"), "b": []})

    spm.register(EverythingToA())
    round_ = GroupRunner("modulo", cluster=CLUSTER, pm=spm).play_round(CONSUMERS)
    assert len(round_.assignment.partitions_of("a")) == 4
    other = GroupRunner("cooperative-balance", cluster=CLUSTER, pm=spm).play_round(CONSUMERS)
    assert len(other.assignment.partitions_of("a")) == 2


def test_hook_assign_result_is_validated(spm):
    class Garbage:
        @hookimpl(tryfirst=True)
        def assign(self):
            return "not an assignment"

    spm.register(Garbage())
    with pytest.raises(StrategyResultError, match="returned str instead of a GroupAssignment"):
        GroupRunner("modulo", cluster=CLUSTER, pm=spm).play_round(CONSUMERS)


def test_hook_after_assignment(spm):
    observed = []

    class Audit:
        @hookimpl
        def after_assignment(self, strategy, group, assignment):
            observed.append((strategy.name, group.generation, len(assignment.assignments)))

    class Veto:
        @hookimpl
        def after_assignment(self, assignment):
            if assignment.partitions_of("b"):
                raise RuntimeError("b must stay idle")

    spm.register(Audit())
    GroupRunner("modulo", cluster=CLUSTER, pm=spm).play_round(CONSUMERS)
    assert observed == [("modulo", 1, 2)]
    spm.register(Veto())
    with pytest.raises(RuntimeError, match="b must stay idle"):
        GroupRunner("modulo", cluster=CLUSTER, pm=spm).play_round(CONSUMERS)


def test_hook_lag_source(pm):
    from assignframe import TopicPartition
    from assignframe.lag import StaticLagSource

    assert pm.lag_source(cluster=CLUSTER, topics=("t",)) is None  # no source: lags unknown
    lags = {TopicPartition("t", 0): 7, TopicPartition("other", 0): 9}
    pm.register(StaticLagSource(lags, group_id="g"), name="static-lags")
    assert pm.lag_source(cluster=CLUSTER, topics=("t",), group_id="g") == {
        TopicPartition("t", 0): 7
    }
    assert pm.lag_source(cluster=CLUSTER, topics=("t",), group_id="other-group") is None


def test_hook_lag_source_result_is_checked(pm):
    from assignframe.errors import PluginError

    class Garbage:
        @hookimpl
        def lag_source(self):
            return [("t", 0, 5)]

    pm.register(Garbage(), name="garbage-lags")
    with pytest.raises(PluginError, match="lag_source"):
        pm.lag_source(cluster=CLUSTER, topics=("t",))
