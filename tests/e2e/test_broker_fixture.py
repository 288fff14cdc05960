"""The test broker itself: Apache Kafka started, restarted with its data, and never left running
(stopped at the end, after a failed start, and by the reaper when the test session is killed).
What it needs missing (Java, shared/java/broker) is one clear error, never a skip."""

from __future__ import annotations

import re
import signal
import sys
import time
from pathlib import Path

import pytest

from assignframe.testing.broker import LocalBrokerError, start_kafka
from assignframe.testing.broker_base import ProcessGroup
from assignframe.testing.child import Child
from assignframe.testing.kafka_node import (
    KAFKA_VERSIONS,
    KafkaNode,
    broker_java,
    find_broker_dist,
    kafka_version,
    node_properties,
)

#: the Apache Kafka release each shared broker folder holds (shared/java/README.md)
RELEASES = {"4.1": "4.1.0", "4.3": "4.3.1"}


def _jvm_pid(node_dir: Path) -> int:
    return int((node_dir / "kafka.pid").read_text())


def _gone(pid: int, timeout: float) -> bool:
    """Whether ``pid`` has ended (or is a zombie), waiting up to ``timeout`` seconds for it."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z" or time.monotonic() >= deadline:
            return state == "Z"
        time.sleep(0.2)


def test_the_session_broker_is_kafka_with_the_test_settings(kafka_broker):
    if kafka_broker.kind == "external":
        pytest.fail("ASSIGNFRAME_BOOTSTRAP is set: this test checks the broker the session starts")
    assert kafka_broker.kind == "kafka" and kafka_broker.host == "127.0.0.1"
    server_properties = (kafka_broker.log_path.parent / "server.properties").read_text()
    for key, value in node_properties().items():
        assert f"\n{key}={value}\n" in server_properties
    release = RELEASES[kafka_version()]  # the session's broker: 4.1 unless the env picks 4.3
    assert f"Kafka version: {release}" in kafka_broker.log_path.read_text(errors="replace")
    assert kafka_broker.bootstrap in kafka_broker.describe()
    assert str(kafka_broker.log_path) in kafka_broker.describe()


def test_restart_keeps_address_topics_and_committed_offsets(tmp_path, shared_dir):
    from kafka import KafkaConsumer, TopicPartition
    from kafka.admin import KafkaAdminClient, NewTopic
    from kafka.structs import OffsetAndMetadata

    broker = start_kafka(tmp_path / "node", shared_from=shared_dir)
    try:
        admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
        admin.create_topics([NewTopic("kept", 2, 1)])
        admin.close()
        tp = TopicPartition("kept", 1)
        consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap, group_id="kept-group")
        consumer.assign([tp])
        offset = OffsetAndMetadata(7, "", -1) if len(OffsetAndMetadata._fields) == 3 else (
            OffsetAndMetadata(7, ""))  # fmt: skip
        consumer.commit({tp: offset})
        consumer.close()
        first_pid = _jvm_pid(tmp_path / "node")

        broker.restart()

        second_pid = _jvm_pid(tmp_path / "node")
        assert second_pid != first_pid and _gone(first_pid, 0)
        consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap, group_id="kept-group")
        try:
            assert consumer.partitions_for_topic("kept") == {0, 1}
            assert consumer.committed(tp) == 7
        finally:
            consumer.close()
    finally:
        broker.stop()
    assert _gone(second_pid, 0) and not (tmp_path / "node" / "kafka.pid").exists()


def test_a_killed_test_session_leaves_no_broker_behind(tmp_path, shared_dir):
    """The reaper stops the broker when the process that started it dies without stopping it
    (as a test session does when tox escalates Ctrl-C to SIGKILL)."""
    node_dir = tmp_path / "node"
    script = (
        "import sys, time; from pathlib import Path\n"
        "from assignframe.testing.broker import start_kafka\n"
        "print(start_kafka(Path(sys.argv[1]), shared_from=sys.argv[2]).bootstrap, flush=True)\n"
        "time.sleep(600)\n"
    )
    session = Child.start([sys.executable, "-c", script, str(node_dir), str(shared_dir)],
                          "a test session with a broker", logs=[node_dir / "server.out"])
    try:
        session.wait_for_line(re.compile(r"^127\.0\.0\.1:"), 180)
        jvm = _jvm_pid(node_dir)
        assert not _gone(jvm, 0)
    finally:
        session.stop()
    assert _gone(jvm, 60), f"the broker (pid {jvm}) outlived its session; log {node_dir}"


def test_a_failed_start_leaves_no_broker_behind(tmp_path, shared_dir):
    # start.sh gives up after 1 s while the JVM is still starting: the node must be stopped.
    node = KafkaNode(find_broker_dist(shared_dir), tmp_path / "node", start_timeout=1)
    with pytest.raises(LocalBrokerError, match="start.sh exited 1") as failure:
        node.start()
    assert str(tmp_path / "node" / "server.out") in str(failure.value)
    assert not node.running
    started = (tmp_path / "node" / "start.log").read_text()
    assert "started pid" in started, "start.sh gave up before launching the JVM: nothing tested"
    assert _gone(int(started.split("started pid ")[1].split()[0]), 0)


def test_a_process_group_is_stopped_whole(tmp_path):
    """A launcher's backgrounded child (start.sh's JVM) goes with it."""
    child = tmp_path / "child.pid"
    group = ProcessGroup(["sh", "-c", f"sleep 300 & echo $! > {child}; wait"])
    deadline = time.monotonic() + 30
    while not child.exists() or not child.read_text().strip():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    group.stop(timeout=10)
    assert _gone(int(child.read_text()), 0) and not group.alive


def test_no_java_is_one_clear_error(monkeypatch, tmp_path):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(LocalBrokerError, match="needs a Java 17 runtime"):
        broker_java()


def test_an_old_java_is_one_clear_error(monkeypatch, tmp_path):
    fake = tmp_path / "bin" / "java"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\necho \'openjdk version "11.0.2"\' >&2\n')
    fake.chmod(0o755)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(LocalBrokerError, match=r"11\.0\.2.*needs a Java 17 runtime"):
        broker_java()


def test_a_shared_directory_without_the_broker_is_one_clear_error(monkeypatch, tmp_path):
    (tmp_path / "golden").mkdir()
    monkeypatch.setenv("ASSIGNFRAME_SHARED", str(tmp_path))
    folder = KAFKA_VERSIONS[kafka_version()]
    with pytest.raises(LocalBrokerError, match=f"java/{folder}/start.sh is missing"):
        find_broker_dist()


def test_no_shared_directory_is_one_clear_error(monkeypatch, tmp_path):
    monkeypatch.delenv("ASSIGNFRAME_SHARED", raising=False)
    with pytest.raises(LocalBrokerError, match="no test broker: no shared/ directory"):
        find_broker_dist(tmp_path)


def test_stopping_twice_is_harmless(tmp_path):
    group = ProcessGroup(["sleep", "300"])
    group.stop(timeout=10)
    group.stop(timeout=10)
    assert not group.alive and group.process.returncode == -signal.SIGTERM
