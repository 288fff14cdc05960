"""The watch history: events between two states, resume, torn last line."""

from __future__ import annotations

import json

import pytest

from assignframe.cluster.history import GroupState, History, changes
from assignframe.errors import InputError


def _state(owners, generation=3, state="Stable", reconciling=0):
    return GroupState(generation, state, dict(owners), reconciling)


def test_moves_joins_leaves_and_settling():
    before = _state({"t-0": "a", "t-1": "a", "t-2": "b"})
    before.settled_seen = 95.0  # the last poll that saw it settled
    during = _state({"t-0": "a", "t-1": "c"}, 4, "PreparingRebalance")
    events = changes("g", before, during, 100.0, stuck_after=60)
    kinds = [e["event"] for e in events]
    assert kinds == ["epoch", "state", "joined", "left", "moved", "revoked"]
    assert events[-2]["partitions"] == [["t-1", "a", "c"]]  # a hand-over
    assert events[-1]["partitions"] == [["t-2", "b"]]  # nobody holds it now: not moved
    after = _state({"t-0": "a", "t-1": "c", "t-2": "c"}, 4)
    settled = changes("g", during, after, 107.5, stuck_after=60)
    # 7.5 s since a poll saw the change, at most 12.5 s since one saw it settled before
    assert settled[-1] == {"event": "settled", "seconds": 7.5, "at_most": 12.5}


def test_a_rebalance_between_two_polls_is_not_said_to_take_no_time():
    """Issue 31: after a kill -9 the broker removed the member at its session timeout and
    the group settled again before the next poll: the poll sees a change and a settled group
    at once. ``seconds`` is 0 (no poll saw it unsettled); ``at_most`` says it may have taken
    the whole interval since the last poll."""
    before = _state({"t-0": "a", "t-1": "b"})
    changes("g", None, before, 100.0, stuck_after=60)
    assert before.settled_seen == 100.0
    after = _state({"t-0": "a", "t-1": "a"}, 4)
    events = changes("g", before, after, 110.0, stuck_after=60)
    assert events[-1] == {"event": "settled", "seconds": 0.0, "at_most": 10.0}
    assert after.settled_seen == 110.0


def test_stuck_is_said_once_per_episode():
    before = _state({"t-0": "a"}, 5, "Reconciling", reconciling=1)
    before.unsettled_since = 0.0
    first = changes("g", before, _state({"t-0": "a"}, 5, "Reconciling", 1), 61.0, 60)
    assert [e["event"] for e in first] == ["stuck"]
    again = GroupState.from_dict({**_state({"t-0": "a"}, 5, "Reconciling", 1).as_dict(),
                                  "unsettled_since": 0.0, "stuck_said": True})
    assert changes("g", again, _state({"t-0": "a"}, 5, "Reconciling", 1), 90.0, 60) == []


def _reconciling(members, now_state="Reconciling"):
    state = _state({"t-0": "a", "t-1": "b"}, 5, now_state, reconciling=len(members))
    state.reconciling_members = {m: {"client_id": f"client-{m}", "epoch": 4, "since": None,
                                     "not_given_up": ["t-1"] if m == "b" else []}
                                 for m in members}
    return state


def test_a_stuck_group_names_who_holds_it_up_and_since_when(tmp_path):
    """Issue 31: a reconciling group names the member that has not reached its target, with
    its client, its epoch and since when (the first poll that saw it reconciling), also after
    the watch is restarted on its history."""
    first = _reconciling(["a"])
    changes("g", _state({"t-0": "a", "t-1": "b"}, 5), first, 10.0, stuck_after=60)
    assert first.reconciling_members["a"]["since"] == 10.0
    path = tmp_path / "history.jsonl"
    history = History(path, warn=pytest.fail)
    history.append("g", 10.0, [{"event": "state"}], first)
    history.close()
    resumed = History(path, warn=pytest.fail)  # a restarted watch
    second = _reconciling(["a", "b"])
    changes("g", resumed.last["g"], second, 50.0, stuck_after=60)
    third = _reconciling(["a", "b"])
    [stuck] = changes("g", second, third, 75.0, stuck_after=60)
    resumed.close()
    assert stuck["event"] == "stuck" and stuck["seconds"] == 65.0
    assert stuck["members"] == [  # who holds the others up first, then the longest
        {"member_id": "b", "client_id": "client-b", "epoch": 4, "not_given_up": ["t-1"],
         "seconds": 25.0},
        {"member_id": "a", "client_id": "client-a", "epoch": 4, "not_given_up": [],
         "seconds": 65.0},
    ]
    # a member that reached its target drops out; one reconciling again starts afresh
    fourth = _reconciling(["b"])
    changes("g", third, fourth, 80.0, stuck_after=60)
    fifth = _reconciling(["a", "b"])
    changes("g", fourth, fifth, 90.0, stuck_after=60)
    assert {m: w["since"] for m, w in fifth.reconciling_members.items()} == \
        {"a": 90.0, "b": 50.0}


def test_resume_and_torn_last_line(tmp_path):
    path = tmp_path / "history.jsonl"
    history = History(path, warn=pytest.fail)
    state = _state({"t-0": "a"})
    history.append("g", 1.0, [{"event": "seen"}], state)
    good = path.read_bytes()
    path.write_bytes(good + b'{"time": 2.0, "group_id": "g", "ev')
    history.close()  # the watch stopped (another History on the file would be refused)
    warnings: list[str] = []
    resumed = History(path, warn=warnings.append)
    assert len(warnings) == 1 and "torn" in warnings[0]
    assert resumed.last["g"].owners == {"t-0": "a"}
    assert path.read_bytes() == good  # the torn bytes are cut, the file is valid again
    assert [json.loads(line)["event"] for line in path.read_text().splitlines()] == ["seen"]
    resumed.close()


def test_a_second_history_on_one_file_is_refused_until_the_first_is_closed(tmp_path):
    """Two watches on one history would write every event twice: the file is locked."""
    path = tmp_path / "history.jsonl"
    first = History(path, warn=pytest.fail)
    with pytest.raises(InputError, match="another watch is writing this history"):
        History(path, warn=pytest.fail)
    first.close()
    History(path, warn=pytest.fail).close()


def test_a_broken_line_inside_the_history_is_an_error(tmp_path):
    path = tmp_path / "history.jsonl"
    path.write_text('not json\n{"group_id": "g", "after": {}}\n')
    with pytest.raises(InputError, match="line 1"):
        History(path, warn=pytest.fail)


def test_a_rebalance_between_two_readable_states_loses_no_leave():
    """Kafka describes a classic group in PreparingRebalance without member metadata: no owners.
    Who left and what moved is said once the group is Stable again, against the owners before
    the rebalance (measured on Kafka 4.1: a member killed with kill -9, then the survivor
    alone; without this the leave was never said and the survivor 'joined')."""
    before = _state({"t-0": "a", "t-1": "b"}, -1)
    rebalancing = GroupState(None, "PreparingRebalance", {}, 0)
    during = changes("g", before, rebalancing, 10.0, stuck_after=60)
    assert [e["event"] for e in during] == ["state"]
    assert rebalancing.owners == {"t-0": "a", "t-1": "b"}  # the last known ones stand
    after = _state({"t-0": "a", "t-1": "a"}, -1)
    events = changes("g", rebalancing, after, 12.0, stuck_after=60)
    assert [e["event"] for e in events] == ["state", "left", "moved", "settled"]
    assert events[1]["member_id"] == "b"
    assert events[2]["partitions"] == [["t-1", "b", "a"]]
    assert events[3]["seconds"] == 2.0


def test_an_outage_is_one_unreadable_event_and_one_readable():
    """A poll that reads nothing makes every known group unreadable once, however many polls
    fail and whatever they fail with; the first good poll says it was read again and after how
    long, and the settle clock is not started by not knowing."""
    from assignframe.cluster.history import unreachable

    before = _state({"t-0": "a"})
    down = unreachable(before, "ConnectionError: refused")
    first = changes("g", before, down, 10.0, stuck_after=60)
    again = unreachable(down, "KafkaTimeoutError: timed out")
    second = changes("g", down, again, 12.0, stuck_after=60)
    assert [e["event"] for e in first] == ["unreadable"] and second == []
    assert first[0]["why"] == again.unreadable == "cluster unreachable: ConnectionError: refused"
    back = changes("g", again, _state({"t-0": "a"}), 20.0, stuck_after=60)
    assert back == [{"event": "readable", "seconds": 10.0}]


def test_a_group_converted_online_records_its_type_change():
    """A classic group upgraded to the consumer protocol (its first consumer member joined):
    the type change is an event of its own."""
    before = GroupState(5, "Stable", {"t-0": "a"}, 0, group_type="classic")
    after = GroupState(7, "Stable", {"t-0": "a"}, 0, group_type="consumer")
    events = changes("g", before, after, 10.0, stuck_after=60)
    assert {"event": "type", "from": "classic", "to": "consumer"} in events
