"""Play a scenario through the core's group runner, once per strategy under comparison.

Each run keeps one :class:`~assignframe.rebalance.runner.GroupRunner` for the whole timeline, so
member
state (owned partitions, sticky user data, generations) carries from step to step exactly as in
real consumers; the bytes go through the codec and cooperative follow-up rounds are played.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ..classic.protocol import member_rebalance_protocol
from ..errors import AssignframeError
from ..metrics import metrics_record
from ..model import GroupAssignment, GroupSubscription, MemberAssignment
from ..plugins.manager import PluginManager, get_plugin_manager
from ..rebalance.runner import GroupRunner, Rebalance
from ._logs import captured_warnings
from .consumer_protocol import ConsumerSide
from .group import SimulatedGroup, StepChange
from .scenario import Scenario, Step

__all__ = ["AS_CONFIGURED", "run_labels", "simulate"]

#: The label of the single run of a scenario whose members all name their own strategies.
AS_CONFIGURED = "as configured"


def run_labels(scenario: Scenario, requested: Sequence[str] | None, pm: PluginManager) -> list[str]:
    """Which runs to play: ``--strategies`` > the scenario's ``strategies`` > all installed;
    a pinned scenario (every member names its strategies) runs once, as configured."""
    if scenario.pinned:
        return [AS_CONFIGURED]
    return list(requested or scenario.strategies or pm.strategy_names())


def simulate(
    scenario: Scenario, strategies: Sequence[str] | None = None, pm: PluginManager | None = None
) -> dict[str, Any]:
    """Every run of ``scenario``; the JSON document docs/simulate.md describes."""
    pm = pm or get_plugin_manager()
    runs = [_Run(scenario, label, pm).play() for label in run_labels(scenario, strategies, pm)]
    return {
        "scenario": scenario.name,
        "description": scenario.description,
        "source": scenario.source,
        "path": scenario.path,
        "runs": runs,
    }


class _Run:
    """One pass over the timeline with one default strategy (or as configured)."""

    def __init__(self, scenario: Scenario, label: str, pm: PluginManager) -> None:
        self.scenario, self.label, self.pm = scenario, label, pm
        self.state = SimulatedGroup(scenario)
        self.defaults = _first_offer(scenario) if label == AS_CONFIGURED else (label,)
        self.runner: GroupRunner | None = None
        self.group: GroupSubscription | None = None
        self.assignment: GroupAssignment | None = None
        self.owners = 1
        self.consumer = ConsumerSide(scenario.options, pm)

    def play(self) -> dict[str, Any]:
        steps: list[dict[str, Any]] = []
        try:
            for index, step in enumerate(self.scenario.steps):
                steps.append(self._step(index, step))
        except Exception as exc:  # a broken strategy fails its own run, loudly, not the others
            failed_at = self.scenario.steps[len(steps)].name
            kind = "" if isinstance(exc, AssignframeError) else f"{type(exc).__name__}: "
            return self._result(steps, f"step {len(steps)} ({failed_at}): {kind}{exc}")
        return self._result(steps, None)

    def _result(self, steps: list[dict[str, Any]], error: str | None) -> dict[str, Any]:
        return {
            "label": self.label,
            "offered": list(self.defaults),
            "error": error,
            "steps": steps,
            "totals": _totals(steps),
        }

    def _step(self, index: int, step: Step) -> dict[str, Any]:
        change = StepChange()
        for event in step.events:
            self.state.apply(event, change)
        rebalance = change.rebalance if step.rebalance is None else step.rebalance
        notes = list(change.notes or [])
        record = {
            "index": index,
            "name": step.name,
            "events": [e.describe() for e in step.events],
            "notes": notes,
            "group_type": "classic",
        }
        if not self.state.members:
            self.group, self.assignment = None, None
            return record | _empty_step(rebalance)
        if rebalance and self._on_consumer_protocol(notes):
            return record | self._consumer_step(notes)
        if rebalance:
            return record | self._rebalance(notes)
        return record | self._measure_only()

    def _on_consumer_protocol(self, notes: list[str]) -> bool:
        """Is the group a consumer group this step (converting or downgrading as the rules say)?"""
        speaking = bool(self.state.consumer_protocol_members())
        if speaking and not self.consumer.active:
            generation = self.group.generation if self.group is not None else 0
            if not self.consumer.convert(self.state, self.assignment, generation, notes):
                return False
        elif not speaking and self.consumer.active:
            self.consumer.downgrade(notes)
            if self.assignment is not None:
                self._runner().adopt(
                    _present_only(self.assignment, self.state), self.consumer.epoch
                )
        return self.consumer.active

    def _consumer_step(self, notes: list[str]) -> dict[str, Any]:
        owned = self.assignment
        previous = self._previous_by_name(
            GroupAssignment({m.member_id: _EMPTY for m in self.state.members.values()})
        )
        self.group, self.assignment, record = self.consumer.step(self.state, owned, previous, notes)
        self.owners = 1
        return record | self._view()

    def _rebalance(self, notes: list[str]) -> dict[str, Any]:
        consumers = self.state.consumers(self.defaults)
        runner = self._runner()
        with captured_warnings() as logged:
            result = runner.rebalance(
                consumers, cluster=self.state.cluster(), lags=self.state.lag_map()
            )
        notes += logged
        final = result.final
        previous = self._previous_by_name(final.assignment)
        self.group, self.assignment = final.group, final.assignment
        self.owners = final.owners_per_partition
        notes += _rebalance_notes(result)
        metrics = metrics_record(
            self.group, self.assignment, previous, self.owners, rounds=len(result.rounds)
        )
        return {
            "rebalanced": True,
            "protocol": final.protocol,
            "generation": final.generation,
            "rebalance_protocol": self._rebalance_protocol(consumers),
            "settled": result.settled,
            **self._view(),
            "metrics": metrics,
        }

    def _previous_by_name(self, current: GroupAssignment) -> GroupAssignment | None:
        """The previous assignment keyed by the current member ids of the same scenario names,
        so a restarted member that gets its partitions back has not "moved" them."""
        if self.assignment is None:
            return None
        id_of = {self.state.name_of(m): m for m in current.assignments}
        return GroupAssignment(
            {id_of.get(self.state.name_of(m), m): a for m, a in self.assignment.assignments.items()}
        )

    def _measure_only(self) -> dict[str, Any]:
        """No rebalance (e.g. only lags changed): the same assignment, measured again."""
        if self.group is None or self.assignment is None:
            return _empty_step(False)
        self.group = dataclasses.replace(self.group, lags=self.state.lag_map())
        metrics = metrics_record(self.group, self.assignment, self.assignment, self.owners, 0)
        return {
            "rebalanced": False,
            "protocol": None,
            "generation": self.group.generation,
            "rebalance_protocol": None,
            "settled": True,
            **self._view(),
            "metrics": metrics,
        }

    def _runner(self) -> GroupRunner:
        if self.runner is None:
            self.runner = GroupRunner(
                self.defaults,
                cluster=self.state.cluster(),
                pm=self.pm,
                options=self.scenario.options,
            )
        return self.runner

    def _rebalance_protocol(self, consumers: Sequence[Any]) -> str:
        kinds = {
            member_rebalance_protocol(
                [self.pm.registry.get(n).cls.protocols for n in c.strategies], c.member_id
            ).value
            for c in consumers
        }
        return kinds.pop() if len(kinds) == 1 else "mixed"

    def _view(self) -> dict[str, Any]:
        assert self.assignment is not None
        name_of = self.state.name_of
        return {
            "members": [name_of(m) for m in self.assignment.assignments],
            "assignment": {
                name_of(m): [[tp.topic, tp.partition] for tp in a.partitions]
                for m, a in self.assignment.assignments.items()
            },
        }


_EMPTY = MemberAssignment(())


def _present_only(assignment: GroupAssignment, state: SimulatedGroup) -> GroupAssignment:
    present = {m.member_id for m in state.members.values()}
    return GroupAssignment({m: a for m, a in assignment.assignments.items() if m in present})


def _first_offer(scenario: Scenario) -> tuple[str, ...]:
    for step in scenario.steps:
        for event in step.events:
            if event.kind == "join" and event.strategies:
                return event.strategies
    return ()


def _empty_step(rebalance: bool) -> dict[str, Any]:
    return {
        "rebalanced": False,
        "protocol": None,
        "generation": None,
        "rebalance_protocol": None,
        "settled": True,
        "members": [],
        "assignment": {},
        "metrics": {"valid": True, "problems": "", "rounds": 0},
    }


def _rebalance_notes(result: Rebalance) -> list[str]:
    notes = [
        f"cooperative follow-up round (generation {followup.generation}): "
        f"{', '.join(before.rejoining)} revoked partitions and rejoined"
        for before, followup in zip(result.rounds, result.rounds[1:], strict=False)
    ]
    if not result.settled:
        notes.append(
            "did not settle: members still had partitions to revoke after the last follow-up"
        )
    return notes


def _totals(steps: Sequence[dict[str, Any]]) -> dict[str, Any]:
    metrics = [s["metrics"] for s in steps if s.get("rebalanced") or s.get("members")]
    return {
        "rebalances": sum(1 for s in steps if s.get("rebalanced")),
        "rounds": sum(m.get("rounds") or 0 for m in metrics),
        "partitions_moved": sum(m.get("partitions_moved") or 0 for m in metrics),
        "max_spread": max((m.get("spread") or 0 for m in metrics), default=0),
        "final_spread": metrics[-1].get("spread") if metrics else None,
        "idle_member_steps": sum(m.get("idle_members") or 0 for m in metrics),
        "max_lag_spread": max(
            (m["lag_spread"] for m in metrics if m.get("lag_spread") is not None), default=None
        ),
        "invalid_steps": sum(1 for m in metrics if not m.get("valid", True)),
        "max_unowned_ms": max((s.get("max_unowned_ms") or 0 for s in steps), default=0),
    }
