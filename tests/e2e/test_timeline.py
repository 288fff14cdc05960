"""The consumption check itself, on event logs written by hand (no broker): it must tell a gap in
consumption from a commit that a frozen member logged only after it woke."""

from __future__ import annotations

from e2e_timeline import callback_problems, consumption_problems

TP = ("t", 0)
PRODUCED = {TP: 6}
FROZEN = {"a": (1.0, 5.0)}


def _record(t, member, offset):
    return {"t": t, "m": member, "ev": "record", "topic": "t", "partition": 0, "offset": offset}


def _events(*, a_consumed: int, b_starts: int):
    """a owns t-0, consumes offsets below ``a_consumed``, commits 2 (logged) then
    ``a_consumed`` at the broker, and freezes from 1.0 to 5.0: that last commit reaches its log
    only after it wakes (4.5). b takes t-0 over at 3.0 and consumes from ``b_starts``."""
    events = [
        {"t": 0.1, "m": "a", "ev": "assigned", "partitions": [list(TP)]},
        *(_record(0.2 + i / 100, "a", i) for i in range(a_consumed)),
        {"t": 0.8, "m": "a", "ev": "commit", "offsets": {"t:0": 2}},
        {"t": 4.5, "m": "a", "ev": "commit", "offsets": {"t:0": a_consumed}},
        {"t": 3.0, "m": "b", "ev": "assigned", "partitions": [list(TP)]},
        *(_record(3.1 + i / 100, "b", i) for i in range(b_starts, 6)),
        {"t": 5.1, "m": "a", "ev": "lost", "partitions": [list(TP)]},
    ]
    return sorted(events, key=lambda e: e["t"])


def test_a_commit_logged_after_the_freeze_is_not_a_gap():
    assert consumption_problems(_events(a_consumed=4, b_starts=4), PRODUCED, FROZEN) == []


def test_a_start_beyond_what_the_frozen_member_consumed_is_still_a_gap():
    problems = consumption_problems(_events(a_consumed=3, b_starts=5), PRODUCED, FROZEN)
    assert "b started ('t', 0) at 5, committed 2" in problems
    assert "('t', 0): offsets never consumed: [3, 4]" in problems


def test_without_the_freeze_a_start_past_the_logged_commit_is_reported():
    problems = consumption_problems(_events(a_consumed=4, b_starts=4), PRODUCED, {})
    assert "b started ('t', 0) at 4, committed 2" in problems


def test_only_the_first_start_after_the_takeover_is_lenient():
    # a wakes and revokes (an eager rejoin) instead of losing the partition: nothing is unclean
    events = [
        {**e, "ev": "revoked"} if e["ev"] == "lost" else e
        for e in _events(a_consumed=4, b_starts=4)
    ]
    events += [
        {"t": 6.0, "m": "b", "ev": "revoked", "partitions": [list(TP)]},
        {"t": 6.1, "m": "c", "ev": "assigned", "partitions": [list(TP)]},
        _record(6.2, "c", 5),  # b consumed 4 and 5 but committed nothing: c must start at 4
    ]
    problems = consumption_problems(events, PRODUCED, FROZEN)
    assert problems == ["c started ('t', 0) at 5, committed 4"]


def _callback(t, member, kind, *partitions):
    return {"t": t, "m": member, "ev": kind, "partitions": [["t", p] for p in partitions]}


def test_cooperative_callbacks_that_move_a_partition_in_two_rounds_pass():
    events = [
        _callback(1, "a", "assigned", 0, 1),
        _callback(2, "a", "revoked", 1),  # round one: a gives p1 up
        _callback(3, "b", "assigned", 1),  # round two: b gets it
        _callback(4, "b", "revoked", 1),  # b leaves ...
        _callback(5, "a", "assigned", 1),  # ... and a may get it back: someone owned it between
    ]
    assert callback_problems(events, cooperative=True) == []


def test_cooperative_revoke_then_reassign_is_reported():
    events = [_callback(1, "a", "assigned", 0, 1), _callback(2, "a", "revoked", 0, 1),
              _callback(3, "a", "assigned", 0, 1)]  # fmt: skip
    assert callback_problems(events, cooperative=True) == [
        "3.000 a revoked then was given back [('t', 0), ('t', 1)]"
    ]
    assert callback_problems(events, cooperative=False) == []  # eager does exactly that


def test_eager_assignment_while_still_owning_is_reported():
    events = [_callback(1, "a", "assigned", 0), _callback(2, "a", "assigned", 1)]
    assert callback_problems(events, cooperative=False) == [
        "2.000 a assigned while still owning {('t', 0)}"
    ]


def test_revoking_what_is_not_owned_and_being_assigned_twice_are_reported():
    events = [_callback(1, "a", "revoked", 3), _callback(2, "a", "assigned", 0),
              _callback(3, "a", "assigned", 0)]  # fmt: skip
    assert callback_problems(events, cooperative=True) == [
        "1.000 a revoked [('t', 3)] unowned",
        "3.000 a assigned [('t', 0)] again",
    ]
