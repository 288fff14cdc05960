"""The contract every strategy meets, as a pytest base class.

Subclass it in your plugin's tests and name your strategy::

    from assignframe.testing import StrategyContract

    class TestMyContract(StrategyContract):
        strategy_name = "my-strategy"
        strategy_options = {}          # optional: options the strategy is built with

The strategy is looked up among installed plugins (so the entry point is tested too). To test a
plugin before installing it, set ``strategy_plugin`` to the module (or object) holding its
``register_strategies`` hook; it is then registered in an isolated manager.

Rules checked: every subscribed partition goes to exactly one member (or exactly
``min(owners_per_partition, subscribers)`` distinct members for strategies that declare
redundancy), only to subscribers; every member appears in the output; the same input gives the
same output, whatever the order members were inserted in; user data and assignments survive the
wire; options a strategy advertises in user data read back from it; empty groups, members with
no subscription, unknown topics and more members than
partitions work; a COOPERATIVE strategy never moves a partition its owner has not released.

Under the COOPERATIVE protocol a partition taken from one member stays unassigned (*withheld*)
until its owner has released it, and goes out in the runner's follow-up round (Java does the
same): rounds played through the runner may withhold such partitions, but every rebalance must
settle with every subscribed partition assigned. A partition nobody owns and nobody gets is a
failure in any round.

Example counts are modest (``ASSIGNFRAME_CONTRACT_EXAMPLES``, default 25) so the suite runs in
seconds; raise them in CI for deeper runs. ``ASSIGNFRAME_CONTRACT_SHRINK=0`` skips shrinking
failing examples (quick reports while iterating on a broken strategy).
"""

from __future__ import annotations

import os
import pickle
import random
import subprocess
import sys
from collections.abc import Mapping
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from ..classic import wire
from ..errors import InvalidAssignmentError
from ..metrics import validate_assignment
from ..model import (
    Cluster,
    GroupAssignment,
    GroupSubscription,
    Member,
    MemberState,
    RebalanceProtocol,
)
from ..plugins.manager import PluginManager, get_plugin_manager, isolated_plugin_manager
from ..rebalance.runner import GroupRunner, Rebalance, RoundResult
from ..strategy import Strategy
from .strategies import (
    TOPIC_NAMES,
    HistoryRound,
    group_subscriptions,
    groups_with_claims,
    histories,
)

__all__ = ["CONTRACT_SETTINGS", "StrategyContract"]

#: Hypothesis settings of the contract's properties (one strategy runs in many subclasses, hence
#: ``differing_executors``; strategies may be slow on their first call, hence no deadline).
CONTRACT_SETTINGS = settings(
    max_examples=int(os.environ.get("ASSIGNFRAME_CONTRACT_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.differing_executors, HealthCheck.too_slow],
    # ASSIGNFRAME_CONTRACT_SHRINK=0 reports the first failing example as found (fast, unshrunk).
    phases=(
        list(Phase)
        if os.environ.get("ASSIGNFRAME_CONTRACT_SHRINK", "1") != "0"
        else [Phase.explicit, Phase.reuse, Phase.generate]
    ),
)


class StrategyContract:
    """Base class of a strategy's contract tests; set ``strategy_name`` in the subclass."""

    strategy_name: ClassVar[str]
    strategy_options: ClassVar[Mapping[str, Any]] = {}
    #: Register this plugin in an isolated manager instead of using the installed plugins.
    strategy_plugin: ClassVar[object | None] = None
    _contract_pm: ClassVar[PluginManager | None] = None

    # -- helpers (usable from your own extra tests) -----------------------------------------

    @classmethod
    def plugin_manager(cls) -> PluginManager:
        """The manager the contract uses (one per test class)."""
        manager = cls.__dict__.get("_contract_pm")
        if manager is None:
            if cls.strategy_plugin is None:
                manager = get_plugin_manager()
            else:
                manager = isolated_plugin_manager([cls.strategy_plugin])
            cls._contract_pm = manager
        return manager

    def make_strategy(self) -> Strategy:
        return self.plugin_manager().strategy(self.strategy_name, **self.strategy_options)

    def assign(self, group: GroupSubscription) -> GroupAssignment:
        """Assign through the plugin manager (which rejects malformed results)."""
        return self.plugin_manager().assign(self.make_strategy(), group)

    def assert_valid(
        self, group: GroupSubscription, assignment: GroupAssignment, *, cooperative: bool = False
    ) -> None:
        """Valid, and complete; ``cooperative``: partitions withheld from a member that still
        owns them (revocation pending) are allowed."""
        owners = self.make_strategy().owners_per_partition(group)
        validity = validate_assignment(group, assignment, owners, cooperative=cooperative)
        assert validity.is_valid, f"{self.strategy_name}: {validity.describe()}"

    def assert_settled_rebalance(self, rebalance: Rebalance) -> None:
        """Every round valid and through the wire intact; the last one complete."""
        assert rebalance.settled, "follow-up rounds never stopped revoking partitions"
        for round_ in rebalance.rounds:
            cooperative = round_.rebalance_protocol is RebalanceProtocol.COOPERATIVE
            self.assert_valid(round_.group, round_.assignment, cooperative=cooperative)
            _assert_round_trips(round_)
        final = rebalance.final
        self.assert_valid(final.group, final.assignment)

    def runner(self, cluster: Cluster) -> GroupRunner:
        return GroupRunner(
            self.strategy_name,
            cluster=cluster,
            pm=self.plugin_manager(),
            options=self.strategy_options,
        )

    # -- registration ----------------------------------------------------------------------

    def test_strategy_is_registered(self) -> None:
        strategy = self.make_strategy()
        assert isinstance(strategy, Strategy)
        assert strategy.name == self.strategy_name
        assert strategy.protocols, "a strategy supports at least one rebalance protocol"

    # -- validity --------------------------------------------------------------------------

    @CONTRACT_SETTINGS
    @given(group=group_subscriptions())
    def test_every_subscribed_partition_assigned_to_subscribers(
        self, group: GroupSubscription
    ) -> None:
        self.assert_valid(group, self.assign(group))

    @CONTRACT_SETTINGS
    @given(group=groups_with_claims())
    def test_corrupt_previous_ownership_still_gives_a_valid_assignment(
        self, group: GroupSubscription
    ) -> None:
        # Claims arrive from other clients' bytes: duplicated, conflicting, stale or naming
        # partitions that do not exist. None may make a partition owned twice or lost.
        cooperative = self.make_strategy().protocol is RebalanceProtocol.COOPERATIVE
        self.assert_valid(group, self.assign(group), cooperative=cooperative)

    @CONTRACT_SETTINGS
    @given(group=group_subscriptions())
    def test_every_member_in_output(self, group: GroupSubscription) -> None:
        assignment = self.make_strategy().assign(group)
        assert isinstance(assignment, GroupAssignment)
        assert set(assignment.assignments) == set(group.members)

    # -- determinism -----------------------------------------------------------------------

    @CONTRACT_SETTINGS
    @given(group=group_subscriptions())
    def test_same_input_same_output(self, group: GroupSubscription) -> None:
        first, second = self.assign(group), self.make_strategy().assign(group)
        assert _as_lists(first) == _as_lists(second)

    @CONTRACT_SETTINGS
    @given(group=group_subscriptions(min_members=2), seed=st.integers(0, 2**32 - 1))
    def test_member_insertion_order_does_not_matter(
        self, group: GroupSubscription, seed: int
    ) -> None:
        shuffled_ids = list(group.members)
        random.Random(seed).shuffle(shuffled_ids)
        shuffled = GroupSubscription(
            {m: group.members[m] for m in shuffled_ids},
            group.cluster,
            group.generation,
            group.options,
        )
        assert _as_lists(self.assign(group)) == _as_lists(self.assign(shuffled))

    def test_same_output_in_another_process(self) -> None:
        """Catches results that depend on str hashing (set/dict-of-set iteration order), which
        differs between processes and so between Spark executors."""
        strategy, groups = self.make_strategy(), _sample_groups(count=30, seed=54)
        here = [_as_lists(strategy.assign(g)) for g in groups]
        there = [_as_lists(a) for a in _assign_in_subprocess(strategy, groups)]
        for group, ours, theirs in zip(groups, here, there, strict=True):
            assert ours == theirs, f"another process assigned differently: {group}"

    def test_strategy_pickles(self) -> None:
        strategy = self.make_strategy()
        copy = pickle.loads(pickle.dumps(strategy))
        group = _sample_groups(count=1, seed=7)[0]
        assert _as_lists(copy.assign(group)) == _as_lists(strategy.assign(group))

    # -- the wire --------------------------------------------------------------------------

    @CONTRACT_SETTINGS
    @given(history=histories())
    def test_rounds_survive_the_wire(self, history: list[HistoryRound]) -> None:
        runner = self.runner(history[0].cluster)
        for step in history:
            try:
                rebalance = runner.rebalance(step.consumers, cluster=step.cluster)
            except InvalidAssignmentError as exc:  # moved a partition its owner still holds
                pytest.fail(str(exc))
            self.assert_settled_rebalance(rebalance)

    @CONTRACT_SETTINGS
    @given(history=histories())
    def test_cooperative_never_moves_an_owned_partition(self, history: list[HistoryRound]) -> None:
        if RebalanceProtocol.COOPERATIVE not in self.make_strategy().protocols:
            pytest.skip("EAGER-only strategy: members release everything before each round")
        runner = self.runner(history[0].cluster)
        for step in history:
            try:
                rebalance = runner.rebalance(step.consumers, cluster=step.cluster)
            except InvalidAssignmentError as exc:
                pytest.fail(str(exc))
            assert rebalance.settled, "follow-up rounds never stopped revoking partitions"

    def test_advertised_options_read_back_from_user_data(self) -> None:
        """Each option the strategy declares in ``user_data_options`` comes back from the user
        data a member configured with it sends (what a replay of a captured group relies on);
        ``member_options`` names no other option."""
        manager, base = self.plugin_manager(), self.make_strategy()
        declared = base.option_defaults or {}
        assert set(base.user_data_options) <= set(declared), (
            f"user_data_options {base.user_data_options} must be declared in option_defaults"
        )
        cases: list[tuple[Strategy, dict[str, Any]]] = [(base, {})]
        for name in base.user_data_options:
            value = self.strategy_options.get(name, declared[name])
            values = [value] + ([value + 1] if type(value) is int else [])
            cases += [
                (
                    manager.strategy(self.strategy_name, **{**self.strategy_options, name: v}),
                    {name: v},
                )
                for v in values
            ]
        for strategy, advertised in cases:
            user_data = strategy.subscription_user_data(("t0",), MemberState())
            decoded = manager.decode_user_data(strategy, "m", user_data, 3)
            read_back = dict(strategy.member_options(decoded))
            assert set(read_back) <= set(base.user_data_options), (
                f"member_options named {sorted(read_back)}, not in user_data_options"
            )
            for name, value in advertised.items():
                assert read_back.get(name) == value, (
                    f"built with {name}={value!r}, its user data reads back as {read_back}"
                )

    # -- edge groups -----------------------------------------------------------------------

    def test_empty_group(self) -> None:
        group = GroupSubscription({}, Cluster({"t0": 3}))
        assert self.assign(group).assignments == {}

    def test_member_without_subscription(self) -> None:
        group = _group({"idle": (), "busy": ("t0",)}, {"t0": 4})
        assignment = self.assign(group)
        assert assignment.partitions_of("idle") == ()
        self.assert_valid(group, assignment)

    def test_unknown_topic(self) -> None:
        group = _group({"a": ("t0", "ghost"), "b": ("ghost",)}, {"t0": 3})
        assignment = self.assign(group)
        assert all(tp.topic == "t0" for a in assignment.assignments.values() for tp in a.partitions)
        self.assert_valid(group, assignment)

    def test_more_members_than_partitions(self) -> None:
        group = _group({f"m{i}": ("t0",) for i in range(7)}, {"t0": 3})
        self.assert_valid(group, self.assign(group))


def _group(
    subscriptions: Mapping[str, tuple[str, ...]], partitions: Mapping[str, int]
) -> GroupSubscription:
    members = {m: Member(m, tuple(topics)) for m, topics in subscriptions.items()}
    return GroupSubscription(members, Cluster(partitions))


def _sample_groups(count: int, seed: int) -> list[GroupSubscription]:
    """Deterministic random groups (hypothesis cannot drive a subprocess)."""
    rng = random.Random(seed)
    groups = []
    for _ in range(count):
        topics = rng.sample(TOPIC_NAMES, rng.randint(1, 4))
        cluster = Cluster({t: rng.randint(0, 8) for t in topics})
        members = {
            f"consumer-{i}": Member(
                f"consumer-{i}", tuple(sorted(rng.sample(topics, rng.randint(0, len(topics)))))
            )
            for i in rng.sample(range(20), rng.randint(1, 6))
        }
        groups.append(GroupSubscription(members, cluster))
    return groups


_ASSIGN_SCRIPT = """
import pickle, sys
strategy, groups = pickle.load(sys.stdin.buffer)
pickle.dump([strategy.assign(g) for g in groups], sys.stdout.buffer)
"""


def _assign_in_subprocess(
    strategy: Strategy, groups: list[GroupSubscription]
) -> list[GroupAssignment]:
    hash_seed = "4243" if os.environ.get("PYTHONHASHSEED") == "4242" else "4242"
    env = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=os.pathsep.join(sys.path))
    completed = subprocess.run(
        [sys.executable, "-c", _ASSIGN_SCRIPT],
        input=pickle.dumps((strategy, groups)),
        capture_output=True,
        env=env,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr.decode(errors="replace")
    result: list[GroupAssignment] = pickle.loads(completed.stdout)
    return result


def _as_lists(assignment: GroupAssignment) -> dict[str, Any]:
    """member -> (partitions in order, user data): what goes on the wire, insertion order aside."""
    return {m: (a.partitions, a.user_data) for m, a in sorted(assignment.assignments.items())}


def _assert_round_trips(round_: RoundResult) -> None:
    for member_id, data in round_.assignment_bytes.items():
        sent = round_.assignment.assignments[member_id]
        received = wire.decode_member_assignment(data)
        assert received.partitions == sent.partitions, (
            f"{member_id}: partitions changed on the wire"
        )
        assert received.user_data == sent.user_data, f"{member_id}: assignment user data changed"
    for member_id, data in round_.subscriptions.items():
        decoded = wire.decode_subscription(data)
        assert decoded.user_data == round_.group.members[member_id].user_data
