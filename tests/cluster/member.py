"""One real group member in its own process (so a test can kill -9 it).

usage: member.py BOOTSTRAP GROUP TOPIC CLIENT [STRATEGY]
CLIENT: kafka-python (classic, STRATEGY range or cooperative-sticky through assignframe's
kafka-python adapter) or confluent (group.protocol=consumer). Prints "ready" once it owns
partitions (or after 60 s), then polls until killed.
"""

from __future__ import annotations

import sys
import time


def kafka_python(bootstrap: str, group: str, topic: str, strategy: str) -> None:
    from kafka import KafkaConsumer

    if strategy == "range":
        from kafka.coordinator.assignors.range import RangePartitionAssignor
        assignors = [RangePartitionAssignor]
    else:
        from assignframe.kafka_python import assignors as adapter_assignors
        assignors = adapter_assignors(strategy)
    consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
                             session_timeout_ms=3000, heartbeat_interval_ms=500,
                             partition_assignment_strategy=assignors,
                             auto_offset_reset="earliest")
    said = False
    while True:
        consumer.poll(200)
        if consumer.assignment() and not said:
            print("ready", flush=True)
            said = True


def confluent(bootstrap: str, group: str, topic: str) -> None:
    from confluent_kafka import Consumer

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                         "group.protocol": "consumer", "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    said, started = False, time.time()
    while True:
        consumer.poll(0.2)
        if not said and (consumer.assignment() or time.time() - started > 60):
            print("ready", flush=True)
            said = True


if __name__ == "__main__":
    bootstrap, group, topic, client = sys.argv[1:5]
    if client == "kafka-python":
        kafka_python(bootstrap, group, topic, sys.argv[5] if len(sys.argv) > 5 else "range")
    else:
        confluent(bootstrap, group, topic)
