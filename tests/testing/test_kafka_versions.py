"""The test broker's version: 4.1 by default, 4.3 by argument or ASSIGNFRAME_KAFKA_VERSION, each
with its own shared/java folder and properties; anything else is one clear error."""

from __future__ import annotations

import pytest

from assignframe.testing.broker_base import LocalBrokerError
from assignframe.testing.kafka_node import (
    SHARE_STREAMS_PROPERTIES,
    TEST_PROPERTIES,
    VERSION_ENV,
    KafkaNode,
    find_broker_dist,
    kafka_version,
    node_properties,
)


def test_the_default_is_kafka_41(monkeypatch, tmp_path):
    monkeypatch.delenv(VERSION_ENV, raising=False)
    dist = find_broker_dist()
    assert dist.name == "broker" and kafka_version() == "4.1"
    node = KafkaNode(dist, tmp_path / "node")
    assert node.version == "4.1" and node.properties == TEST_PROPERTIES


def test_the_environment_picks_kafka_43(monkeypatch, tmp_path):
    monkeypatch.setenv(VERSION_ENV, "4.3")
    dist = find_broker_dist()
    assert dist.name == "broker-4.3" and (dist / "start.sh").is_file()
    node = KafkaNode(dist, tmp_path / "node")
    assert node.version == "4.3"
    assert node.properties == {**TEST_PROPERTIES, **SHARE_STREAMS_PROPERTIES}
    # Kafka's minimums (45 s / 5 s) lowered, or a killed member holds its tasks for 45 s
    assert node.properties["group.streams.session.timeout.ms"] == "6000"
    assert node.properties["group.share.min.heartbeat.interval.ms"] == "1000"
    assert "4.3" in node.describe()


def test_an_argument_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv(VERSION_ENV, "4.3")
    assert find_broker_dist(version="4.1").name == "broker"
    assert node_properties("4.1") == TEST_PROPERTIES


def test_an_unknown_version_is_one_clear_error(monkeypatch):
    monkeypatch.setenv(VERSION_ENV, "3.9")
    with pytest.raises(LocalBrokerError, match=r"no test broker for Kafka '3.9' "
                                          r"\(ASSIGNFRAME_KAFKA_VERSION\); expected 4.1 or 4.3"):
        find_broker_dist()
