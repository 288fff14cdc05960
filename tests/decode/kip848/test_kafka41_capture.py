"""The shipped Apache Kafka 4.1 capture of two consumer-protocol groups (``uniform``, ``range``),
decoded and held against what the broker and the members themselves reported while it was
recorded (``kafka41_consumer_protocol.expected.json``), epoch by epoch.

Each group: confluent-kafka ``c0`` joins, ``c1`` joins, Kafka's Java consumer ``j2`` joins, ``c1``
leaves, ``c3`` joins, all leave; after each step the recorder waited until ConsumerGroupDescribe
showed every member holding its target (``steps``). The server-assignor plugins are checked
against the same epochs in ``tests/server/test_kafka41_capture.py``.
"""

from __future__ import annotations

import pytest
from kafka41_capture import (
    CAPTURE,
    decoded,
    epochs,
    expected,
    expected_group,
    timeline,
)

from assignframe.decode import Problems, iter_messages
from assignframe.decode.kip848.timeline import build_consumer_timelines

from ..traffic import test_tshark

GROUPS = [g["group_id"] for g in expected()["groups"]]


def names(group) -> dict[str, str]:
    return {m.member_id: m.client_id for m in group.members.values()}


def test_the_capture_decodes_whole_into_both_groups():
    result = decoded()
    assert result.problems.items == []
    assert result.timelines == []  # no classic group: every member spoke the consumer protocol
    assert sorted(g.group_id for g in result.consumer_groups) == sorted(GROUPS) == [
        "kafka41-range", "kafka41-uniform"]


@pytest.mark.parametrize("group_id", GROUPS)
def test_members_are_the_ones_the_clients_and_the_broker_named(group_id):
    group, wanted = timeline(group_id), expected_group(group_id)
    topics = {m: t for epoch in epochs(group).values() for m, t in epoch.members.items()}
    decoded_members = {m.client_id: (m.member_id, topics[m.member_id])
                       for m in group.members.values()}
    assert decoded_members == {
        name: (m["member_id"], sorted(m["topics"])) for name, m in wanted["members"].items()
    }
    assert {m.subscription.get("server_assignor") for m in group.members.values()} == {
        wanted["assignor"]}


@pytest.mark.parametrize("group_id", GROUPS)
def test_every_step_epoch_by_epoch_equals_what_the_broker_described(group_id):
    """Step k is the group's (k+1)-th join or leave, so group epoch k+1: its members are the
    recorder's, the capture's ConsumerGroupDescribe of that epoch says Stable with the targets
    the recorder's AdminClient saw, and every assignment a heartbeat response gave a member at
    that epoch is part of its target, the largest all of it."""
    group, wanted = timeline(group_id), expected_group(group_id)
    found, name = epochs(group), names(group)
    assert len(wanted["steps"]) == 5
    for index, step in enumerate(wanted["steps"]):
        epoch = found[index + 1]
        where = f"{group_id} epoch {epoch.epoch} ({step['event']})"
        assert {name[m] for m in epoch.members} == set(step["members"]), where
        assert epoch.state == "Stable", where
        assert epoch.described is not None, where
        targets = {name[m]: sorted(t) for m, t in epoch.described.items()}
        admin = {n: sorted(map(tuple, m["target"])) for n, m in step["members"].items()}
        assert targets == admin, where
        assert admin == {n: sorted(map(tuple, m["assignment"])) for n, m in
                         step["members"].items()}, where
        assert set(epoch.received) == set(epoch.members), where  # each answered at this epoch
        for member, got in epoch.received.items():
            target = epoch.described[member]
            assert all(assignment <= target for assignment in got), (where, name[member])
            assert max(got, key=len) == target, (where, name[member])


@pytest.mark.parametrize("group_id", GROUPS)
def test_joins_answer_with_the_counted_epoch_and_leaves_end_at_an_empty_group(group_id):
    group = timeline(group_id)
    found = epochs(group)
    joined = [e["member_id"] for e in group.events if e["event"] == "join"]
    left = [e["member_id"] for e in group.events if e["event"] == "leave"]
    assert [names(group)[m] for m in joined] == ["c0", "c1", "j2", "c3"]
    assert sorted(left) == sorted(joined)
    assert sorted(found) == list(range(1, 9)) and found[8].members == {}
    for epoch in found.values():
        assert set(epoch.received) <= set(epoch.members), epoch.epoch
    # the first answer each member got is at the epoch its own join made
    for member in joined:
        first = next(e for e in group.events
                     if e["member_id"] == member and e["event"] == "assignment")
        join_epoch = min(n for n, e in found.items() if member in e.members)
        assert first["epoch"] == join_epoch, names(group)[member]


@pytest.mark.parametrize("group_id", GROUPS)
def test_reconciliation_flags_no_impossible_step_and_nobody_is_fenced(group_id):
    group = timeline(group_id)
    kinds = {e["event"] for e in group.events}
    assert kinds <= {"join", "assignment", "epoch", "leave", "error"}, kinds
    errors = [(names(group)[e["member_id"]], e["error"]) for e in group.events
              if e["event"] == "error"]
    # the first group on a fresh broker: its coordinator may still be loading
    # __consumer_offsets when c0's first heartbeats arrive (answered NOT_COORDINATOR or
    # COORDINATOR_LOAD_IN_PROGRESS, and retried); no other error
    assert {error for _, error in errors} <= {"NOT_COORDINATOR", "COORDINATOR_LOAD_IN_PROGRESS"}
    assert {member for member, _ in errors} <= {"c0"}
    if group_id == "kafka41-range":
        assert errors == []
    assert {m.state for m in group.members.values()} == {"left"}


def test_the_reconciliation_check_runs_on_this_capture():
    """The same messages with one answer's member epoch moved back (3 to 1): flagged, so the
    clean result above is the check passing, not the check skipped."""
    messages = list(iter_messages(CAPTURE, Problems()))
    answers = [m for m in messages if m.frame.api_key == 68 and not m.frame.is_request
               and m.fields["member_epoch"] == 3 and not m.fields["error_code"]]
    assert answers
    answers[0].fields["member_epoch"] = 1
    flagged = [e["reason"] for g in build_consumer_timelines(iter(messages)) for e in g.events
               if e["event"] == "impossible"]
    assert flagged and all("epoch 1" in reason for reason in flagged), flagged


@pytest.mark.parametrize("group_id", GROUPS)
def test_final_assignments_are_the_members_own(group_id):
    group, wanted = timeline(group_id), expected_group(group_id)
    found, name = epochs(group), names(group)
    last = found[len(wanted["steps"])]
    assert last.described is not None
    final = {name[m]: sorted(map(list, t)) for m, t in last.described.items()}
    assert final == {n: sorted(map(list, p)) for n, p in wanted["final_assignments"].items()}
    every = set().union(*last.described.values())
    sizes = {t: expected()["topics"][t]["partitions"] for t in ("orders", "payments")}
    assert every == {(t, p) for t, n in sizes.items() for p in range(n)}
    assert sum(len(t) for t in last.described.values()) == sum(sizes.values())


@pytest.mark.parametrize("group_id", GROUPS)
def test_every_assignment_the_broker_sent_shows_in_the_members_callbacks_in_order(group_id):
    """librdkafka and the Java consumer revoke before they assign: their callbacks may show
    states in between (what is left after a revocation), never an assignment out of order."""
    group, wanted = timeline(group_id), expected_group(group_id)
    name = names(group)
    sent: dict[str, list[list[list]]] = {}
    steps = len(wanted["steps"])
    for event in group.events:  # after the last step members were closing: no callbacks
        if event["event"] == "assignment" and event["epoch"] <= steps:
            sent.setdefault(name[event["member_id"]], []).append(sorted(event["partitions"]))
    told: dict[str, list[list[list]]] = {}
    for callback in wanted["callbacks"]:
        states = told.setdefault(callback["member"], [])
        if not states or states[-1] != callback["assignment"]:
            states.append(callback["assignment"])
    assert set(sent) == set(told) == set(wanted["members"])
    for member, assignments in sent.items():
        remaining = iter(told[member])
        missing = [a for a in assignments if a and not any(a == s for s in remaining)]
        assert not missing, (member, missing, told[member])


def test_every_consumer_group_exchange_tshark_reads_is_one_we_read():
    """Wireshark 4.0 knows no ConsumerGroupHeartbeat (68) or ConsumerGroupDescribe (69) bodies
    ("Unknown 68 API key"), so only the Kafka headers compare: every exchange of those APIs
    tshark frames (client port, api key, version, correlation id) is one of ours, and ours all
    are its (we keep heartbeat requests and responses, and describe responses)."""
    theirs, ours = test_tshark.exchange_headers(CAPTURE, _broker_port(), (68, 69))
    assert len([k for k in ours if k[1] == 68]) > 50 and [k for k in ours if k[1] == 69]
    assert theirs == ours


def _broker_port() -> int:
    hosts = {m.client_host for g in decoded().consumer_groups for m in g.members.values()}
    (host,) = hosts  # every member heard from the one broker
    return int(host.rsplit(":", 1)[1])


def test_a_refused_first_heartbeat_is_no_join():
    """On a fresh broker c0's first heartbeat was refused (COORDINATOR_LOAD_IN_PROGRESS in the
    shipped capture) while the coordinator loaded: it joined when one was answered, not at the
    first try."""
    group = timeline("kafka41-uniform")
    (c0,) = (m.member_id for m in group.members.values() if m.client_id == "c0")
    mine = [e for e in group.events if e["member_id"] == c0]
    refused = [e for e in mine if e["event"] == "error"]
    assert [e["error"] for e in refused] == ["COORDINATOR_LOAD_IN_PROGRESS"]  # as recorded
    (join,) = (e for e in mine if e["event"] == "join")
    first = next(e for e in mine if e["event"] == "assignment")
    assert all(e["timestamp"] < join["timestamp"] for e in refused)
    assert (join["timestamp"], join["offset"]) == (first["timestamp"], first["offset"])
