"""Java's recorded assignments (``shared/golden/assign.jsonl``) as test inputs for strategies.

In a plugin's ``conftest.py``::

    from assignframe.testing import golden

    def pytest_generate_tests(metafunc):
        golden.parametrize(metafunc, "range", start=__file__)

Then a test taking ``golden_scenario`` runs once per recorded range scenario, and
``golden.leader_views(scenario)`` yields each round with the GroupSubscription Java's leader saw.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from ..javaorder import java_string_key
from ..model import Cluster, GroupSubscription, Member
from ..replay.classic import Replay, replay_scenario
from ..strategy import Strategy
from .paths import shared_path

__all__ = [
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
