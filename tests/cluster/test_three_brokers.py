"""inspect on a three-node Apache Kafka 4.1 cluster (assignframe.testing.kafka_cluster): groups
whose coordinators sit on different brokers are all read, and after kill -9 of a coordinator's
broker the groups it coordinated are read from their new coordinator. Coordinators are taken
from confluent-kafka's AdminClient (librdkafka's FindCoordinator), not from the reader."""

from __future__ import annotations

import csv
import io
import json
import time

import pytest
from confluent_kafka import Consumer, ConsumerGroupTopicPartitions, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from assignframe.cli import main
from assignframe.testing.broker_base import LocalBrokerError
from assignframe.testing.kafka_cluster import KafkaCluster
from assignframe.testing.kafka_node import find_broker_dist

from .conftest import ROOT

pytestmark = pytest.mark.e2e

TOPIC, PARTITIONS = "three-t", 3
GROUPS = [f"spread-{i:02d}" for i in range(24)]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    nodes = KafkaCluster(find_broker_dist(ROOT), tmp_path_factory.mktemp("kafka3"))
    try:
        nodes.start()
    except LocalBrokerError as error:
        pytest.fail(str(error))
    try:
        admin = AdminClient({"bootstrap.servers": nodes.bootstrap})
        for future in admin.create_topics([NewTopic(TOPIC, PARTITIONS, 3)]).values():
            future.result(timeout=120)
        for group_id in GROUPS:  # offsets-only groups: one commit each, offset = group number
            _commit(nodes.bootstrap, group_id, int(group_id.rpartition("-")[2]))
        yield nodes
    except BaseException as error:
        raise AssertionError(f"{error}\n{nodes.logs()}") from error
    finally:
        nodes.stop()


def _commit(bootstrap: str, group_id: str, offset: int, seconds: float = 120) -> None:
    """Commit, retrying while the new cluster's coordinators are still being elected
    (NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE), within ``seconds``."""
    deadline = time.monotonic() + seconds
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group_id,
                         "enable.auto.commit": False})  # fmt: skip
    try:
        partitions = [TopicPartition(TOPIC, p, offset) for p in range(PARTITIONS)]
        while True:
            try:
                consumer.commit(offsets=partitions, asynchronous=False)
                return
            except KafkaException:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
    finally:
        consumer.close()


def _coordinators(bootstrap: str) -> dict[str, int]:
    """Each group's coordinator node id, as librdkafka finds it."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.describe_consumer_groups(GROUPS, request_timeout=60)
    return {group_id: future.result(timeout=120).coordinator.id
            for group_id, future in futures.items()}  # fmt: skip


def _offsets(bootstrap: str, group_id: str) -> list[int]:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    request = [ConsumerGroupTopicPartitions(group_id)]
    result = admin.list_consumer_group_offsets(request)[group_id].result(timeout=120)
    return sorted(tp.offset for tp in result.topic_partitions if tp.topic == TOPIC)


def _inspect(capsys, tmp_path, bootstrap: str) -> dict[str, dict]:
    """Every group's verdict as ``inspect --out`` writes it. Not ``--json``: its lines are
    snapshots of groups with members, and these groups hold committed offsets only."""
    code = main(["inspect", "--bootstrap-server", bootstrap, "--timeout", "60",
                 "--out", str(tmp_path)])
    _, err = capsys.readouterr()
    assert code == 0, err
    verdicts = json.loads((tmp_path / "verdicts.json").read_text())["groups"]
    return {v["group_id"]: v for v in verdicts}


def _committed(capsys, bootstrap: str) -> dict[str, list[int]]:
    """Each group's committed offsets on the topic as assignframe reads them (``inspect
    --detail``'s current_offset, one row per partition), sorted."""
    code = main(["inspect", "--bootstrap-server", bootstrap, "--timeout", "60", "--detail",
                 "--format", "tsv"])
    out, err = capsys.readouterr()
    assert code == 0, err
    committed: dict[str, list[int]] = {}
    for row in csv.DictReader(io.StringIO(out), delimiter="\t"):
        if row["topic"] == TOPIC and row["current_offset"] not in ("", "-"):
            committed.setdefault(row["group"], []).append(int(row["current_offset"]))
    return {group: sorted(offsets) for group, offsets in committed.items()}


def _live_bootstrap(cluster: KafkaCluster) -> str:
    return ",".join(node.bootstrap for node in cluster.nodes.values() if node.running)


def test_groups_on_every_coordinator_are_read(cluster, capsys, tmp_path):
    coordinators = _coordinators(cluster.bootstrap)
    assert len(set(coordinators.values())) >= 2, coordinators  # spread over brokers
    snapshots = _inspect(capsys, tmp_path, cluster.bootstrap)
    assert set(GROUPS) <= set(snapshots), sorted(set(GROUPS) - set(snapshots))
    for group_id in GROUPS:
        verdict = snapshots[group_id]
        assert verdict["members"] == 0 and verdict["unreadable"] is None, verdict
        # each committed its index on every partition, and the topic holds no records
        assert verdict["lag"] == 0, verdict
    read = _committed(capsys, cluster.bootstrap)
    assert {g: read.get(g) for g in GROUPS} == \
        {g: [int(g.rpartition("-")[2])] * PARTITIONS for g in GROUPS}


def test_kill_of_a_coordinators_broker_moves_its_groups(cluster, capsys, tmp_path):
    before = _coordinators(cluster.bootstrap)
    victim = max(set(before.values()), key=list(before.values()).count)
    moved = sorted(g for g, node in before.items() if node == victim)
    cluster.kill(victim)
    try:
        bootstrap = _live_bootstrap(cluster)
        after = _coordinators(bootstrap)
        assert all(after[g] != victim for g in moved), after
        snapshots = _inspect(capsys, tmp_path, bootstrap)
        assert set(GROUPS) <= set(snapshots), sorted(set(GROUPS) - set(snapshots))
        read = _committed(capsys, bootstrap)
        for group_id in moved:  # nothing lost: the commits survive on the replicas, and the
            expected = int(group_id.rpartition("-")[2])  # reader gets them from the new one
            assert _offsets(bootstrap, group_id) == [expected] * PARTITIONS, group_id
            assert read.get(group_id) == [expected] * PARTITIONS, (group_id, read.get(group_id))
    finally:
        cluster.start_node(victim)
