"""lag-aware on a real broker: the leader reads the group's real offsets and follows them.

Backlogs are produced skewed (100 / 60 / 50 records) and the group commits an offset on one
partition, so the real lags are 100 / 60 / 30 with ``auto.offset.reset=earliest``. Two kafka-python
consumers then join with ``lag-aware`` and a live lag source: the member holding the heaviest
partition holds nothing else (range would add p1 to it: 160 against 30; without lags, lag-aware
would add p2 to it by partition count alone).
"""

from __future__ import annotations

import threading
import time

import pytest
from e2e_harness import create_topic, producer

from assignframe import TopicPartition
from assignframe.kafka_python import assignors
from assignframe.kafka_python.lag import KafkaLagSource
from assignframe.testing.kafka_python_join import await_topic_metadata, rejoin_if_join_abandoned

BACKLOG = {0: 100, 1: 60, 2: 50}
COMMITTED = {2: 20}


def _fill(broker, topic):
    sender = producer(broker)
    for partition, records in BACKLOG.items():
        for index in range(records):
            sender.send(topic, value=b"x%d" % index, partition=partition).get(timeout=10)
    sender.close()


def _commit(config, topic):
    from kafka import KafkaConsumer, TopicPartition
    from kafka.structs import OffsetAndMetadata

    committer = KafkaConsumer(**config)
    try:
        partitions = [TopicPartition(topic, p) for p in COMMITTED]
        committer.assign(partitions)
        # (offset, metadata, leader_epoch) in kafka-python 2.3+ and 3.x
        offsets = {tp: OffsetAndMetadata(COMMITTED[tp.partition], "", -1) for tp in partitions}
        committer.commit(offsets)
    finally:
        committer.close()


class _Member(threading.Thread):
    def __init__(self, topic, config, stop):
        super().__init__(daemon=True)
        self.topic, self.config, self.stop = topic, config, stop
        self.assigned: frozenset[int] = frozenset()
        self.error: BaseException | None = None

    def run(self):
        from kafka import KafkaConsumer

        try:
            source = KafkaLagSource.from_config(self.config)
            consumer = KafkaConsumer(
                self.topic,
                partition_assignment_strategy=assignors("lag-aware", lag_source=source),
                **self.config,
            )
            await_topic_metadata(consumer, [self.topic])
            while not self.stop.is_set():
                consumer.poll(timeout_ms=200, max_records=1)
                rejoin_if_join_abandoned(consumer)
                self.assigned = frozenset(tp.partition for tp in consumer.assignment())
                # Consume nothing for real: seek back so committed offsets and lags stay put.
                for tp in consumer.assignment():
                    consumer.seek_to_beginning(tp)
            consumer.close(autocommit=False)
        except BaseException as error:  # noqa: BLE001 - reported by the test thread
            self.error = error


def test_assignment_follows_real_lags(kafka_broker):
    topic, group = "lag-skewed", "lag-aware-group"
    create_topic(kafka_broker, topic, len(BACKLOG))
    _fill(kafka_broker, topic)
    config = {
        "bootstrap_servers": kafka_broker.bootstrap,
        "group_id": group,
        "auto_offset_reset": "earliest",
        "enable_auto_commit": False,
        "session_timeout_ms": kafka_broker.timings.session_timeout_ms,
        "heartbeat_interval_ms": kafka_broker.timings.heartbeat_interval_ms,
    }
    _commit(config, topic)
    lags = KafkaLagSource.from_config(config).read_lags([TopicPartition(topic, p) for p in BACKLOG])
    assert [lags[tp] for tp in sorted(lags)] == [100, 60, 30]

    stop = threading.Event()
    members = [_Member(topic, config, stop) for _ in range(2)]
    for member in members:
        member.start()
    try:
        deadline = time.monotonic() + 6 * kafka_broker.timings.rebalance_seconds
        stable_since, last = None, None
        while time.monotonic() < deadline:
            current = tuple(member.assigned for member in members)
            if current != last:
                stable_since, last = time.monotonic(), current
            covered = set().union(*current) == set(BACKLOG) and all(current)
            if covered and time.monotonic() - stable_since > kafka_broker.timings.rebalance_seconds:
                break
            time.sleep(0.2)
        for member in members:
            assert member.error is None, member.error
        assert sorted(map(sorted, last)) == [[0], [1, 2]], f"assignments: {last}"
    finally:
        stop.set()
        for member in members:
            member.join(timeout=20)


def test_unreadable_offsets_degrade_to_count_balance(caplog):
    from assignframe import Cluster

    source = KafkaLagSource("127.0.0.1:1", group_id="g", timeout_s=1.0)
    started = time.monotonic()
    assert source.lag_source(group_id="g", cluster=Cluster({"t": 2}), topics=("t",)) is None
    waited = time.monotonic() - started
    assert "fall back to partition-count balance" in caplog.text
    # the leader's assign waits about timeout_s for the first broker, not kafka-python 3's
    # default 30 s bootstrap (a bound, with room for a loaded machine; not a speed claim)
    assert waited < 20, f"an unreachable lag source held assign for {waited:.1f} s"


pytestmark = pytest.mark.e2e
