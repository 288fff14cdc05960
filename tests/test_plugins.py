"""The plugin manager: laziness, typed hook methods, result validation, culprit naming."""

from __future__ import annotations

import subprocess
import sys

import pytest
from core_strategies import STRATEGIES_PLUGIN, Modulo

from assignframe import (
    Cluster,
    GroupAssignment,
    GroupSubscription,
    Member,
    MemberAssignment,
    MemberState,
    RebalanceProtocol,
    Strategy,
    SubscriptionMetadata,
    TopicPartition,
    hookimpl,
)
from assignframe.errors import (
    PluginError,
    StrategyResultError,
    UnknownStrategyError,
    UserDataError,
)
from assignframe.plugins import PluginManager, get_plugin_manager, isolated_plugin_manager

GROUP = GroupSubscription({"a": Member("a", ("t",)), "b": Member("b", ("t",))}, Cluster({"t": 4}))


def strategy_returning(value: object, name: str = "garbage") -> type[Strategy]:
    return type(
        "Returns" + type(value).__name__,
        (Strategy,),
        {"name": name, "assign": lambda self, g: value},
    )


def plugin_for(*classes: type[Strategy]) -> object:
    class Plugin:
        @hookimpl
        def register_strategies(self, registry):
            for cls in classes:
                registry.add(cls)

    return Plugin()


def test_importing_assignframe_loads_no_plugin():
    code = (
        "import sys, assignframe, assignframe.cli, assignframe.rebalance.runner; "
        "print([m for m in sys.modules if m.startswith('assignframe_') and m != 'assignframe_codec'"
        " and not m.startswith('assignframe_codec.')])"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert output.stdout.strip() == "[]"


def test_isolated_manager_has_only_what_is_registered(pm):
    assert pm.strategy_names() == ()
    assert pm.plugin_sources() == ()
    pm.register(STRATEGIES_PLUGIN, name="test-strategies")
    assert pm.strategy_names() == ("cooperative-balance", "modulo", "restless")


def test_get_plugin_manager_is_cached():
    assert get_plugin_manager() is get_plugin_manager()


def test_strategy_builds_with_options(spm):
    strategy = spm.strategy("modulo", replicas=2)
    assert isinstance(strategy, Modulo) and strategy.options == {"replicas": 2}


def test_unknown_strategy_lists_installed(spm):
    with pytest.raises(UnknownStrategyError) as caught:
        spm.strategy("range")
    assert str(caught.value) == (
        "unknown strategy 'range'; installed strategies: cooperative-balance, modulo, restless"
    )


def test_strategy_info(spm):
    info = {i.name: i for i in spm.strategy_info()}
    assert info["cooperative-balance"].protocols == ("eager", "cooperative")
    assert info["modulo"].as_dict() == {
        "name": "modulo",
        "class": "core_strategies.Modulo",
        "plugin": "test-strategies",
        "distribution": None,
        "version": None,
        "protocols": ["eager"],
    }


def test_unregister_forgets_strategies(spm):
    spm.unregister(STRATEGIES_PLUGIN)
    assert spm.strategy_names() == ()


def test_plugin_with_unknown_hook_names_itself(pm):
    class Typo:
        @hookimpl
        def register_strategy(self, registry):  # missing "ies"
            pass

    with pytest.raises(PluginError, match="plugin 'typo-plugin'.*register_strategy"):
        pm.register(Typo(), name="typo-plugin")


def test_plugin_failing_in_register_strategies_names_itself(pm):
    class Broken:
        @hookimpl
        def register_strategies(self, registry):
            raise RuntimeError("boom")

    pm.register(Broken(), name="broken-plugin")
    with pytest.raises(PluginError, match="plugin 'broken-plugin'.*RuntimeError: boom"):
        pm.strategy_names()


@pytest.mark.parametrize(
    ("returned", "problem"),
    [
        (None, "returned NoneType instead of a GroupAssignment"),
        ({"a": [], "b": []}, "returned dict instead of a GroupAssignment"),
        (GroupAssignment({"a": MemberAssignment(())}), "no entry for member(s) 'b'"),
        (
            GroupAssignment(
                {"a": MemberAssignment(()), "b": MemberAssignment(()), "z": MemberAssignment(())}
            ),
            "entries for non-member(s) 'z'",
        ),
        (
            GroupAssignment({"a": MemberAssignment(()), "b": ["t", 0]}),
            "for member 'b' a list instead",
        ),
        (
            GroupAssignment({"a": MemberAssignment((("t", "0"),)), "b": MemberAssignment(())}),
            "TopicPartition(topic='t', partition='0')",
        ),
        (
            GroupAssignment({"a": MemberAssignment((), "x"), "b": MemberAssignment(())}),
            "user_data of type str",
        ),
    ],
)
def test_garbage_result_names_strategy_and_plugin(pm, returned, problem):
    pm.register(plugin_for(strategy_returning(returned)), name="garbage-plugin")
    with pytest.raises(StrategyResultError) as caught:
        pm.assign(pm.strategy("garbage"), GROUP)
    message = str(caught.value)
    assert problem in message
    assert "strategy 'garbage'" in message and "plugin 'garbage-plugin'" in message


def test_strategy_raising_names_strategy(pm):
    def explode(self, group):
        raise ZeroDivisionError("division by zero")

    cls = type("Exploding", (Strategy,), {"name": "exploding", "assign": explode})
    pm.register(plugin_for(cls), name="exploding-plugin")
    with pytest.raises(StrategyResultError, match="'exploding'.*raised ZeroDivisionError"):
        pm.assign(pm.strategy("exploding"), GROUP)


def test_undecodable_user_data_names_member_and_strategy(pm):
    def decode(self, user_data, version):
        return user_data.decode("ascii")

    cls = type(
        "Picky",
        (Strategy,),
        {"name": "picky", "assign": lambda s, g: None, "decode_user_data": decode},
    )
    pm.register(plugin_for(cls), name="picky-plugin")
    with pytest.raises(UserDataError, match="member 'c7'.*strategy 'picky'.*UnicodeDecodeError"):
        pm.decode_user_data(pm.strategy("picky"), "c7", b"\xff", 3)


def test_wrong_state_type_from_on_assignment(pm):
    cls = type(
        "Forgetful",
        (Strategy,),
        {
            "name": "forgetful",
            "assign": lambda s, g: None,
            "on_assignment": lambda s, a, g, st: {"owned": []},
        },
    )
    pm.register(plugin_for(cls), name="forgetful-plugin")
    with pytest.raises(
        StrategyResultError, match="on_assignment for strategy 'forgetful'.*returned dict"
    ):
        pm.on_assignment(pm.strategy("forgetful"), MemberAssignment(()), 1, MemberState())


def test_default_subscription_metadata(spm):
    owned = MemberState((TopicPartition("t", 0), TopicPartition("gone", 1)), generation=4)
    strategy = spm.strategy("cooperative-balance")
    cooperative = spm.subscription_metadata(
        strategy, ("t",), owned, "r1", RebalanceProtocol.COOPERATIVE
    )
    assert cooperative == SubscriptionMetadata(("t",), None, (TopicPartition("t", 0),), 4, "r1")
    eager = spm.subscription_metadata(strategy, ("t",), owned, None, RebalanceProtocol.EAGER)
    assert eager == SubscriptionMetadata(("t",), None, (), 4, None)


def test_trace_writes_hook_calls_to_stderr(monkeypatch, capfd):
    monkeypatch.setenv("ASSIGNFRAME_TRACE_PLUGINS", "1")
    manager = isolated_plugin_manager([STRATEGIES_PLUGIN])
    manager.assign(manager.strategy("modulo"), GROUP)
    err = capfd.readouterr().err
    assert "register_strategies" in err and "assign" in err and "after_assignment" in err


def test_disable_all_plugins_loads_no_entry_point(monkeypatch):
    monkeypatch.setenv("ASSIGNFRAME_DISABLE_PLUGINS", "1")
    assert PluginManager().plugin_sources() == ()


def test_concurrent_first_use_sees_every_installed_strategy(monkeypatch):
    # Consumers are often built in several threads at once: none may see a half-loaded registry.
    import importlib.metadata
    import threading
    import time

    from core_strategies import STRATEGIES_PLUGIN

    from assignframe.plugins import manager as plugins_module

    entry_point = importlib.metadata.EntryPoint(
        "test-strategies", "core_strategies:STRATEGIES_PLUGIN", "assignframe"
    )

    def slow_import(entry_point, source):
        time.sleep(0.2)  # a plugin whose import takes a while
        return STRATEGIES_PLUGIN

    from assignframe.plugins import sources

    monkeypatch.setattr(sources, "installed_entry_points", lambda: [entry_point])
    monkeypatch.setattr(plugins_module.PluginManager, "_import", staticmethod(slow_import))
    manager = plugins_module.PluginManager()
    seen: list[tuple[str, ...]] = []

    def first_use(index):
        if index % 2:
            manager.register(object(), name=f"observer-{index}")
        seen.append(manager.strategy_names())

    threads = [threading.Thread(target=first_use, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 8 and all(names == seen[0] != () for names in seen), seen


def test_lone_default_is_called_directly_until_a_plugin_adds_an_implementation():
    """The direct call of a lone implementation must stop the moment pluggy's dispatch would
    differ: a plugin implementing the hook (wins over the trylast default), then monitoring."""
    manager = isolated_plugin_manager([STRATEGIES_PLUGIN])
    strategy = manager.strategy("modulo")
    received = MemberAssignment((TopicPartition("t", 1),))
    state = manager.on_assignment(strategy, received, 3, MemberState())
    assert state.owned_partitions == (TopicPartition("t", 1),) and state.generation == 3

    class Pinning:
        @hookimpl
        def on_assignment(self, strategy, assignment, generation, state):
            return MemberState((), generation=-99)

    pinning = Pinning()
    manager.register(pinning, name="pinning")
    assert manager.on_assignment(strategy, received, 3, MemberState()).generation == -99
    manager.unregister(pinning)
    assert manager.on_assignment(strategy, received, 3, MemberState()).generation == 3

    seen: list[str] = []
    manager.hook_manager.add_hookcall_monitoring(
        lambda name, impls, kwargs: seen.append(name), lambda outcome, name, impls, kwargs: None
    )
    manager.on_assignment(strategy, received, 3, MemberState())
    manager.assign(strategy, GROUP)
    assert seen == ["on_assignment", "assign", "after_assignment"]


def test_direct_non_firstresult_hook_returns_what_pluggy_returns():
    class Observer:
        @hookimpl
        def after_assignment(self, assignment):
            return len(assignment.assignments)

    manager = isolated_plugin_manager([STRATEGIES_PLUGIN, Observer()])
    strategy = manager.strategy("modulo")
    assignment = manager.assign(strategy, GROUP)
    assert manager._calls._lone_implementation("after_assignment") is not None
    through_pluggy = manager.hook_manager.hook.after_assignment(
        strategy=strategy, group=GROUP, assignment=assignment
    )
    direct = manager._call(
        "after_assignment", strategy=strategy, group=GROUP, assignment=assignment
    )
    assert direct == through_pluggy == [2]


def test_hook_with_no_implementation_returns_what_pluggy_returns():
    """An observer or lag hook nobody implements is answered without pluggy's loop: [] for a
    plain hook, None for a first-result one, as pluggy answers; once a plugin implements it,
    the call goes to it."""
    manager = isolated_plugin_manager([STRATEGIES_PLUGIN])
    strategy = manager.strategy("modulo")
    assignment = manager.assign(strategy, GROUP)
    kwargs = {"strategy": strategy, "group": GROUP, "assignment": assignment}
    lag_kwargs = {"group_id": "g", "cluster": GROUP.cluster, "topics": ("t",)}
    assert manager._calls._lone_implementation("after_assignment") == (None, (), False)
    assert manager._calls._lone_implementation("lag_source") == (None, (), True)
    through_pluggy = manager.hook_manager.hook.after_assignment(**kwargs)
    assert manager._call("after_assignment", **kwargs) == through_pluggy == []
    assert manager.hook_manager.hook.lag_source(**lag_kwargs) is None
    assert manager._call("lag_source", **lag_kwargs) is None

    class Lags:
        @hookimpl
        def lag_source(self, group_id, cluster, topics):
            return {TopicPartition("t", 0): 5}

    manager.register(Lags(), name="lags")
    assert manager._call("lag_source", **lag_kwargs) == {TopicPartition("t", 0): 5}


ALL_DEFAULT = frozenset({"subscription_metadata", "decode_user_data", "on_assignment"})


def test_default_hooks_are_those_a_strategy_class_leaves_to_the_base():
    class Remembers(Modulo):
        name = "remembers"

        def on_assignment(self, assignment, generation, state):
            return MemberState(assignment.partitions, generation, "mine")

    manager = isolated_plugin_manager([STRATEGIES_PLUGIN])
    assert manager.default_hooks(manager.strategy("modulo")) == ALL_DEFAULT
    remembers = Remembers()
    assert manager.default_hooks(remembers) == ALL_DEFAULT - {"on_assignment"}
    # the hook still runs for it, and the shortcut gives the base method's result for the other
    state = manager.on_assignment(
        remembers, MemberAssignment((TopicPartition("t", 1),)), 2, MemberState()
    )
    assert state.strategy_state == "mine"
    plain = manager.on_assignment(
        manager.strategy("modulo"),
        MemberAssignment((TopicPartition("t", 1),)),
        2,
        MemberState((), 1, "kept"),
    )
    assert plain == MemberState((TopicPartition("t", 1),), 2, "kept")


def test_a_method_set_on_the_instance_is_not_a_default():
    manager = isolated_plugin_manager([STRATEGIES_PLUGIN])
    strategy = manager.strategy("modulo")
    strategy.decode_user_data = lambda user_data, version: "own"
    assert manager.default_hooks(strategy) == ALL_DEFAULT - {"decode_user_data"}
    assert manager.decode_user_data(strategy, "m", b"x", 3) == "own"


def test_a_plugin_implementing_a_hook_or_monitoring_ends_the_shortcut():
    class Decoder:
        @hookimpl
        def decode_user_data(self, strategy, user_data):
            return "plugin"

    manager = isolated_plugin_manager([STRATEGIES_PLUGIN])
    strategy = manager.strategy("modulo")
    assert manager.default_hooks(strategy) == ALL_DEFAULT
    manager.register(Decoder())
    assert manager.default_hooks(strategy) == ALL_DEFAULT - {"decode_user_data"}
    assert manager.decode_user_data(strategy, "m", b"x", 3) == "plugin"
    seen = []
    manager.hook_manager.add_hookcall_monitoring(
        lambda name, impls, kwargs: seen.append(name), lambda outcome, name, impls, kwargs: None
    )
    assert manager.default_hooks(strategy) == frozenset()
    manager.subscription_metadata(strategy, ("t",), MemberState())
    assert seen == ["subscription_metadata"]


@pytest.mark.parametrize(
    ("partitions", "problem"),
    [
        ((("t", 0), ("t", 1)), None),
        ((), None),
        ((("t", 0), (7, 1)), "for member 'b' a partition TopicPartition(topic=7, partition=1)"),
        ((("t", True),), "for member 'b' a partition TopicPartition(topic='t', partition=True)"),
        ((("t", 1.0),), "for member 'b' a partition TopicPartition(topic='t', partition=1.0)"),
    ],
)
def test_check_group_assignment_names_the_first_partition_the_wire_cannot_take(
    partitions, problem
):
    from assignframe.plugins.validation import check_group_assignment

    group = GroupSubscription({m: Member(m, ("t",)) for m in "ab"}, Cluster({"t": 2}))
    result = GroupAssignment.from_partitions({"a": [("t", 0)], "b": partitions})
    found = check_group_assignment(result, group)
    if problem is None:
        assert found is None
    else:
        assert found == f"{problem} that is not TopicPartition(str, int)"


class OwnUserData(Modulo):
    """Overrides every user-data method: the hooks run its methods through the defaults."""

    name = "own-user-data"

    def subscription_user_data(self, topics, state):
        return b"own"

    def decode_user_data(self, user_data, subscription_version):
        if user_data == b"bad":
            raise ValueError("unreadable")
        return ("decoded", user_data)

    def on_assignment(self, assignment, generation, state):
        return MemberState(assignment.partitions, generation, "mine")


def test_hooks_only_the_defaults_implement_are_called_as_pluggy_would():
    manager = isolated_plugin_manager([STRATEGIES_PLUGIN])
    assert manager.defaults_alone() == ALL_DEFAULT
    strategy, hook = OwnUserData(), manager.hook_manager.hook
    state = MemberState((TopicPartition("t", 0),), 3, "kept")
    protocol = RebalanceProtocol.EAGER
    assert manager.subscription_metadata(strategy, ("t",), state, "r", protocol) == (
        hook.subscription_metadata(
            strategy=strategy, topics=("t",), state=state, rack="r", protocol=protocol
        )
    )
    assert manager.decode_user_data(strategy, "m", b"x", 3) == hook.decode_user_data(
        strategy=strategy, member_id="m", user_data=b"x", subscription_version=3
    )
    with pytest.raises(UserDataError, match="member 'm': user data cannot be decoded"):
        manager.decode_user_data(strategy, "m", b"bad", 3)
    received = MemberAssignment((TopicPartition("t", 1),))
    assert manager.on_assignment(strategy, received, 4, state) == hook.on_assignment(
        strategy=strategy, assignment=received, generation=4, state=state
    )


def test_an_on_assignment_only_the_defaults_implement_is_still_checked():
    class Broken(Modulo):
        name = "broken"

        def on_assignment(self, assignment, generation, state):
            return "not a state"

    manager = isolated_plugin_manager([STRATEGIES_PLUGIN])
    with pytest.raises(StrategyResultError, match="on_assignment .* returned str"):
        manager.on_assignment(Broken(), MemberAssignment(()), 1, MemberState())


class _Bytes(bytes):
    pass


class _Assignment(MemberAssignment):
    pass


@pytest.mark.parametrize(
    "second",
    [
        MemberAssignment((TopicPartition("t", 1),), b"ud"),
        MemberAssignment((TopicPartition("t", 1),), _Bytes(b"ud")),  # a bytes subclass passes
        _Assignment((TopicPartition("t", 1),)),  # so does a MemberAssignment subclass
        MemberAssignment((TopicPartition("t", 1),), bytearray(b"ud")),
        MemberAssignment((TopicPartition("t", 1), TopicPartition("t", True))),
        "not an assignment",
    ],
)
def test_the_group_wide_check_says_what_the_member_by_member_one_says(second):
    from assignframe.plugins import validation

    group = GroupSubscription({m: Member(m, ("t",)) for m in "ab"}, Cluster({"t": 2}))
    result = GroupAssignment({"a": MemberAssignment((TopicPartition("t", 0),)), "b": second})
    member_by_member = None
    for member_id, assignment in result.assignments.items():
        problem = validation._member_assignment_problem(assignment)
        if problem:
            member_by_member = f"for member {member_id!r} {problem}"
            break
    assert validation.check_group_assignment(result, group) == member_by_member
    assert validation._all_plain(tuple(result.assignments.values())) == (
        type(second) is MemberAssignment and member_by_member is None
        and type(second.user_data) is bytes
    )
