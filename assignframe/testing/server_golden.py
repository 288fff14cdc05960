"""Java's recorded server-assignor calls (``shared/golden/kip848/assign.jsonl``) as test inputs.

In a server-assignor plugin's tests::

    from assignframe.testing import server_golden

    def test_every_round_matches_java():
        count = server_golden.assert_all_match_java(MyAssignor(), "uniform", start=__file__)
        print(f"{count} rounds equal Java's result")
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from ..replay.server import ServerReplay, replay_server_scenario
from ..server_assignor import ServerAssignor
from .paths import shared_path

__all__ = ["assert_all_match_java", "assert_matches_java", "golden_path", "scenarios"]


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
