"""Every range scenario and round of shared/golden/kip848/assign.jsonl: our result == Java's."""

from __future__ import annotations

import pytest
from assignframe_server_range import RangeAssignor

from assignframe.testing import server_golden

SCENARIOS = server_golden.scenarios("range", start=__file__)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_scenario_matches_java(scenario):
    server_golden.assert_matches_java(RangeAssignor(), scenario)


def test_whole_file_matches_java():
    rounds = server_golden.assert_all_match_java(RangeAssignor(), "range", start=__file__)
    print(f"range: {len(SCENARIOS)} scenarios, {rounds} rounds equal to Java's result")
    assert (len(SCENARIOS), rounds) == (84, 279)
