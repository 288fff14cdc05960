"""Mixed groups: kafka-python members with assignframe strategies next to confluent-kafka
(librdkafka) members running librdkafka's own assignor of the same protocol name.

Whoever leads must read the other side's subscription bytes, and the other side must read the
leader's assignment bytes. The leader is the member that joins first (Tansu's choice; on Kafka the
first member of a new group leads too), so each test starts its leader's side first and then
checks from the logs who actually computed the assignment.
"""

from __future__ import annotations

import pytest
from e2e_harness import (
    COOPERATIVE_STICKY,
    assert_history_valid,
    by_member_id,
    leader_assignment,
    produce,
)

from assignframe.kafka_python import KAFKA_PYTHON_VERSION


@pytest.mark.parametrize("leader", ["kafka-python", "confluent"])
@pytest.mark.parametrize("strategy", ["range", "roundrobin", COOPERATIVE_STICKY])
def test_mixed_group_is_valid_with_the_leader_on_either_side(new_group, strategy, leader):
    follower = "confluent" if leader == "kafka-python" else "kafka-python"
    group = new_group(partitions=6)
    produced = produce(group.broker, group.topic, partitions=6, per_partition=10)
    group.start("lead", leader, [strategy])
    group.wait_stable()
    group.start("f0", follower, [strategy])
    group.start("f1", follower, [strategy])
    group.start("same", leader, [strategy])

    owned = group.wait_stable(timeout=40)
    group.wait_consumed(produced)

    assert sorted(len(tps) for tps in owned.values()) == [1, 1, 2, 2]
    names = by_member_id(group)
    four_member_rounds = [e for e in group.leader_events() if len(e["members"]) == 4]
    if leader == "kafka-python":
        assert four_member_rounds, "the kafka-python member that joined first never led"
        assert {names[m] for m in four_member_rounds[-1]["members"]} == {"lead", "same", "f0", "f1"}
        librdkafka = [
            v for m, v in four_member_rounds[-1]["members"].items() if names[m] in ("f0", "f1")
        ]
        # A 3.x leader reads librdkafka's v3 subscriptions in full; a 2.x leader only as v0.
        assert {v["version"] for v in librdkafka} == {3 if KAFKA_PYTHON_VERSION >= (3,) else 0}
        assert leader_assignment(four_member_rounds[-1], names) == owned
    else:
        assert not group.leader_events(), (
            "a kafka-python member led although librdkafka joined first"
        )
    group.stop_all()
    assert_history_valid(group, produced)
