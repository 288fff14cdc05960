"""Brokers for the cluster reader's tests: Apache Kafka 4.1 from ../shared/java/broker (started
here, per session; a missing broker or Java fails loudly), and helpers for real groups."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BROKER_DIST = (ROOT / ".." / "shared" / "java" / "broker").resolve()
#: short classic session timeouts, so a killed member leaves within seconds
EXTRA = "group.min.session.timeout.ms=500\n"


class KafkaNode:
    """One KRaft node started by start.sh from ``directory`` (restartable from it)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.bootstrap = ""

    def start(self) -> str:
        if not (BROKER_DIST / "start.sh").is_file():
            pytest.fail(f"Apache Kafka is missing: {BROKER_DIST}/start.sh (../shared beside "
                        "the clone)")
        if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
            pytest.fail("Java 17 is needed to run the Kafka broker")
        extra = self.directory.parent / f"{self.directory.name}.props"
        extra.write_text(EXTRA)
        done = subprocess.run(["sh", str(BROKER_DIST / "start.sh"), str(self.directory)],
                              capture_output=True, text=True, timeout=200,
                              env={**os.environ, "EXTRA_PROPS": str(extra)})
        if done.returncode != 0:
            pytest.fail(f"the Kafka broker did not start: {done.stderr[-2000:]}")
        self.bootstrap = done.stdout.strip().splitlines()[-1]
        return self.bootstrap

    def stop(self) -> None:
        pid_file = self.directory / "kafka.pid"
        if not pid_file.exists():
            return
        pid = int(pid_file.read_text().strip())
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        for _ in range(300):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)
        os.kill(pid, signal.SIGKILL)


@pytest.fixture(scope="session")
def kafka_node(tmp_path_factory):
    node = KafkaNode(tmp_path_factory.mktemp("kafka") / "node")
    node.start()
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
