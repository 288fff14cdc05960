"""Scenario files: the topics, lags and timeline of events a simulation plays.

The schema is documented in docs/simulate.md. A scenario is YAML or JSON (JSON is YAML); every
problem raises :class:`~assignframe.errors.ScenarioError` naming the file and the field, e.g.
``kip54.yaml: steps[1].events[0].leave: member 'C9' is not in the group``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..errors import ScenarioError
from ..jsonview import load_yaml
from ..kip848.convergence import OWNED_PARTITIONS_MODES
from ..model import group_size_error
from ._fields import (
    Where,
    mapping,
    names_list,
    optional_names,
    parse_lags,
    parse_racks,
    partition_count,
    reject_unknown,
)
from .events import Event, parse_event

__all__ = ["Scenario", "Step", "TopicSpec", "load_scenario", "parse_scenario"]


@dataclass(frozen=True)
class TopicSpec:
    """One topic at the start: partition count, replica racks and lag per partition."""

    name: str
    partitions: int
    racks: tuple[tuple[str, ...], ...] | None = None
    lags: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Step:
    """Events applied together, followed by one rebalance (plus cooperative follow-ups)."""

    name: str
    events: tuple[Event, ...]
    #: force (True) or suppress (False) the rebalance; None = the events decide
    rebalance: bool | None = None


@dataclass(frozen=True)
class Scenario:
    """A parsed, validated scenario file."""

    name: str
    description: str
    topics: tuple[TopicSpec, ...]
    steps: tuple[Step, ...]
    strategies: tuple[str, ...] | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""
    path: str = "<memory>"

    @property
    def pinned(self) -> bool:
        """True when every joining member names its own strategy preference list.

        A pinned scenario (e.g. a rolling strategy migration) runs once, as configured, instead
        of once per strategy under comparison.
        """
        joins = [e for step in self.steps for e in step.events if e.kind == "join"]
        return bool(joins) and all(
            e.strategies is not None or e.protocol == "consumer" for e in joins
        )


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate one scenario file (YAML or JSON)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        document = load_yaml(text)
    except yaml.YAMLError as exc:
        raise ScenarioError(f"{path}: not valid YAML/JSON: {exc}") from exc
    return parse_scenario(document, str(path))


def parse_scenario(document: Any, path: str = "<memory>") -> Scenario:
    """Validate an already-parsed scenario document."""
    where = Where(path)
    if not isinstance(document, Mapping):
        raise where.error("(top level)", "expected a mapping with 'topics' and 'steps'")
    reject_unknown(where, "(top level)", document, _TOP_LEVEL_KEYS)
    topics = _parse_topics(where, document.get("topics"))
    steps = _parse_steps(where, document.get("steps"))
    scenario = Scenario(
        name=str(document.get("name") or Path(path).stem),
        description=str(document.get("description", "")),
        topics=topics,
        steps=steps,
        strategies=optional_names(where, "strategies", document.get("strategies")),
        options=mapping(where, "options", document.get("options", {})),
        source=str(document.get("source", "")),
        path=path,
    )
    _check_timeline(where, scenario)
    _check_consumer_options(where, scenario.options)
    return scenario


def _check_consumer_options(where: Where, options: Mapping[str, Any]) -> None:
    """The consumer-protocol options (docs/simulate.md) have the right types and ranges."""
    for key, least in (
        ("heartbeat_interval_ms", 1),
        ("assignment_interval_ms", 0),
        ("revoke_after_heartbeats", 0),
    ):
        value = options.get(key)
        if value is not None and (type(value) is not int or value < least):
            raise where.error(f"options.{key}", f"expected an integer >= {least}, got {value!r}")
    owned = options.get("owned_partitions")
    if owned is not None and owned not in OWNED_PARTITIONS_MODES:
        raise where.error(
            "options.owned_partitions",
            f"expected one of {', '.join(OWNED_PARTITIONS_MODES)}, got {owned!r}",
        )
    if "server_assignors" in options:
        names_list(where, "options.server_assignors", options["server_assignors"])


_TOP_LEVEL_KEYS = {"name", "description", "source", "topics", "steps", "strategies", "options"}


def _parse_topics(where: Where, value: Any) -> tuple[TopicSpec, ...]:
    topics = mapping(where, "topics", value if value is not None else {})
    return tuple(_parse_topic(where, f"topics.{name}", name, spec) for name, spec in topics.items())


def _parse_topic(where: Where, field_path: str, name: str, spec: Any) -> TopicSpec:
    if isinstance(spec, int) and not isinstance(spec, bool):
        spec = {"partitions": spec}
    spec = mapping(where, field_path, spec)
    reject_unknown(where, field_path, spec, {"partitions", "racks", "lag"})
    count = partition_count(where, f"{field_path}.partitions", spec.get("partitions"))
    racks = parse_racks(where, f"{field_path}.racks", spec.get("racks"), count)
    lags = parse_lags(where, f"{field_path}.lag", spec.get("lag"), count)
    return TopicSpec(str(name), count, racks, lags)


def _parse_steps(where: Where, value: Any) -> tuple[Step, ...]:
    if not isinstance(value, list) or not value:
        raise where.error("steps", "expected a non-empty list of steps")
    return tuple(_parse_step(where, f"steps[{i}]", i, step) for i, step in enumerate(value))


def _parse_step(where: Where, field_path: str, index: int, value: Any) -> Step:
    step = mapping(where, field_path, value)
    reject_unknown(where, field_path, step, {"name", "events", "rebalance"})
    rebalance = step.get("rebalance")
    if rebalance is not None and not isinstance(rebalance, bool):
        raise where.error(f"{field_path}.rebalance", "expected true or false")
    events = step.get("events")
    if not isinstance(events, list) or not events:
        raise where.error(f"{field_path}.events", "expected a non-empty list of events")
    parsed = tuple(
        parse_event(where, f"{field_path}.events[{j}]", event) for j, event in enumerate(events)
    )
    return Step(str(step.get("name") or f"step {index}"), parsed, rebalance)


def _check_timeline(where: Where, scenario: Scenario) -> None:
    """Walk the timeline once so events naming absent members or topics fail at load time."""
    members: set[str] = set()
    topics = {t.name: t.partitions for t in scenario.topics}
    too_large = group_size_error(topics)
    if too_large:
        raise where.error("topics", too_large)
    for i, step in enumerate(scenario.steps):
        for j, event in enumerate(step.events):
            field_path = f"steps[{i}].events[{j}].{event.kind}"
            problem = event.check(members, topics)
            if problem:
                raise where.error(field_path, problem)
            event.apply_names(members, topics)
            too_large = group_size_error(topics)
            if too_large:
                raise where.error(field_path, too_large)
