"""aiokafka consumers running assignframe strategies (eager only; see assignframe.aiokafka)."""

from __future__ import annotations

import pytest
from e2e_harness import assert_history_valid, by_member_id, leader_assignment, produce

from assignframe.aiokafka import assignors


@pytest.mark.parametrize("strategy", ["range", "sticky"])
def test_aiokafka_group_next_to_kafka_python(new_group, strategy):
    """An aiokafka leader (first to join) and kafka-python followers share one strategy."""
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
    assert {v["version"] for v in last["members"].values()} == {0}  # aiokafka's v0-only view
    assert leader_assignment(last, by_member_id(group)) == owned
    group.stop_all()
    assert_history_valid(group, produced)


def test_aiokafka_refuses_cooperative_strategies():
    with pytest.raises(ValueError, match="cooperative-sticky"):
        assignors("cooperative-sticky")
