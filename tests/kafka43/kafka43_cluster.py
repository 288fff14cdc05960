"""Topics, records and one inspect pass on the session's Kafka 4.3.1 broker, for the share and
Streams tests."""

from __future__ import annotations

from typing import Any

from assignframe.cluster.config import read_client_config
from assignframe.cluster.inspection import GroupVerdict, inspect_cluster
from assignframe.cluster.reader import GroupFilter


def create_topics(bootstrap: str, partitions: dict[str, int]) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(t, n, 1) for t, n in partitions.items()],
                                  request_timeout=30)
    for future in futures.values():
        future.result(timeout=60)


def produce(bootstrap: str, topic: str, partitions: int, per_partition: int) -> None:
    """``per_partition`` records into every partition of ``topic``, flushed."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for index in range(per_partition):
        for partition in range(partitions):
            producer.produce(topic, f"{partition}:{index}".encode(), partition=partition)
    left = producer.flush(60)
    assert left == 0, f"{left} record(s) not delivered to {topic}"


def verdict(bootstrap: str, group: str) -> GroupVerdict:
    """The group's verdict from one read-only inspect pass."""
    inspection = inspect_cluster(bootstrap, read_client_config(None),
                                 GroupFilter(f"^{group}$"), 20.0)
    found = [v for v in inspection.verdicts if v.group_id == group]
    assert found, f"inspect did not see {group}: {inspection.read.notices}"
    return found[0]


def member_named(view: Any, client_id: str) -> Any:
    found = [m for m in view.members if m.client_id == client_id]
    return found[0] if found else None
