"""The rebalance simulator: play a scenario's timeline through every strategy and compare.

    from assignframe.simulate import load_scenario, simulate
    result = simulate(load_scenario("kip54-example-1.yaml"), strategies=["range", "sticky"])

Scenario schema and result document: docs/simulate.md. Shipped scenarios:
:func:`shipped_scenarios`.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from .consumer_protocol import missing_server_assignors
from .events import Event
from .scenario import Scenario, Step, TopicSpec, load_scenario, parse_scenario
from .simulator import AS_CONFIGURED, run_labels, simulate

__all__ = [
    "AS_CONFIGURED",
    "Event",
    "Scenario",
    "Step",
    "TopicSpec",
    "load_scenario",
    "missing_server_assignors",
    "parse_scenario",
    "run_labels",
    "shipped_scenarios",
    "simulate",
]


def shipped_scenarios() -> list[Path]:
    """The scenario files shipped in ``assignframe/data/scenarios``, sorted by name."""
    folder = Path(str(files("assignframe") / "data" / "scenarios"))
    return sorted(folder.glob("*.yaml"))
