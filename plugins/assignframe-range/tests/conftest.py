"""Java's recorded range rounds from shared/golden/assign.jsonl, as test parameters and inputs.

``golden_scenario`` parametrizes a test over every range scenario; ``leader_views(scenario)``
yields each round with the GroupSubscription Java's leader saw. Kept in step with the conftest of
assignframe-roundrobin; each strategy distribution is tested on its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from assignframe import Cluster, GroupSubscription, Member
from assignframe.testing import shared_path

ASSIGNOR = "range"


def golden_file() -> Path:
    return shared_path(__file__) / "golden" / "assign.jsonl"


@cache
def scenarios(assignor: str) -> tuple[dict[str, Any], ...]:
    with golden_file().open(encoding="utf-8") as lines:
        parsed = (json.loads(line) for line in lines)
        return tuple(s for s in parsed if s["assignor"] == assignor)


def java_topic_order(topics: list[str]) -> tuple[str, ...]:
    # ConsumerProtocol writes topics sorted by String.compareTo (UTF-16 units), as the leader sees.
    return tuple(sorted(topics, key=lambda t: t.encode("utf-16-be", "surrogatepass")))


def rounds(scenario: dict[str, Any]) -> Iterator[tuple[dict[str, Any], GroupSubscription]]:
    """Each round with the GroupSubscription Java's leader saw (metadata changes carry forward)."""
    counts, racks = scenario["partitions_per_topic"], scenario["partition_racks"]
    for round_ in scenario["rounds"]:
        counts = round_["partitions_per_topic"] or counts
        racks = round_["partition_racks"] or racks
        members = {
            member_id: Member(
                member_id,
                java_topic_order(member["topics"]),
                group_instance_id=member["group_instance_id"],
                rack=member["rack"],
            )
            for member_id, member in round_["members"].items()
        }
        yield (
            round_,
            GroupSubscription(members, Cluster(counts, racks), generation=round_["generation"]),
        )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "golden_scenario" in metafunc.fixturenames:
        found = scenarios(ASSIGNOR)
        metafunc.parametrize("golden_scenario", found, ids=[s["id"] for s in found])


@pytest.fixture
def golden_scenarios() -> tuple[dict[str, Any], ...]:
    return scenarios(ASSIGNOR)


@pytest.fixture
def leader_views():
    return rounds
