"""Java's recorded server-assignor calls (``shared/golden/kip848/assign.jsonl``) as test inputs.

In a server-assignor plugin's tests, one class runs every recorded scenario of the assignor (one
test per scenario) and the whole file (the counts guard against a shrinking file)::

    from assignframe.testing.server_golden import GoldenRounds

    class TestUniformGolden(GoldenRounds):
        assignor_name = "server:uniform"
        golden_counts = (121, 412)          # scenarios, rounds

or by hand: ``server_golden.assert_all_match_java(MyAssignor(), "uniform", start=__file__)``.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

import pytest

from ..javaorder import Uuid
from ..plugins import get_plugin_manager
from ..replay.server import ServerReplay, replay_server_scenario
from ..replay.server_input import server_rounds
from ..server_assignor import SERVER_PREFIX, ServerAssignor, ServerGroupSpec
from .paths import shared_path

__all__ = [
    "GoldenRounds",
    "assert_all_match_java",
    "assert_matches_java",
    "assert_topic_orders_are_javas",
    "golden_path",
    "scenarios",
]


def golden_path(start: str | Path | None = None) -> Path:
    """``shared/golden/kip848/assign.jsonl``."""
    return shared_path(start) / "golden" / "kip848" / "assign.jsonl"


@cache
def _scenarios_in(path: Path) -> tuple[dict[str, Any], ...]:
    with path.open(encoding="utf-8") as lines:
        return tuple(json.loads(line) for line in lines if line.strip())


def scenarios(assignor: str | None = None, start: str | Path | None = None) -> tuple[dict, ...]:
    """Every recorded scenario (of ``assignor`` when given), read once per process."""
    found = _scenarios_in(golden_path(start))
    return found if assignor is None else tuple(s for s in found if s["assignor"] == assignor)


def assert_matches_java(assignor: ServerAssignor, scenario: dict[str, Any]) -> ServerReplay:
    """Every round of ``scenario`` gives Java's result; Java's contract breaches are ours too."""
    replay = replay_server_scenario(scenario, assignor)
    for result in replay.rounds:
        where = f"{scenario['id']} round {result.round.index}"
        assert result.matches_java, (
            f"{where}: {result.result} != Java's {result.round.java['result']}"
        )
        assert bool(result.violations) == bool(result.round.java.get("violations")), (
            f"{where}: our violations {result.violations} vs Java's "
            f"{result.round.java.get('violations')}"
        )
    return replay


def assert_all_match_java(
    assignor: ServerAssignor, name: str, start: str | Path | None = None
) -> int:
    """:func:`assert_matches_java` over every scenario of ``name``; returns the round count."""
    return sum(len(assert_matches_java(assignor, s).rounds) for s in scenarios(name, start))


def assert_topic_orders_are_javas(
    found: Sequence[dict[str, Any]], ours: Callable[[ServerGroupSpec], Sequence[Uuid] | None]
) -> int:
    """In every round of ``found`` where Java recorded the order it walked topics in
    (``java_order.topics``) and ``ours(spec)`` computes one (None: not for this round), the two
    name the same topics in the same order. Returns how many rounds were compared."""
    checked = 0
    for scenario in found:
        for round_ in server_rounds(scenario):
            expected = round_.java["java_order"].get("topics")
            computed = None if expected is None else ours(round_.spec)
            if computed is None:
                continue
            names = [round_.topic_names[t] for t in computed]
            assert names == expected, f"{scenario['id']} round {round_.index}"
            checked += 1
    return checked


class GoldenRounds:
    """Base class: every recorded round of the assignor gives Java's result, and Java's contract
    breaches are the assignor's too. Set ``assignor_name`` and ``golden_counts``."""

    assignor_name: ClassVar[str]
    #: (scenarios, rounds) of the assignor in the file: a shrinking file fails the test.
    golden_counts: ClassVar[tuple[int, int]]

    @classmethod
    def java_name(cls) -> str:
        """The name the file gives the assignor (``uniform`` for ``server:uniform``)."""
        return cls.assignor_name.removeprefix(SERVER_PREFIX)

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if "golden_scenario" in metafunc.fixturenames:
            found = scenarios(self.java_name(), start=metafunc.definition.path)
            metafunc.parametrize("golden_scenario", found, ids=[s["id"] for s in found])

    def test_golden_scenario_matches_java(self, golden_scenario: dict[str, Any]) -> None:
        assignor = get_plugin_manager().server_assignor(self.assignor_name)
        assert_matches_java(assignor, golden_scenario)

    def test_whole_file_matches_java(self) -> None:
        start = inspect.getfile(type(self))
        assignor = get_plugin_manager().server_assignor(self.assignor_name)
        rounds = assert_all_match_java(assignor, self.java_name(), start=start)
        count = len(scenarios(self.java_name(), start=start))
        print(f"{self.java_name()}: {count} scenarios, {rounds} rounds equal to Java's result")
        assert (count, rounds) == self.golden_counts
