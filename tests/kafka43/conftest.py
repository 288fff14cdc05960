"""Apache Kafka 4.3.1 (shared/java/broker-4.3) with real share-group and Streams-group members
(shared/java/clients-4.3). The session's broker is assignframe's ``assignframe_kafka_broker``
started at the version ``$ASSIGNFRAME_KAFKA_VERSION`` names: these tests need 4.3 (``tox -e
cluster-43`` sets it) and fail, never skip, on another."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # runners.py, next to this file

from runners import JvmMember, start_runner  # noqa: E402

from assignframe.testing.broker import Broker  # noqa: E402

_names = itertools.count()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def kafka43(assignframe_kafka_broker: Broker) -> Broker:
    """The session's Kafka 4.3.1 broker."""
    node = assignframe_kafka_broker.handle
    if node is None or getattr(node, "version", None) != "4.3":
        pytest.fail("tests/kafka43 need Apache Kafka 4.3 (share and Streams groups): run them "
                    "with ASSIGNFRAME_KAFKA_VERSION=4.3 (tox -e cluster-43)")
    return assignframe_kafka_broker


@pytest.fixture
def runner(tmp_path) -> Iterator:
    """``runner(script, *args, env=...)`` starts a clients-4.3 runner; all are killed at the end
    (their stderr, Kafka's client log, stays in the test's tmp_path)."""
    started: list[JvmMember] = []

    def start(script: str, *args: str, env: dict[str, str] | None = None) -> JvmMember:
        member = start_runner(script, args, tmp_path / f"{script}-{next(_names)}.log", env)
        started.append(member)
        return member

    yield start
    for member in started:
        member.kill()
