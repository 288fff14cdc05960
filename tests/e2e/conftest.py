"""Fixtures of the end-to-end tests: a real broker and groups of real consumer processes.

Every test here is marked ``e2e``; run them with ``pytest tests/e2e`` (``tox -e kafka-latest``).
The ``assignframe_kafka_broker`` fixture comes from assignframe's pytest plugin
(``assignframe.testing``).
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness modules next to this file

from e2e_harness import Group, create_topic  # noqa: E402

from assignframe.testing.broker import Broker  # noqa: E402

_names = itertools.count()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "e2e: runs real consumer processes against a real broker")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.path).parents:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture
def new_group(assignframe_kafka_broker: Broker, tmp_path: Path) -> Iterator[Callable[..., Group]]:
    """``new_group(partitions=6)``: a fresh topic and group; every member is stopped afterwards."""
    groups: list[Group] = []

    def make(partitions: int = 6) -> Group:
        index = next(_names)
        broker = assignframe_kafka_broker
        group = Group(broker, f"group-{index}", f"topic-{index}", tmp_path / f"group-{index}")
        group.partitions = create_topic(broker, group.topic, partitions)
        groups.append(group)
        return group

    yield make
    for group in groups:
        group.stop_all()
