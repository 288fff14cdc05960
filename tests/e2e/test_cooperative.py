"""Cooperative-sticky (KIP-429) with a real broker: a joining member gets its partitions in two
rounds, and every partition that does not move keeps being consumed through the rebalance.

kafka-python 3.x runs the cooperative protocol; 2.x has none (the adapter refuses cooperative
strategies there). kafka-python 3.0.12 still stops returning records while any JoinGroup is in
flight, so "keeps being consumed" is checked on librdkafka members, which keep fetching; for
kafka-python members the test checks they give up nothing but what moves. librdkafka members
take part with their own cooperative-sticky assignor under an assignframe leader.
"""

from __future__ import annotations

import time

from e2e_harness import (
    BackgroundProducer,
    assert_history_valid,
    by_member_id,
    leader_assignment,
    needs_cooperative,
)

from assignframe.kafka_python import assignors
from assignframe.testing.broker import TansuQuirks

pytestmark = needs_cooperative
STRATEGY = ["cooperative-sticky"]


def of_member(events, member, kind):
    return [e for e in events if e["m"] == member and e["ev"] == kind]


def join_in_two_rounds(group, newcomer, client):
    """Start ``newcomer`` in a stable group and check the KIP-429 choreography around it."""
    before = group.wait_stable()
    names = by_member_id(group)
    joined_at = time.time()
    group.start(newcomer, client, STRATEGY)
    after = group.wait_stable(timeout=TansuQuirks.REBALANCE_SECONDS * 3)
    names = by_member_id(group)
    rounds = [
        e for e in group.leader_events(since=joined_at) if len(e["members"]) == len(before) + 1
    ]
    assert len(rounds) >= 2, f"expected two rounds, leader logged {len(rounds)}"

    # Round one gives the newcomer nothing that anyone still owns; round two hands it over.
    first = leader_assignment(rounds[0], names)
    owned_then = {p for tps in before.values() for p in tps}
    assert not first[newcomer] & owned_then
    moved = {p for member, tps in before.items() for p in tps - after[member]}
    assert moved and after[newcomer] == moved

    events = [e for e in group.events() if e["t"] >= joined_at]
    for member, tps in before.items():
        revoked = {
            (t, p)
            for e in of_member(events, member, "revoked")
            if e["t"] < rounds[-1]["t"]
            for t, p in e["partitions"]
        }
        assert revoked == tps - after[member], f"{member} revoked {revoked}, more than what moved"

    # Partitions that stayed put were consumed by their owner while the rebalance ran. Only
    # librdkafka members can show it: kafka-python's poll() returns no records while a JoinGroup
    # is in flight, even under the cooperative protocol (Java's keeps fetching).
    start, end = rounds[0]["t"], rounds[-1]["t"]
    for member, tps in before.items():
        if group.members[member].client != "confluent":
            continue
        for tp in tps & after[member]:
            consumed = [
                e
                for e in of_member(events, member, "record")
                if (e["topic"], e["partition"]) == tp and start <= e["t"] <= end
            ]
            assert consumed, f"{tp} stalled on {member} between the two rounds"
    return before, after


def test_kafka_python_member_joins_in_two_rounds(new_group):
    group = new_group(partitions=6)
    with BackgroundProducer(group.broker, group.topic, 6) as background:
        for index in range(3):
            group.start(f"kp{index}", "kafka-python", STRATEGY)
        join_in_two_rounds(group, "kp3", "kafka-python")
    group.wait_consumed(background.counts, timeout=40)
    group.stop_all()
    assert_history_valid(group, background.counts)


def test_librdkafka_member_joins_under_an_assignframe_leader(new_group):
    group = new_group(partitions=6)
    with BackgroundProducer(group.broker, group.topic, 6) as background:
        group.start("lead", "kafka-python", STRATEGY)
        group.wait_stable()
        group.start("rk0", "confluent", STRATEGY)
        group.start("rk1", "confluent", STRATEGY)
        join_in_two_rounds(group, "rk2", "confluent")
    assert {e["m"] for e in group.leader_events()} == {"lead"}
    group.wait_consumed(background.counts, timeout=40)
    group.stop_all()
    assert_history_valid(group, background.counts)


def test_mixing_eager_and_cooperative_strategies_runs_eager():
    """Java's rule, which kafka-python 3 applies too: the highest protocol all strategies share."""
    from kafka.coordinator.assignors.abstract import RebalanceProtocol

    mixed = assignors("cooperative-sticky", "range")
    assert {a.bridge.protocol.value for a in mixed} == {"eager"}
    assert [a.supported_protocols() for a in assignors("cooperative-sticky")] == [
        [RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE]
    ]
