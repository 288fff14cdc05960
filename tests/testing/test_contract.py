"""The contract suite passes a good strategy and catches each broken rule (run with pytester)."""

from __future__ import annotations

import re
import textwrap

import pytest

STRATEGIES = """
import random
from assignframe import GroupAssignment, RebalanceProtocol, Strategy, hookimpl


def partitions(group):
    return [tp for t in group.subscribed_topics() for tp in group.cluster.partitions(t)]


def subscribers(group, topic, order=sorted):
    return order([m for m in group.members if topic in group.members[m].topics])


class Good(Strategy):
    name = "good"

    def assign(self, group):
        result = {m: [] for m in group.members}
        for tp in partitions(group):
            takers = subscribers(group, tp.topic)
            result[takers[tp.partition % len(takers)]].append(tp)
        return GroupAssignment.from_partitions(result)


class GoodRedundant(Strategy):
    name = "good-redundant"

    def owners_per_partition(self, group):
        return 2

    def assign(self, group):
        result = {m: [] for m in group.members}
        for tp in partitions(group):
            for member_id in subscribers(group, tp.topic)[:2]:
                result[member_id].append(tp)
        return GroupAssignment.from_partitions(result)


class DoubleOwner(Good):
    name = "double-owner"

    def assign(self, group):
        return GroupAssignment.from_partitions(
            {
                m: [tp for tp in partitions(group) if tp.topic in group.members[m].topics]
                for m in group.members
            }
        )


class FalselyRedundant(Good):
    name = "falsely-redundant"

    def owners_per_partition(self, group):
        return 2


class NonSubscriber(Good):
    name = "non-subscriber"

    def assign(self, group):
        first = sorted(group.members)[:1]
        return GroupAssignment.from_partitions(
            {m: (partitions(group) if m in first else []) for m in group.members}
        )


class DropsMember(Good):
    name = "drops-member"

    def assign(self, group):
        full = super().assign(group).assignments
        return GroupAssignment({m: a for m, a in full.items() if m != max(full, default=None)})


class Random(Good):
    name = "random"

    def assign(self, group):
        result = {m: [] for m in group.members}
        for tp in partitions(group):
            result[random.choice(subscribers(group, tp.topic))].append(tp)
        return GroupAssignment.from_partitions(result)


class InsertionOrder(Good):
    name = "insertion-order"

    def assign(self, group):
        result = {m: [] for m in group.members}
        for tp in partitions(group):
            takers = subscribers(group, tp.topic, order=list)
            result[takers[tp.partition % len(takers)]].append(tp)
        return GroupAssignment.from_partitions(result)


class HashOrder(Good):
    name = "hash-order"

    def assign(self, group):
        result = {m: [] for m in group.members}
        for tp in partitions(group):
            takers = subscribers(group, tp.topic, order=lambda ids: list(set(ids)))
            result[takers[tp.partition % len(takers)]].append(tp)
        return GroupAssignment.from_partitions(result)


class UnreadableUserData(Good):
    name = "unreadable-user-data"

    def subscription_user_data(self, topics, state):
        return b"\\xff"

    def decode_user_data(self, user_data, subscription_version):
        return user_data.decode("ascii")


class EmptyGroupCrash(Good):
    name = "empty-group-crash"

    def assign(self, group):
        max(group.members)
        return super().assign(group)


class UnknownTopicCrash(Good):
    name = "unknown-topic-crash"

    def assign(self, group):
        for member in group.members.values():
            for topic in member.topics:
                group.cluster.partitions_per_topic[topic]
        return super().assign(group)


class NoSubscriptionCrash(Good):
    name = "no-subscription-crash"

    def assign(self, group):
        for member in group.members.values():
            1 / len(member.topics)
        return super().assign(group)


class CooperativeThief(Good):
    name = "cooperative-thief"
    protocols = (RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE)


class GoodCooperative(Good):
    # Good's targets, but a partition another member still owns is withheld this round.
    name = "good-cooperative"
    protocols = (RebalanceProtocol.COOPERATIVE,)

    def assign(self, group):
        owner = {tp: m for m, member in group.members.items() for tp in member.owned_partitions}
        return GroupAssignment.from_partitions(
            {
                m: [tp for tp in a.partitions if owner.get(tp, m) == m]
                for m, a in super().assign(group).assignments.items()
            }
        )


class CooperativeLoser(GoodCooperative):
    # Once members own anything, drops every partition nobody owns: unowned, not withheld.
    name = "cooperative-loser"

    def assign(self, group):
        claimed = {tp for member in group.members.values() for tp in member.owned_partitions}
        assignment = super().assign(group)
        if not claimed:
            return assignment
        return GroupAssignment.from_partitions(
            {
                m: [tp for tp in a.partitions if tp in claimed]
                for m, a in assignment.assignments.items()
            }
        )


class Unpicklable(Good):
    name = "unpicklable"

    def __init__(self, **options):
        super().__init__(**options)
        self.helper = lambda: None


def plugin(cls):
    class Plugin:
        @hookimpl
        def register_strategies(self, registry):
            registry.add(cls)

    return Plugin()
"""

#: broken strategy -> the contract test that must fail for it.
BROKEN = {
    "DoubleOwner": "test_every_subscribed_partition_assigned_to_subscribers",
    "FalselyRedundant": "test_every_subscribed_partition_assigned_to_subscribers",
    "NonSubscriber": "test_every_subscribed_partition_assigned_to_subscribers",
    "DropsMember": "test_every_member_in_output",
    "Random": "test_same_input_same_output",
    "InsertionOrder": "test_member_insertion_order_does_not_matter",
    "HashOrder": "test_same_output_in_another_process",
    "UnreadableUserData": "test_rounds_survive_the_wire",
    "EmptyGroupCrash": "test_empty_group",
    "UnknownTopicCrash": "test_unknown_topic",
    "NoSubscriptionCrash": "test_member_without_subscription",
    "CooperativeThief": "test_cooperative_never_moves_an_owned_partition",
    "CooperativeLoser": "test_rounds_survive_the_wire",
    "Unpicklable": "test_strategy_pickles",
}
GOOD = ("Good", "GoodRedundant")
#: withholds what another member still owns, as Java's cooperative assignors do
GOOD_COOPERATIVE = "GoodCooperative"


def run_contract(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> dict[tuple[str, str], str]:
    """Run the contract over every strategy above in a fresh interpreter (the contract reads its
    example count and shrinking switch at import); (class, test) -> outcome."""
    pytester.makepyfile(contract_strategies=STRATEGIES)
    classes = "\n".join(
        textwrap.dedent(
            f"""
            class Test{name}(StrategyContract):
                strategy_name = contract_strategies.{name}.name
                strategy_plugin = contract_strategies.plugin(contract_strategies.{name})
            """
        )
        for name in (*GOOD, GOOD_COOPERATIVE, *BROKEN)
    )
    header = "import contract_strategies\nfrom assignframe.testing import StrategyContract\n"
    pytester.makepyfile(test_contracts=header + classes)
    monkeypatch.setenv("ASSIGNFRAME_CONTRACT_EXAMPLES", "15")
    monkeypatch.setenv("ASSIGNFRAME_CONTRACT_SHRINK", "0")
    monkeypatch.setenv("PYTHONPATH", str(pytester.path))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-v", "test_contracts.py")
    outcome_line = re.compile(r"^test_contracts.py::Test(\w+)::(\w+) (PASSED|FAILED|SKIPPED|ERROR)")
    results = {}
    for line in result.outlines:
        match = outcome_line.match(line)
        if match:
            results[(match[1], match[2])] = match[3].lower()
    return results


def test_contract_passes_good_and_catches_every_broken_rule(pytester, monkeypatch):
    results = run_contract(pytester, monkeypatch)
    for name in GOOD:
        outcomes = {test: outcome for (cls, test), outcome in results.items() if cls == name}
        assert len(outcomes) >= 12
        assert set(outcomes.values()) <= {"passed", "skipped"}, (name, outcomes)
        assert outcomes["test_cooperative_never_moves_an_owned_partition"] == "skipped"
    cooperative = {t: outcome for (cls, t), outcome in results.items() if cls == GOOD_COOPERATIVE}
    assert len(cooperative) >= 12 and set(cooperative.values()) == {"passed"}, cooperative
    for name, failing_test in BROKEN.items():
        assert results[(name, failing_test)] == "failed", (name, failing_test)
    # Moving a partition its owner still holds fails the wire test too (the leader rejects it).
    assert results[("CooperativeThief", "test_rounds_survive_the_wire")] == "failed"
