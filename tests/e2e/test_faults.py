"""Members dying or stalling mid-stream: ownership stays exclusive, nothing is left unowned,
records are consumed exactly as committed, and sticky strategies keep their placement even when
the leader changes (their state travels in subscription user data, not in the leader)."""

from __future__ import annotations

import time

import pytest
from e2e_harness import (
    COOPERATIVE_STICKY,
    BackgroundProducer,
    assert_history_valid,
    by_member_id,
    leader_assignment,
)

STICKY = ["sticky", COOPERATIVE_STICKY]
SLOW_RECORDS = {"record_delay": 0.005}  # so a kill lands between processing and committing


def start_three(group, strategy):
    for index in range(3):
        group.start(f"kp{index}", "kafka-python", [strategy], **SLOW_RECORDS)
    return group.wait_stable()


def finish(group, background, excused=None):
    """Stop producing, let the group drain, then check the whole history."""
    group.wait_consumed(background.counts, timeout=40)
    group.stop_all()
    assert_history_valid(group, background.counts, excused)


@pytest.mark.parametrize("strategy", ["range", "roundrobin", *STICKY])
def test_follower_killed(new_group, strategy):
    group = new_group(partitions=6)
    with BackgroundProducer(group.broker, group.topic, 6) as background:
        before = start_three(group, strategy)
        victim = next(name for name in sorted(before) if name != group.leader())
        group.kill(victim)
        after = group.wait_stable(timeout=group.broker.timings.rebalance_seconds * 3)
    assert set(after) == set(before) - {victim}
    if strategy in ("sticky", "cooperative-sticky"):
        for survivor, partitions in after.items():
            assert partitions >= before[survivor], f"{survivor} lost partitions it had"
    finish(group, background)


#: the session timeout of a member a test freezes to hold a rebalance open: with the test
#: broker's 6 s, a machine slow to show the leader's revocation let the coordinator expire the
#: frozen member and end the rebalance before the leader was killed
HELD_SESSION_MS = 60_000


def start_leader_then_two(group, strategy, held: str | None = None):
    """kp0 first, alone: the first member of an empty group leads, and keeps leading while it
    stays in the group. ``held`` (a member the test will freeze) gets a long session."""
    group.start("kp0", "kafka-python", [strategy], **SLOW_RECORDS)
    group.wait_stable()
    for index in (1, 2):
        name = f"kp{index}"
        extra = {"session_timeout_ms": HELD_SESSION_MS} if name == held else {}
        group.start(name, "kafka-python", [strategy], **SLOW_RECORDS, **extra)
    before = group.wait_stable()
    assert group.leader() == "kp0"
    return before


@pytest.mark.parametrize("strategy", STICKY)
def test_leader_killed_during_rebalance_keeps_placement(new_group, strategy):
    group = new_group(partitions=6)
    timings = group.broker.timings
    with BackgroundProducer(group.broker, group.topic, 6) as background:
        old_leader, held = "kp0", "kp1"
        before = start_leader_then_two(group, strategy, held if strategy == "sticky" else None)
        if strategy == "sticky":
            # Kafka ends a rebalance as soon as every member rejoined (in milliseconds): a frozen
            # follower keeps this one open until the leader is dead, whatever the machine's load.
            group.pause(held)
        joined_at = time.time()
        group.start("kp3", "kafka-python", [strategy], **SLOW_RECORDS)
        # Eager members revoke when the rebalance starts; cooperative ones only hear about it once
        # the leader has computed the first round. Either way the leader dies mid-rebalance.
        signal = "revoked" if strategy == "sticky" else "leader"
        first_round = group.first_event(
            old_leader, [signal], since=joined_at, timeout=timings.rebalance_seconds * 2
        )
        killed_at = group.kill(old_leader)
        if strategy == "sticky":
            group.resume(held)
            assigned = [e["m"] for e in group.events() if e["ev"] == "assigned"
                        and joined_at < e["t"] < killed_at]  # fmt: skip
            assert not assigned, f"the rebalance ended before the leader died: {assigned}"
        after = group.wait_stable(timeout=timings.rebalance_seconds * 4)

    survivors = set(before) - {old_leader}
    assert set(after) == survivors | {"kp3"}
    assert sorted(len(tps) for tps in after.values()) == [2, 2, 2]
    if strategy == "sticky":
        # Eager: everyone revoked everything, yet the new leader puts each survivor back.
        for survivor in survivors:
            assert after[survivor] == before[survivor], (
                f"{survivor} did not get its partitions back"
            )
        assert after["kp3"] == before[old_leader]
    else:
        # Cooperative: the dead leader's first round already took a partition from a survivor
        # for kp3; whatever that round left each survivor, it keeps (whether or not the second
        # round finished before the kill).
        kept = leader_assignment(first_round, by_member_id(group))
        for survivor in survivors:
            assert after[survivor] >= kept[survivor], f"{survivor} lost partitions it was left"
    new_leaders = group.leader_events(since=killed_at)
    assert new_leaders and {e["m"] for e in new_leaders} != {old_leader}
    if strategy == "sticky":  # eager: nothing owned is reported, so stickiness came from user data
        names = by_member_id(group)
        state = {names.get(m, m): v for m, v in new_leaders[-1]["members"].items()}
        assert all(state[s]["user_data"] for s in survivors)
    finish(group, background)


@pytest.mark.parametrize("strategy", STICKY)
def test_member_back_with_stale_generation(new_group, strategy):
    """A member frozen past its session timeout comes back and rejoins carrying its old
    generation (and, cooperative, its old owned partitions): the leader must not hand those
    partitions back while their new owner still holds them."""
    group = new_group(partitions=6)
    with BackgroundProducer(group.broker, group.topic, 6) as background:
        before = start_three(group, strategy)
        stale = next(name for name in sorted(before) if name != group.leader())
        paused_at = group.pause(stale)
        group.wait_stable(timeout=group.broker.timings.rebalance_seconds * 3, without=[stale])
        resumed_at = group.resume(stale)
        woke = group.first_event(
            stale,
            ["lost", "revoked", "assigned"],
            since=resumed_at,
            timeout=group.broker.timings.rebalance_seconds * 2,
        )
        after = group.wait_stable(timeout=group.broker.timings.rebalance_seconds * 4)

    assert set(after) == set(before)
    assert sorted(len(tps) for tps in after.values()) == [2, 2, 2]
    rejoin = group.leader_events(since=resumed_at)[0]
    names = by_member_id(group)
    seen = {names.get(m, m): v for m, v in rejoin["members"].items()}
    if seen[stale]["version"] >= 2:  # a kafka-python 2.x leader reads v0 only: no generation
        others = [v["generation"] for name, v in seen.items() if name != stale]
        assert seen[stale]["generation"] < max(others), "the stale member hid its old generation"
    if strategy == "sticky":  # its previous assignment and generation travel in user data
        assert seen[stale]["user_data"], "the stale member sent no sticky state"
    # The frozen member's own view is stale from the pause until it notices; only that is excused.
    finish(group, background, excused={stale: (paused_at, woke["t"])})
