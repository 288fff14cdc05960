"""Groups of kafka-python consumers running assignframe strategies through the adapter."""

from __future__ import annotations

import pytest
from e2e_harness import (
    COOPERATIVE_STICKY,
    assert_history_valid,
    by_member_id,
    leader_assignment,
    needs_cooperative,
    produce,
)

STRATEGIES = ["range", "roundrobin", "fair", "sticky", COOPERATIVE_STICKY]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_group_of_three_owns_every_partition_once_and_consumes_as_committed(new_group, strategy):
    group = new_group(partitions=6)
    produced = produce(group.broker, group.topic, partitions=6, per_partition=10)
    for index in range(3):
        group.start(f"kp{index}", "kafka-python", [strategy])

    owned = group.wait_stable()
    group.wait_consumed(produced)

    assert sorted(len(tps) for tps in owned.values()) == [2, 2, 2]
    leaders = group.leader_events()
    assert leaders and {e["strategy"] for e in leaders} == {strategy}
    assert leader_assignment(leaders[-1], by_member_id(group)) == owned
    group.stop_all()
    assert_history_valid(group, produced)


@needs_cooperative
def test_leader_reads_every_field_of_v3_subscriptions(new_group):
    """Members send v3 (rack, generation, owned partitions); a 3.x leader reads all of it."""
    group = new_group(partitions=4)
    produced = produce(group.broker, group.topic, partitions=4, per_partition=3)
    group.start("kp0", "kafka-python", ["cooperative-sticky"], client_rack="rack-a")
    group.wait_stable()
    group.start("kp1", "kafka-python", ["cooperative-sticky"], client_rack="rack-b")
    group.wait_stable()
    group.wait_consumed(produced)

    rejoin = [e for e in group.leader_events() if len(e["members"]) == 2][0]
    names = by_member_id(group)
    seen = {names[m]: v for m, v in rejoin["members"].items()}
    assert {v["version"] for v in seen.values()} == {3}
    assert seen["kp0"]["rack"] == "rack-a" and seen["kp1"]["rack"] == "rack-b"
    assert seen["kp0"]["generation"] >= 0 and len(seen["kp0"]["owned"]) == 4
    assert seen["kp1"]["generation"] == -1 and seen["kp1"]["owned"] == []
    group.stop_all()
    assert_history_valid(group, produced)


def test_five_members_with_sticky(new_group):
    group = new_group(partitions=10)
    produced = produce(group.broker, group.topic, partitions=10, per_partition=4)
    for index in range(5):
        group.start(f"kp{index}", "kafka-python", ["sticky"])
    owned = group.wait_stable()
    group.wait_consumed(produced)
    assert sorted(len(tps) for tps in owned.values()) == [2] * 5
    group.stop_all()
    assert_history_valid(group, produced)
