"""aiokafka consumers running assignframe strategies: eager groups next to kafka-python, the
installed aiokafka checked at construction, and the leader's full view of every member.
The cooperative protocol is tested in test_aiokafka_cooperative.py."""

from __future__ import annotations

import aiokafka
import pytest
from e2e_harness import assert_history_valid, by_member_id, leader_assignment, produce

from assignframe.aiokafka import AiokafkaAssignor, assignors
from assignframe.aiokafka.support import (
    FIRST_UNSUPPORTED,
    OLDEST_SUPPORTED,
    hook_point_problems,
    version_problem,
)
from assignframe.model import RebalanceProtocol


@pytest.mark.parametrize("strategy", ["range", "sticky"])
def test_aiokafka_group_next_to_kafka_python(new_group, strategy):
    """An aiokafka leader (first to join) and kafka-python followers share one eager strategy;
    the aiokafka leader's strategy reads every member's v3 subscription, generation included."""
    group = new_group(partitions=6)
    produced = produce(group.broker, group.topic, partitions=6, per_partition=10)
    group.start("aio0", "aiokafka", [strategy])
    group.wait_stable()
    group.start("aio1", "aiokafka", [strategy])
    group.start("kp0", "kafka-python", [strategy])

    owned = group.wait_stable(timeout=40)
    group.wait_consumed(produced)

    assert sorted(len(tps) for tps in owned.values()) == [2, 2, 2]
    last = group.leader_events()[-1]
    assert last["m"] == "aio0"
    names = by_member_id(group)
    seen = {names.get(m, m): v for m, v in last["members"].items()}
    assert {v["version"] for v in seen.values()} == {3}
    # aio0 has been through one round before the others joined: its generation says so
    assert seen["aio0"]["generation"] >= 0
    assert leader_assignment(last, names) == owned
    group.stop_all()
    assert_history_valid(group, produced)


def test_the_installed_aiokafka_is_supported():
    """What assignors() checks, on the aiokafka this env installed (oldest or newest tested)."""
    assert version_problem(aiokafka.__version__) is None
    assert hook_point_problems() == []
    version = tuple(int(p) for p in aiokafka.__version__.split(".")[:3])
    assert OLDEST_SUPPORTED <= version < FIRST_UNSUPPORTED


@pytest.mark.parametrize("version", ["0.9.0", "0.15.0", "1.0.0"])
def test_an_unsupported_aiokafka_fails_at_construction(monkeypatch, version):
    """assignors() refuses it with one error naming the version and the supported range, before
    any consumer exists (the first rebalance would be too late)."""
    monkeypatch.setattr(aiokafka, "__version__", version)
    with pytest.raises(
        ImportError, match=rf"aiokafka {version} is not supported.*>=0\.10\.0,<0\.15\.0"
    ):
        assignors("cooperative-sticky")


def test_protocol_follows_javas_rule():
    """The highest protocol every listed strategy supports; the KIP-429 upgrade's first step
    (cooperative-sticky listed with an eager strategy) runs eager."""
    (cooperative,) = assignors("cooperative-sticky")
    assert isinstance(cooperative, AiokafkaAssignor)
    assert cooperative.bridge.protocol is RebalanceProtocol.COOPERATIVE
    assert {a.bridge.protocol for a in assignors("cooperative-sticky", "range")} == {
        RebalanceProtocol.EAGER
    }
