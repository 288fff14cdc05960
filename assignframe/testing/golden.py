"""Java's recorded assignments (``shared/golden/assign.jsonl``) as test inputs for strategies.

In a plugin's tests, one class runs every recorded scenario of the strategy twice (the strategy
called on what Java's leader saw, and the whole group runner through the codec) and checks the
file still covers what the plugin claims::

    from assignframe.testing.golden import GoldenScenarios

    class TestRangeGolden(GoldenScenarios):
        strategy_name = "range"
        categories = ("static-members", "large")      # the file must hold these

or by hand, in a ``conftest.py``: ``golden.parametrize(metafunc, "range", start=__file__)``, then
a test taking ``golden_scenario`` runs once per recorded range scenario, and
``golden.leader_views(scenario)`` yields each round with the GroupSubscription Java's leader saw.
(The server assignors' counterpart is :mod:`assignframe.testing.server_golden`.)
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

import pytest

from ..javaorder import java_string_key
from ..model import Cluster, GroupSubscription, Member
from ..plugins import get_plugin_manager
from ..replay.classic import Replay, replay_scenario
from ..strategy import Strategy
from .paths import shared_path

__all__ = [
    "GoldenScenarios",
    "assert_assign_matches_java",
    "assert_replay_matches_java",
    "leader_views",
    "parametrize",
    "scenarios",
]


@cache
def _scenarios_in(path: Path, assignor: str) -> tuple[dict[str, Any], ...]:
    with path.open(encoding="utf-8") as lines:
        parsed = (json.loads(line) for line in lines)
        return tuple(s for s in parsed if s["assignor"] == assignor)


def scenarios(assignor: str, start: str | Path | None = None) -> tuple[dict[str, Any], ...]:
    """Every recorded scenario of ``assignor`` (read once per process)."""
    return _scenarios_in(shared_path(start) / "golden" / "assign.jsonl", assignor)


def leader_views(scenario: dict[str, Any]) -> Iterator[tuple[dict[str, Any], GroupSubscription]]:
    """Each round with the GroupSubscription Java's leader saw (metadata changes carry forward).

    Topics are in the order the subscription carries them: sorted as Java's String.compareTo.
    """
    counts, racks = scenario["partitions_per_topic"], scenario["partition_racks"]
    for round_ in scenario["rounds"]:
        counts = round_["partitions_per_topic"] or counts
        racks = round_["partition_racks"] or racks
        members = {
            member_id: Member(
                member_id,
                tuple(sorted(member["topics"], key=java_string_key)),
                group_instance_id=member["group_instance_id"],
                rack=member["rack"],
            )
            for member_id, member in round_["members"].items()
        }
        yield round_, GroupSubscription(members, Cluster(counts, racks), round_["generation"])


def parametrize(metafunc: pytest.Metafunc, assignor: str, start: str | Path | None = None) -> None:
    """Parametrize a test's ``golden_scenario`` argument over ``assignor``'s scenarios."""
    if "golden_scenario" in metafunc.fixturenames:
        found = scenarios(assignor, start)
        metafunc.parametrize("golden_scenario", found, ids=[s["id"] for s in found])


def assert_assign_matches_java(strategy: Strategy, scenario: dict[str, Any]) -> None:
    """``strategy.assign`` on what Java's leader saw gives Java's result, round by round, in
    Java's order (for strategies that must behave exactly like the Java client)."""
    for round_, group in leader_views(scenario):
        assignment = strategy.assign(group)
        ours = {
            m: [[tp.topic, tp.partition] for tp in assignment.partitions_of(m)]
            for m in group.members
        }
        assert ours == round_["result"], f"{scenario['id']} round {round_['round']}"


def assert_replay_matches_java(strategy_name: str, scenario: dict[str, Any]) -> Replay:
    """The group runner (subscriptions and assignments through the codec, the strategy found by
    name) ends each of the scenario's rebalances where Java did; returns the replay."""
    replay = replay_scenario(scenario, strategy=strategy_name)
    for step in replay.steps:
        java_round = scenario["rounds"][step.java_final_round]
        assert step.final.result_pairs() == java_round["result"], (
            f"{scenario['id']} round {step.scenario_round}"
        )
    return replay


class GoldenScenarios:
    """Base class: every recorded scenario of the strategy gives Java's result round by round,
    called directly and through the group runner. Set ``strategy_name`` (as installed) and
    ``categories`` (the scenario kinds the file must hold); ``rack_aware``: the file must hold a
    rack-aware scenario; ``eager``: the runner plays no follow-up round (a cooperative strategy
    sets False)."""

    strategy_name: ClassVar[str]
    categories: ClassVar[tuple[str, ...]] = ()
    rack_aware: ClassVar[bool] = True
    eager: ClassVar[bool] = True

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        parametrize(metafunc, self.strategy_name, start=metafunc.definition.path)

    def test_golden_file_covers_what_we_claim(self) -> None:
        found = scenarios(self.strategy_name, start=inspect.getfile(type(self)))
        assert found, f"no recorded {self.strategy_name} scenario"
        missing = set(self.categories) - {s["category"] for s in found}
        assert not missing, f"the golden file lacks {sorted(missing)}"
        assert any(s["rack_aware"] for s in found) or not self.rack_aware

    def test_direct_assign_matches_java(self, golden_scenario: dict[str, Any]) -> None:
        strategy = get_plugin_manager().strategy(self.strategy_name)
        assert_assign_matches_java(strategy, golden_scenario)

    def test_replay_through_runner_matches_java(self, golden_scenario: dict[str, Any]) -> None:
        replay = assert_replay_matches_java(self.strategy_name, golden_scenario)
        if self.eager:  # no follow-up rounds
            assert len(replay.steps) == len(golden_scenario["rounds"])
