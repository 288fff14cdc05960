"""Brokers for the cluster reader's tests: Apache Kafka 4.1 from shared/java/broker (one node per
session, :class:`assignframe.testing.kafka_node.KafkaNode`; a missing broker or Java fails
loudly), and member processes for real groups."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from assignframe.testing.broker_base import LocalBrokerError
from assignframe.testing.child import Child
from assignframe.testing.kafka_node import KafkaNode, find_broker_dist

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def kafka_node(tmp_path_factory):
    """The session's node (``stop()`` and ``start()`` restart it from its directory)."""
    try:
        node = KafkaNode(find_broker_dist(ROOT), tmp_path_factory.mktemp("kafka") / "node")
        node.start()
    except LocalBrokerError as error:
        pytest.fail(str(error))
    yield node
    node.stop()


@pytest.fixture(scope="session")
def kafka(kafka_node) -> str:
    """The bootstrap address of the session's Apache Kafka 4.1 broker."""
    return kafka_node.bootstrap


MEMBER_SCRIPT = Path(__file__).parent / "member.py"

#: How long a member may take to own partitions (a deadline on a loaded machine, never a speed).
READY_SECONDS = 90


def start_member(*args: str, log: Path | None = None) -> Child:
    """A member process (member.py BOOTSTRAP GROUP TOPIC CLIENT [STRATEGY]), watched: a failure
    waiting on it shows its JSON state lines, its stack and the end of ``log`` (the broker's)."""
    return Child.start([sys.executable, str(MEMBER_SCRIPT), *args], f"member {' '.join(args[1:])}",
                       logs=[log], stack_signal=signal.SIGUSR1)


def ready(member: Child, seconds: float = READY_SECONDS) -> None:
    """Wait until the member printed "ready" (it owns partitions); fails at the deadline, or as
    soon as it exits, with what it said."""
    member.wait_for_line("ready", seconds)


@pytest.fixture
def members(kafka_node):
    """Start member processes on the session's node; every one left is killed at the end."""
    started: list[Child] = []

    def start(*args: str) -> Child:
        started.append(start_member(*args, log=kafka_node.log_path))
        return started[-1]

    yield start
    for member in started:
        member.stop()
