"""Cooperative-sticky (KIP-429) with a real broker: a joining member gets its partitions in two
rounds, and every partition that does not move keeps being consumed through the rebalance.

What KIP-429 promises, asserted without depending on the machine's speed:

* a partition that stays with its owner is never revoked (nor assigned again: no restart from the
  committed offset), whatever the timing;
* consumption goes on: every record produced to a kept partition while the rebalance ran is
  consumed by its owner, and nobody else;
* librdkafka members keep fetching during the rebalance: a member that had records produced to
  its kept partitions between the leader's two rounds consumed some of them before its own
  rebalance ended (its final assignment callback; an eager member reads nothing in between). On
  a loaded machine the producer may send nothing to a partition in that window, and a member may
  learn its assignment seconds after the leader computed it, so this is asked only of records in
  fact produced inside the window, per member over all its kept partitions, until that member's
  own end of the rebalance.

kafka-python 3.x runs the cooperative protocol; 2.x has none (the adapter refuses cooperative
strategies there). kafka-python 3.0.12 still stops returning records while any JoinGroup is in
flight, so the third point is checked on librdkafka members only. librdkafka members take part
with their own cooperative-sticky assignor under an assignframe leader.
"""

from __future__ import annotations

import time
from collections import defaultdict

from e2e_harness import (
    BackgroundProducer,
    Partition,
    assert_history_valid,
    by_member_id,
    leader_assignment,
    needs_cooperative,
)

from assignframe.kafka_python import assignors

pytestmark = needs_cooperative
STRATEGY = ["cooperative-sticky"]


class TimedProducer(BackgroundProducer):
    """A :class:`BackgroundProducer` that notes, per partition, each record's offset and the
    interval it was produced in (from before the send to the broker's acknowledgement)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.produced: dict[Partition, list[tuple[int, float, float]]] = defaultdict(list)

    def _run(self) -> None:
        while not self._stop.is_set():
            for topic, partition in self.counts:
                sent = time.time()
                metadata = self._client.send(topic, b"x", partition=partition).get(timeout=10)
                self.produced[(topic, partition)].append((metadata.offset, sent, time.time()))
                self.counts[(topic, partition)] += 1
            self._stop.wait(self._interval)

    def offsets_within(self, tp: Partition, start: float, end: float) -> set[int]:
        """Offsets of ``tp`` certainly produced inside [start, end]."""
        return {
            offset for offset, sent, acked in self.produced[tp] if start <= sent and acked <= end
        }


def of_member(events, member, kind):
    return [e for e in events if e["m"] == member and e["ev"] == kind]


def partitions_in(events) -> set[Partition]:
    return {(t, p) for e in events for t, p in e["partitions"]}


def join_in_two_rounds(group, newcomer, client):
    """Start ``newcomer`` in a stable group and check the KIP-429 choreography around it."""
    before = group.wait_stable()
    names = by_member_id(group)
    joined_at = time.time()
    group.start(newcomer, client, STRATEGY)
    # A deadline, not a speed claim: a loaded machine may take several session timeouts.
    after = group.wait_stable(timeout=group.broker.timings.rebalance_seconds * 8)
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
        kept = tps & after[member]
        # KIP-429: what stays is never revoked, nor handed out again (which would restart it).
        revoked = partitions_in(of_member(events, member, "revoked"))
        assert revoked == tps - after[member], f"{member} revoked {revoked}, more than what moved"
        assert not partitions_in(of_member(events, member, "assigned")) & kept, member
    return before, after, (rounds[0]["t"], rounds[-1]["t"])


def assert_kept_partitions_went_on(group, before, after, window, producer):
    """After everything was consumed: each record produced to a kept partition during the
    rebalance was consumed by its owner and nobody else; librdkafka members consumed, inside the
    window, records produced inside it to their kept partitions (asked only where such records
    exist; see the module docstring)."""
    start, end = window
    records = [e for e in group.events() if e["ev"] == "record"]
    for member, tps in before.items():
        kept = tps & after[member]
        produced = {tp: producer.offsets_within(tp, start, end) for tp in kept}
        for tp, offsets in produced.items():
            readers = {
                (e["m"], e["offset"])
                for e in records
                if (e["topic"], e["partition"]) == tp and e["offset"] in offsets
            }
            assert {m for m, _ in readers} <= {member}, f"{tp}: read by {readers}"
            assert {o for _, o in readers} == offsets, f"{tp}: not all consumed by {member}"
        if group.members[member].client != "confluent" or not any(produced.values()):
            continue  # kafka-python pauses during JoinGroup; or nothing produced in the window
        # The rebalance ends when the last member is told its final assignment (the last
        # callback of the group, not of this member: a member keeping partitions may be told
        # early, and a loaded machine may not fetch in that short time). An eager member would
        # read nothing of its partitions from the first round until then.
        finished = max(
            (e["t"] for e in group.events() if e["ev"] == "assigned" and e["t"] >= end),
            default=end,
        )
        inside = [
            e
            for e in records
            if e["m"] == member
            and start <= e["t"] <= finished
            and e["offset"] in produced.get((e["topic"], e["partition"]), ())
        ]
        assert inside, f"{member} fetched nothing of {sorted(kept)} during its rebalance"


def test_kafka_python_member_joins_in_two_rounds(new_group):
    group = new_group(partitions=6)
    with TimedProducer(group.broker, group.topic, 6) as background:
        for index in range(3):
            group.start(f"kp{index}", "kafka-python", STRATEGY)
        before, after, window = join_in_two_rounds(group, "kp3", "kafka-python")
    group.wait_consumed(background.counts, timeout=40)
    assert_kept_partitions_went_on(group, before, after, window, background)
    group.stop_all()
    assert_history_valid(group, background.counts)


def test_librdkafka_member_joins_under_an_assignframe_leader(new_group):
    group = new_group(partitions=6)
    with TimedProducer(group.broker, group.topic, 6) as background:
        group.start("lead", "kafka-python", STRATEGY)
        group.wait_stable()
        group.start("rk0", "confluent", STRATEGY)
        group.start("rk1", "confluent", STRATEGY)
        before, after, window = join_in_two_rounds(group, "rk2", "confluent")
    assert {e["m"] for e in group.leader_events()} == {"lead"}
    group.wait_consumed(background.counts, timeout=40)
    assert_kept_partitions_went_on(group, before, after, window, background)
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
