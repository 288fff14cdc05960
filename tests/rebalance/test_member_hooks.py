"""The runner's member hooks: a default hook's result built directly is the hook's own result;
any other hook (the strategy's own method, a plugin's implementation) is still called."""

from __future__ import annotations

import pytest
from core_strategies import STRATEGIES_PLUGIN, Modulo

from assignframe import hookimpl
from assignframe.classic.protocol import state_at_join
from assignframe.model import (
    MemberAssignment,
    MemberState,
    RebalanceProtocol,
    SubscriptionMetadata,
    TopicPartition,
)
from assignframe.plugins import isolated_plugin_manager
from assignframe.rebalance.member_hooks import MemberHooks

A0, A1, B0 = TopicPartition("a", 0), TopicPartition("a", 1), TopicPartition("b", 0)

STATES = [
    MemberState(),  # a new member: no generation, owns nothing
    MemberState((A0, B0), 4, "kept"),
    MemberState((A0, A1), 2, None),
]


@pytest.mark.parametrize("protocol", list(RebalanceProtocol))
@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("topics", [("a",), ("a", "b"), ()])
def test_a_default_join_is_what_the_hook_and_state_at_join_give(state, topics, protocol):
    manager = isolated_plugin_manager([STRATEGIES_PLUGIN])
    strategy = manager.strategy("modulo")
    metadata, joined = MemberHooks(manager).join(strategy, topics, state, "r1", protocol)
    assert metadata == manager.subscription_metadata(strategy, topics, state, "r1", protocol)
    assert joined == state_at_join(state, topics, protocol)
    assert all(type(tp) is TopicPartition for tp in metadata.owned_partitions)
    assert type(metadata.owned_partitions) is tuple and type(joined.owned_partitions) is tuple


def test_a_cooperative_member_keeps_only_the_topics_it_still_subscribes_to():
    manager = isolated_plugin_manager([STRATEGIES_PLUGIN])
    state = MemberState((A0, B0), 4, "kept")
    metadata, joined = MemberHooks(manager).join(
        manager.strategy("modulo"), ("a",), state, None, RebalanceProtocol.COOPERATIVE
    )
    assert metadata.owned_partitions == (A0,) and metadata.user_data is None
    assert metadata.generation == 4 and metadata.topics == ("a",)
    assert joined == MemberState((A0,), 4, "kept")
    eager, unchanged = MemberHooks(manager).join(
        manager.strategy("modulo"), ("a",), MemberState(), None, RebalanceProtocol.EAGER
    )
    assert eager.owned_partitions == () and eager.generation == -1
    assert unchanged == MemberState()


def test_a_default_on_assignment_keeps_the_partitions_and_the_strategy_state():
    manager = isolated_plugin_manager([STRATEGIES_PLUGIN])
    strategy = manager.strategy("modulo")
    state = MemberHooks(manager).on_assignment(
        strategy, MemberAssignment((B0, A1)), 5, MemberState((A0,), 4, "kept")
    )
    assert state == MemberState((B0, A1), 5, "kept")
    assert state == manager.on_assignment(
        strategy, MemberAssignment((B0, A1)), 5, MemberState((A0,), 4, "kept")
    )


class Remembers(Modulo):
    name = "remembers"

    def subscription_user_data(self, topics, state):
        return b"remembered"

    def on_assignment(self, assignment, generation, state):
        return MemberState(assignment.partitions, generation, "mine")


def test_a_strategy_s_own_methods_still_run():
    manager = isolated_plugin_manager([STRATEGIES_PLUGIN])
    hooks = MemberHooks(manager)
    remembers = Remembers()
    metadata, joined = hooks.join(
        remembers, ("a",), MemberState((A0,), 1), None, RebalanceProtocol.COOPERATIVE
    )
    assert metadata.user_data == b"remembered" and joined == MemberState((A0,), 1)
    state = hooks.on_assignment(remembers, MemberAssignment((A1,)), 2, MemberState())
    assert state.strategy_state == "mine"
    # one loop may meet several strategies: each is decided on its own
    plain = hooks.on_assignment(
        manager.strategy("modulo"), MemberAssignment((A1,)), 2, MemberState()
    )
    assert plain.strategy_state is None


def test_a_plugin_implementing_the_hook_is_called():
    class Tagger:
        @hookimpl
        def on_assignment(self, strategy, assignment, generation, state):
            return MemberState(assignment.partitions, generation, "plugin")

    manager = isolated_plugin_manager([STRATEGIES_PLUGIN, Tagger()])
    state = MemberHooks(manager).on_assignment(
        manager.strategy("modulo"), MemberAssignment((A0,)), 1, MemberState()
    )
    assert state.strategy_state == "plugin"


@pytest.mark.parametrize("protocol", list(RebalanceProtocol))
@pytest.mark.parametrize("state", STATES)
def test_a_join_whose_hook_only_the_defaults_implement_is_the_hook_s(state, protocol):
    # Remembers overrides subscription_user_data: the join calls the default, which calls it
    manager = isolated_plugin_manager([STRATEGIES_PLUGIN])
    remembers = Remembers()
    metadata, joined = MemberHooks(manager).join(remembers, ("a",), state, "r1", protocol)
    assert metadata == manager.hook_manager.hook.subscription_metadata(
        strategy=remembers, topics=("a",), state=state, rack="r1", protocol=protocol
    )
    assert metadata.user_data == b"remembered"
    assert joined == state_at_join(state, ("a",), protocol)


def test_a_plugin_implementing_subscription_metadata_is_called_at_join():
    class Tagger:
        @hookimpl
        def subscription_metadata(self, strategy, topics, state, rack, protocol):
            return SubscriptionMetadata(topics, b"plugin")

    manager = isolated_plugin_manager([STRATEGIES_PLUGIN, Tagger()])
    metadata, joined = MemberHooks(manager).join(
        manager.strategy("modulo"), ("a",), MemberState((A0,), 1), None, RebalanceProtocol.EAGER
    )
    assert metadata.user_data == b"plugin" and joined == MemberState((), 1)
