"""Member reconciliation against Kafka's own CurrentAssignmentBuilder.

The golden file (``shared/golden/kip848/reconcile.jsonl``) holds Java's output for 847 steps; every
one must come out identical. The named tests below state the builder's rules one by one (from
Kafka's source and its unit test), each with values worked out by hand.
"""

from __future__ import annotations

import json

import pytest

from assignframe.errors import FencedMemberEpochError
from assignframe.kip848.reconcile import (
    ConsumerGroupMember,
    ConsumerMemberState,
    Heartbeat,
    reconcile_member,
)
from assignframe.model import TopicPartition
from assignframe.replay.reconcile import replay_case
from assignframe.testing.paths import shared_path

GOLDEN = shared_path(__file__) / "golden" / "kip848" / "reconcile.jsonl"
CASES = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]

STABLE = ConsumerMemberState.STABLE
UNREVOKED = ConsumerMemberState.UNREVOKED_PARTITIONS
UNRELEASED = ConsumerMemberState.UNRELEASED_PARTITIONS
UNKNOWN = ConsumerMemberState.UNKNOWN
TOPICS = {"a": "a", "b": "b"}


def tps(*names: str) -> frozenset[TopicPartition]:
    """``tps("a0", "b1")`` -> {a-0, b-1}."""
    return frozenset(TopicPartition(n[0], int(n[1:])) for n in names)


def member(state, epoch, assigned=(), pending=(), topics=("a", "b"), at=None):
    """A member whose partitions were all assigned at ``at`` (default: its epoch)."""
    at = epoch if at is None else at
    return ConsumerGroupMember(
        epoch,
        epoch - 1,
        state,
        dict.fromkeys(tps(*assigned), at),
        dict.fromkeys(tps(*pending), at),
        frozenset(topics),
    )


def beat(epoch, target, owned=None, held=(), changed=False, topics=TOPICS):
    """A heartbeat: ``held`` partitions are still some member's (owner epoch 3)."""
    owned_set = None if owned is None else tps(*owned)
    return Heartbeat(epoch, tps(*target), owned_set, dict.fromkeys(tps(*held), 3), topics, changed)


def test_the_golden_file_holds_every_category():
    assert len(CASES) == 508
    assert sum(len(c["steps"]) for c in CASES) == 847


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_every_golden_step_is_identical_to_javas(case):
    replayed = replay_case(case, GOLDEN.name)
    for index, step in enumerate(replayed["steps"]):
        assert "difference" not in step, (index, step["difference"])
        assert step["output"] == case["steps"][index]["output"]


def test_a_stable_member_moves_to_the_new_epoch_with_what_is_free():
    before = member(STABLE, 10, ["a0", "a1"])
    after = reconcile_member(before, beat(11, ["a0", "a1", "a2"], owned=["a0", "a1"]))
    assert (after.member_epoch, after.previous_member_epoch, after.state) == (11, 10, STABLE)
    # kept partitions keep the epoch they were assigned at; the new one gets the target's
    assert after.assigned == {
        TopicPartition("a", 0): 10,
        TopicPartition("a", 1): 10,
        TopicPartition("a", 2): 11,
    }


def test_partitions_to_revoke_keep_the_member_at_its_epoch_until_revoked():
    before = member(STABLE, 10, ["a0", "a1"])
    told = reconcile_member(before, beat(11, ["a0", "a2"], owned=["a0", "a1"]))
    assert (told.member_epoch, told.previous_member_epoch, told.state) == (10, 10, UNREVOKED)
    assert set(told.assigned) == tps("a0") and set(told.pending_revocation) == tps("a1")
    still = reconcile_member(told, beat(11, ["a0", "a2"], owned=["a0", "a1"]))
    assert still is told  # nothing moves while it still owns a1
    done = reconcile_member(told, beat(11, ["a0", "a2"], owned=["a0"]))
    assert (done.member_epoch, done.previous_member_epoch, done.state) == (11, 10, STABLE)
    assert set(done.assigned) == tps("a0", "a2") and not done.pending_revocation


def test_an_omitted_owned_list_means_it_still_owns_everything():
    told = member(UNREVOKED, 10, ["a0"], pending=["a1"])
    assert reconcile_member(told, beat(11, ["a0", "a2"], owned=None)) is told


def test_a_partition_still_held_elsewhere_is_unreleased_but_the_epoch_moves_at_once():
    before = member(STABLE, 10, ["a0"])
    waiting = reconcile_member(before, beat(11, ["a0", "a1", "a2"], owned=["a0"], held=["a1"]))
    assert (waiting.member_epoch, waiting.state) == (11, UNRELEASED)
    assert set(waiting.assigned) == tps("a0", "a2")
    released = reconcile_member(waiting, beat(11, ["a0", "a1", "a2"], owned=["a0", "a2"]))
    assert (released.member_epoch, released.previous_member_epoch) == (11, 11)
    assert released.state is STABLE and set(released.assigned) == tps("a0", "a1", "a2")


def test_a_partition_pending_revocation_back_in_the_target_is_revoked_first():
    told = member(UNREVOKED, 10, ["a0"], pending=["a1"])
    assert reconcile_member(told, beat(12, ["a0", "a1"], owned=["a0", "a1"])) is told
    # once revoked, it comes back; its own pending revocation does not count as held elsewhere
    back = reconcile_member(told, beat(12, ["a0", "a1"], owned=["a0"], held=["a1"]))
    assert back.state is STABLE and set(back.assigned) == tps("a0", "a1")


def test_revoked_partitions_the_client_no_longer_reports_go_without_waiting():
    before = member(STABLE, 10, ["a0", "a1"])
    after = reconcile_member(before, beat(11, ["a0"], owned=["a0"]))
    assert (after.member_epoch, after.state, set(after.assigned)) == (11, STABLE, tps("a0"))


def test_a_subscription_change_alone_takes_away_the_topics_left():
    before = member(STABLE, 10, ["a0", "b0"], topics=("a",))
    after = reconcile_member(before, beat(10, ["a0", "b0"], owned=["a0", "b0"], changed=True))
    assert (after.member_epoch, after.previous_member_epoch, after.state) == (10, 10, UNREVOKED)
    assert set(after.pending_revocation) == tps("b0")
    unchanged = member(STABLE, 10, ["a0"], topics=("a",))
    assert reconcile_member(unchanged, beat(10, ["a0"], changed=True)) is unchanged


def test_an_unknown_state_is_fenced_unless_the_member_owns_nothing():
    lost = member(UNKNOWN, 10, ["a0"])
    with pytest.raises(FencedMemberEpochError, match="unknown state"):
        reconcile_member(lost, beat(11, ["a0"], owned=None))
    with pytest.raises(FencedMemberEpochError):
        reconcile_member(lost, beat(11, ["a0"], owned=["a0"]))
    fresh = reconcile_member(lost, beat(11, ["a0", "a1"], owned=[]))
    assert (fresh.member_epoch, fresh.state, set(fresh.assigned)) == (11, STABLE, tps("a0", "a1"))


def test_a_deleted_topic_is_not_subscribed_any_more():
    before = member(STABLE, 10, ["a0", "b0"])
    after = reconcile_member(before, beat(11, ["a0", "b0"], owned=["a0"], topics={"a": "a"}))
    assert set(after.assigned) == tps("a0")


def test_an_input_written_back_is_the_recorded_input():
    """The layout is read and written by one module: every golden input survives the round trip
    (owned partitions come back sorted; the file keeps some in the order sent)."""
    from assignframe.replay.reconcile import input_as_json, step_input

    for case in CASES:
        for step in case["steps"]:
            recorded = json.loads(json.dumps(step["input"]))
            counts = {key: topic["partitions"] for key, topic in recorded["topics"].items()}
            written = input_as_json(*step_input(recorded, case["id"]), counts)
            if recorded["owned_topic_partitions"] is not None:
                recorded["owned_topic_partitions"].sort()
            assert written == recorded, case["id"]
