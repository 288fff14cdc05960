"""Brokers for the cluster reader's tests: Apache Kafka 4.1 from shared/java/broker (one node per
session, :class:`assignframe.testing.kafka_node.KafkaNode`; a missing broker or Java fails
loudly), and member processes for real groups."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from assignframe.testing.broker_base import BrokerError
from assignframe.testing.kafka_node import KafkaNode, find_broker_dist

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def kafka_node(tmp_path_factory):
    """The session's node (``stop()`` and ``start()`` restart it from its directory)."""
    try:
        node = KafkaNode(find_broker_dist(ROOT), tmp_path_factory.mktemp("kafka") / "node")
        node.start()
    except BrokerError as error:
        pytest.fail(str(error))
    yield node
    node.stop()


@pytest.fixture(scope="session")
def kafka(kafka_node) -> str:
    """The bootstrap address of the session's Apache Kafka 4.1 broker."""
    return kafka_node.bootstrap


@pytest.fixture
def members():
    """Start member processes (tests/cluster/member.py); every one left is killed at the end."""
    started: list[subprocess.Popen] = []

    def start(*args: str) -> subprocess.Popen:
        process = subprocess.Popen([sys.executable, str(Path(__file__).parent / "member.py"),
                                    *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)
