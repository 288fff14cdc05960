"""Replaying a recorded scenario through the runner.

Each recorded round that is *not* a follow-up becomes one :meth:`GroupRunner.rebalance`: the same
members (topics, racks, static ids), the metadata changes taking effect in that round, and crafted
subscription bytes used verbatim. Rounds the scenario marks ``followup`` are Java's own follow-ups;
they are not copied: the runner plays its own follow-ups (whose number may differ when our
strategy differs from Java's), and the scenario's only mark where Java's ended.

To compare with Java, take a :class:`ReplayStep`: ``step.final`` is our round after scenario round
``step.scenario_round`` plus our follow-ups; ``step.java_final_round`` is the index of Java's last
recorded round before the next non-follow-up round.

Generations follow the recording (the coordinator's numbering), so bytes carrying a generation are
comparable with Java's; when our own follow-ups have already gone past a recorded generation,
numbering simply continues from ours.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ScenarioError
from ..plugins.manager import PluginManager
from ..rebalance.runner import DEFAULT_MAX_FOLLOWUPS, Consumer, GroupRunner, Rebalance, RoundResult
from .scenario import cluster_of, lags_of, validate_scenario

__all__ = ["Replay", "ReplayStep", "replay_scenario"]


@dataclass(frozen=True)
class ReplayStep:
    """One recorded non-follow-up round and what the runner made of it.

    :param scenario_round: index of the recorded round in ``scenario["rounds"]``
    :param java_rounds: that index and the indexes of Java's follow-ups after it
    :param rebalance: our round and our own follow-ups
    """

    scenario_round: int
    java_rounds: tuple[int, ...]
    rebalance: Rebalance

    @property
    def java_final_round(self) -> int:
        """Index of Java's last recorded round before the next non-follow-up round."""
        return self.java_rounds[-1]

    @property
    def rounds(self) -> tuple[RoundResult, ...]:
        return self.rebalance.rounds

    @property
    def final(self) -> RoundResult:
        """Our last round of this step (compare with ``java_final_round``)."""
        return self.rebalance.final


@dataclass(frozen=True)
class Replay:
    """A replayed scenario: one step per recorded non-follow-up round."""

    scenario_id: str
    strategy: str
    steps: tuple[ReplayStep, ...]

    @property
    def rounds(self) -> tuple[RoundResult, ...]:
        """Every round we played, in order (follow-ups have ``followup=True``)."""
        return tuple(r for step in self.steps for r in step.rounds)

    @property
    def settled(self) -> bool:
        """False if some rebalance still had members rejoining after ``max_followups``."""
        return all(step.rebalance.settled for step in self.steps)

    def step_for(self, scenario_round: int) -> ReplayStep:
        """The step whose recorded rounds include ``scenario_round`` (a follow-up maps to its
        step)."""
        for step in self.steps:
            if scenario_round in step.java_rounds:
                return step
        raise IndexError(f"scenario {self.scenario_id!r} has no round {scenario_round}")


def replay_scenario(
    scenario: Mapping[str, Any],
    strategy: str | None = None,
    pm: PluginManager | None = None,
    *,
    options: Mapping[str, Any] | None = None,
    max_followups: int = DEFAULT_MAX_FOLLOWUPS,
) -> Replay:
    """Play ``scenario`` (golden ``assign.jsonl`` layout) through a :class:`GroupRunner`.

    :param strategy: strategy name to run (default: the scenario's ``assignor``); members that
        list their own ``strategies`` keep them; members whose recorded user data it cannot
        read count as having no prior ownership for it (one logged warning each)
    :param pm: plugin manager (default: the process-wide one)
    :param options: strategy options
    :raises ScenarioError: the scenario is malformed or names no strategy
    """
    scenario_id = str(scenario.get("id") or "<scenario>")
    validate_scenario(scenario, scenario_id)
    strategy_name = strategy or scenario.get("assignor")
    if not strategy_name:
        raise ScenarioError(f"{scenario_id}: assignor: no strategy named; pass one explicitly")
    runner = GroupRunner(
        strategy_name,
        cluster=cluster_of(scenario["partitions_per_topic"], scenario.get("partition_racks")),
        pm=pm,
        options=options,
        max_followups=max_followups,
        name=f"scenario {scenario_id!r}",
    )
    steps = tuple(
        ReplayStep(
            java_rounds[0], java_rounds, _play(runner, scenario, scenario["rounds"][java_rounds[0]])
        )
        for java_rounds in _java_steps(scenario["rounds"])
    )
    return Replay(scenario_id, strategy_name, steps)


def _java_steps(rounds: list[dict[str, Any]]) -> list[tuple[int, ...]]:
    """Recorded round indexes grouped as (non-follow-up round, its follow-ups...)."""
    steps: list[list[int]] = []
    for index, round_ in enumerate(rounds):
        if round_.get("followup") and steps:
            steps[-1].append(index)
        else:
            steps.append([index])
    return [tuple(step) for step in steps]


def _play(runner: GroupRunner, scenario: Mapping[str, Any], round_: Mapping[str, Any]) -> Rebalance:
    cluster = None
    if round_.get("partitions_per_topic") is not None or round_.get("partition_racks") is not None:
        cluster = cluster_of(
            _current(round_, runner, "partitions_per_topic"),
            _current(round_, runner, "partition_racks"),
        )
    recorded = round_.get("generation")
    generation = max(recorded, runner.generation + 1) if recorded is not None else None
    consumers = [
        _consumer(member_id, spec, round_, bool(scenario.get("crafted")))
        for member_id, spec in round_["members"].items()
    ]
    return runner.rebalance(
        consumers, cluster=cluster, lags=lags_of(round_.get("lags")), generation=generation
    )


def _current(round_: Mapping[str, Any], runner: GroupRunner, key: str) -> Any:
    """The round's new value for ``key``, else what the runner's cluster has now."""
    if round_.get(key) is not None:
        return round_[key]
    if key == "partitions_per_topic":
        return runner.cluster.partitions_per_topic
    return runner.cluster.partition_racks


def _consumer(
    member_id: str, spec: Mapping[str, Any], round_: Mapping[str, Any], crafted: bool
) -> Consumer:
    subscription = None
    if crafted or "crafted" in spec:
        subscription = bytes.fromhex(round_["subscriptions"][member_id]["hex"])
    return Consumer(
        member_id=member_id,
        topics=tuple(spec["topics"]),
        strategies=tuple(spec.get("strategies") or ()),
        rack=spec.get("rack"),
        group_instance_id=spec.get("group_instance_id"),
        subscription=subscription,
    )
