"""Cooperative rebalancing (KIP-429) in aiokafka consumers through assignframe.aiokafka.

What KIP-429 promises, asserted from the members' logs without depending on the machine's speed
(deadlines are generous; nothing is timed):

* no partition is ever owned by two members at once;
* a partition that stays with its owner is never revoked nor assigned again, whatever happens in
  the group (joins, leaves, kill -9);
* aiokafka members keep fetching and processing their kept partitions through a rebalance;
* a member gives up a partition (``on_partitions_revoked``, where the aiokafka members commit what
  they processed) before anyone else gets it, in the follow-up round;
* every record is consumed, each new owner starting at the last committed offset.

aiokafka members run ``aiokafka_member.py`` (aiokafka_e2e.py). kafka-python members use the
kafka-python adapter with cooperative-sticky (3.x only), librdkafka members librdkafka's own
cooperative-sticky assignor.
"""

from __future__ import annotations

from aiokafka_e2e import (
    check_join,
    kept_partitions_problems,
    of_member,
    partitions_in,
    start_aiokafka,
    uncommitted_revocations,
    wait_stable_at,
)
from e2e_harness import assert_history_valid, by_member_id, needs_cooperative
from test_cooperative import TimedProducer

from assignframe.testing.kafka_node import KAFKA_TIMINGS

STRATEGY = ["cooperative-sticky"]
#: A deadline for one change of the group to settle, not a speed claim: a loaded machine may take
#: several session timeouts, and a kill is noticed only after one.
SETTLE = KAFKA_TIMINGS.rebalance_seconds * 8
SLOW_RECORDS = {"record_delay": 0.005}  # so a kill lands between processing and committing


def finish(group, producer):
    group.wait_consumed(producer.counts, timeout=60)
    group.stop_all()
    assert_history_valid(group, producer.counts)
    problems = uncommitted_revocations(group)
    assert not problems, "\n".join(problems)


def test_aiokafka_member_joins_in_two_rounds(new_group):
    group = new_group(partitions=6)
    with TimedProducer(group.broker, group.topic, 6) as producer:
        start_aiokafka(group, "aio0", STRATEGY)
        group.wait_stable(timeout=SETTLE)
        start_aiokafka(group, "aio1", STRATEGY)
        before, joined_at = wait_stable_at(group, SETTLE)
        start_aiokafka(group, "aio2", STRATEGY)
        after = group.wait_stable(timeout=SETTLE)
        check_join(group, before, after, joined_at, "aio2", producer)
    assert {e["m"] for e in group.leader_events()} == {"aio0"}
    finish(group, producer)


@needs_cooperative
def test_mixed_clients_through_joins_leaves_and_kills(new_group):
    """aiokafka, kafka-python and librdkafka members in one cooperative-sticky group led by an
    aiokafka member: members join, leave and are killed; kept partitions are never revoked."""
    group = new_group(partitions=8)
    with TimedProducer(group.broker, group.topic, 8) as producer:
        start_aiokafka(group, "aio0", STRATEGY)  # the first member leads (and stays)
        group.wait_stable(timeout=SETTLE)
        group.start("kp0", "kafka-python", STRATEGY, **SLOW_RECORDS)
        group.start("rk0", "confluent", STRATEGY)
        state, since = wait_stable_at(group, SETTLE)
        assert set(state) == {"aio0", "kp0", "rk0"}

        start_aiokafka(group, "aio1", STRATEGY, **SLOW_RECORDS)
        after, settled = wait_stable_at(group, SETTLE)
        check_join(group, state, after, since, "aio1", producer)
        state, since = after, settled

        steps = [
            ("kp0 leaves", lambda: group.stop("kp0")),
            ("aio1 is killed", lambda: group.kill("aio1")),
            ("rk1 joins", lambda: group.start("rk1", "confluent", STRATEGY)),
            ("rk0 is killed", lambda: group.kill("rk0")),
            ("aio2 joins", lambda: start_aiokafka(group, "aio2", STRATEGY)),
        ]
        for step, act in steps:
            act()
            after, settled = wait_stable_at(group, SETTLE)
            problems = kept_partitions_problems(group, state, after, since)
            assert not problems, f"after '{step}':\n" + "\n".join(problems)
            state, since = after, settled
    assert set(state) == {"aio0", "rk1", "aio2"}
    assert {e["m"] for e in group.leader_events()} == {"aio0"}
    names = by_member_id(group)
    assert {names.get(m) for m in group.leader_events()[-1]["members"]} == set(state)
    finish(group, producer)


def test_eager_and_cooperative_members_in_one_group(new_group):
    """A member listing cooperative-sticky with range runs eager (Java's rule); next to
    cooperative members the group runs the strategy it elected, cooperative-sticky: the eager
    member gives up everything at each rebalance and claims nothing, the cooperative ones keep
    what stays theirs, and no partition is ever owned twice."""
    group = new_group(partitions=6)
    with TimedProducer(group.broker, group.topic, 6) as producer:
        start_aiokafka(group, "coop0", STRATEGY)  # first: Tansu takes its first-listed protocol
        group.wait_stable(timeout=SETTLE)
        start_aiokafka(group, "eager", ["cooperative-sticky", "range"])
        before, since = wait_stable_at(group, SETTLE)
        start_aiokafka(group, "coop1", STRATEGY)
        after = group.wait_stable(timeout=SETTLE)

        events = [e for e in group.events() if e["t"] > since]
        assert partitions_in(of_member(events, "eager", "revoked")) >= before["eager"]
        assert not kept_partitions_problems(group, {"coop0": before["coop0"]}, after, since)
    rounds = group.leader_events(since=since)
    assert {e["strategy"] for e in rounds} == {"cooperative-sticky"}
    names = by_member_id(group)
    for round_ in rounds:
        claims = {names.get(m, m): v["owned"] for m, v in round_["members"].items()}
        assert claims.get("eager", []) == [], "the eager member claimed partitions at join"
    assert any(claims["coop0"]["owned"] for claims in _claims(rounds, names)), "coop0 claimed none"
    finish(group, producer)


def test_member_back_after_its_session_expired_claims_nothing(new_group):
    """A member frozen past its session timeout is out of the group; when it wakes it treats its
    partitions as lost (``on_partitions_lost``) and rejoins claiming nothing, with no generation
    (KIP-792), while the others kept theirs."""
    group = new_group(partitions=6)
    with TimedProducer(group.broker, group.topic, 6) as producer:
        for name in ("aio0", "aio1", "aio2"):
            start_aiokafka(group, name, STRATEGY)
        before, since = wait_stable_at(group, SETTLE)
        paused_at = group.pause("aio1")
        without = group.wait_stable(timeout=SETTLE, without=["aio1"])
        resumed_at = group.resume("aio1")
        woke = group.first_event("aio1", ["lost", "revoked", "assigned"], resumed_at, SETTLE)
        after = group.wait_stable(timeout=SETTLE)
    assert woke["ev"] == "lost" and set(map(tuple, woke["partitions"])) == before["aio1"]
    # What aio0 and aio2 held before, while aio1 was away and at the end: never revoked.
    kept = {m: before[m] & after[m] for m in ("aio0", "aio2")}
    assert not kept_partitions_problems(group, kept, without, since)
    names = by_member_id(group)
    rejoined = [
        claims["aio1"]
        for claims in _claims(group.leader_events(since=resumed_at), names)
        if "aio1" in claims
    ]
    assert rejoined and rejoined[0] == {"owned": [], "generation": -1}
    group.wait_consumed(producer.counts, timeout=60)
    group.stop_all()
    assert_history_valid(group, producer.counts, excused={"aio1": (paused_at, woke["t"])})


def _claims(rounds, names):
    """Per round, member name -> what it claimed and in which generation."""
    return [
        {names.get(m, m): {"owned": v["owned"], "generation": v["generation"]}
         for m, v in r["members"].items()}
        for r in rounds
    ]  # fmt: skip
