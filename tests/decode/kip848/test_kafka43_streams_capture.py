"""The shipped Apache Kafka 4.3.1 capture of a Streams group (KIP-1071,
``captures/streams/kafka43_streams_group.pcap``, recorded by
``scripts/record_streams_group_capture.py``), decoded and held against what the members and
Kafka's Admin reported while it was recorded (``kafka43_streams_group.expected.json``).

Three real Kafka Streams 4.3.1 instances of one stateless application (one stream thread each,
so one member each; sub-topology 0 reads ``words``, 4 partitions, sub-topology 1 ``clicks``, 2):
``st0``, ``st1``, ``st2`` join, ``st1`` leaves (SIGTERM), ``st2`` is killed (-9), ``st0``
leaves; after each step the recorder waited until Admin (describe-group.sh, through the captured
port) showed the live members settled (``steps``). The members printed every change of their
tasks per stream thread (``printed``); they print no epoch, so epochs come from Admin.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path
from typing import Any

import assignframe_codec as codec

from assignframe.cli import main
from assignframe.decode import Problems, decode_capture, iter_messages
from assignframe.decode.traffic.messages import read_message
from assignframe.streams_assignor import TASK_KINDS, task_label

from ..traffic import test_tshark
from .test_kafka43_share_capture import mangled_member_id

CAPTURES = Path(__file__).resolve().parents[3] / "assignframe" / "data" / "captures" / "streams"
CAPTURE = CAPTURES / "kafka43_streams_group.pcap"
EXPECTED = CAPTURES / "kafka43_streams_group.expected.json"
STREAMS_APIS = (88, 89)  # StreamsGroupHeartbeat, StreamsGroupDescribe


@functools.cache
def decoded() -> Any:
    return decode_capture(CAPTURE)


@functools.cache
def recorded() -> dict[str, Any]:
    return dict(json.loads(EXPECTED.read_text()))


def expected() -> dict[str, Any]:
    (group,) = recorded()["groups"]
    return dict(group)


def group() -> Any:
    (found,) = decoded().streams_groups
    return found


def names() -> dict[str, str]:
    """member id -> the recorder's name of the member (st0..st2), by Admin's member ids."""
    return {m["member_id"]: name for name, m in expected()["members"].items()}


def labels(tasks: Any) -> dict[str, list[str]]:
    return {kind: [task_label(t) for t in getattr(tasks, kind)] for kind in TASK_KINDS}


def admin_tasks(member: dict[str, Any]) -> dict[str, list[str]]:
    return {kind: member[kind] for kind in TASK_KINDS}


def test_the_capture_decodes_whole_into_one_streams_group():
    result = decoded()
    assert result.problems.items == []
    assert result.timelines == [] and result.consumer_groups == [] and result.share_groups == []
    assert [g.group_id for g in result.streams_groups] == [expected()["group_id"]]
    assert group().group_type == "streams" and group().snapshots == []


def test_members_and_their_processes_are_the_ones_admin_named():
    admin = {m["member_id"]: m for s in expected()["steps"] for m in s["describe"]["members"]}
    members = group().members.values()
    assert {m.member_id: m.client_id for m in members} == {
        m["member_id"]: m["client_id"] for m in expected()["members"].values()}
    assert {m.member_id: m.subscription["process_id"] for m in members} == {
        i: m["process_id"] for i, m in admin.items()}


def test_every_task_assignment_a_heartbeat_response_brought_is_one_the_member_printed():
    """Each member printed its stream thread's tasks on every change it saw: the non-empty
    assignments the broker's StreamsGroupHeartbeat responses brought it are those, in order
    (the runner prints nothing before its first task, and its closing line holds none); no
    standby or warm-up task anywhere (stateless sub-topologies)."""
    sent: dict[str, list[dict[str, list[str]]]] = {}
    for event in sorted(group().events, key=lambda e: e["timestamp"]):
        if event["event"] == "assignment" and event["tasks"]["active"]:
            sent.setdefault(names()[event["member_id"]], []).append(event["tasks"])
    printed: dict[str, list[dict[str, list[str]]]] = {}
    for name, lines in expected()["printed"].items():
        thread = expected()["members"][name]["client_id"]
        for line in lines:
            tasks = line.get("threads", {}).get(thread) if line["event"] == "tasks" else None
            if tasks:
                printed.setdefault(name, []).append({**tasks, "warmup": []})
    assert sent == printed
    assert [t["active"] for t in sent["st0"]] == [
        ["0_0", "0_1", "0_2", "0_3", "1_0", "1_1"], ["0_0", "0_1", "1_0"], ["0_0", "1_0"],
        ["0_0", "1_0", "1_1"], ["0_0", "0_1", "0_2", "0_3", "1_0", "1_1"]]


def test_joins_leaves_and_the_killed_member():
    events = sorted(group().events, key=lambda e: e["timestamp"])
    kinds = {e["event"] for e in events}
    assert kinds <= {"join", "assignment", "epoch", "leave", "vanished", "error"}, kinds
    said = [(names()[e["member_id"]], e["event"]) for e in events
            if e["event"] in ("join", "leave", "vanished")]
    assert said == [("st0", "join"), ("st1", "join"), ("st2", "join"), ("st1", "leave"),
                    ("st2", "vanished"), ("st0", "leave")]
    assert {names()[m.member_id]: m.state for m in group().members.values()} == {
        "st0": "left", "st1": "left", "st2": "vanished"}


def _describe_times() -> list[float]:
    return [m.frame.timestamp for m in iter_messages(CAPTURE, Problems())
            if m.kind == "StreamsGroupDescribeResponse"]


def _state_at(moment: float) -> dict[str, dict[str, Any]]:
    """Each member the capture shows in the group at ``moment`` (joined, not left, not silent
    for a session timeout): the last tasks and member epoch its heartbeat responses brought."""
    session = recorded()["session_timeout_ms"] / 1000
    state: dict[str, dict[str, Any]] = {}
    for event in sorted(group().events, key=lambda e: e["timestamp"]):
        if event["timestamp"] > moment:
            break
        name, kind = names()[event["member_id"]], event["event"]
        if kind == "join":
            state[name] = {"tasks": None, "epoch": None}
        elif kind == "leave" or (kind == "vanished" and event["timestamp"] + session < moment):
            state.pop(name, None)
        elif kind in ("assignment", "epoch") and name in state:
            state[name] = {"tasks": event["tasks"], "epoch": event["epoch"]}
    return state


def test_every_step_admin_saw_is_a_captured_describe_and_the_heartbeats_agree():
    """Admin's answer at each step is a StreamsGroupDescribe answer in the capture (same
    epochs, state, topology, members, their processes, epochs, tasks and targets), and at that
    moment the heartbeat responses had brought each member in it those tasks and that member
    epoch, and nobody else was in the group."""
    answers = list(zip(group().described, _describe_times(), strict=True))
    for step in expected()["steps"]:
        admin, where = step["describe"], step["event"]
        admin_members = {m["member_id"]: {
            "epoch": m["member_epoch"], "client_id": m["client_id"],
            "process_id": m["process_id"], "current": admin_tasks(m),
            "target": {"active": m["target_active"], "standby": m["target_standby"]},
        } for m in admin["members"]}
        matching = [
            (seen, moment) for seen, moment in answers
            if seen["error"] is None
            and (seen["group_state"], seen["group_epoch"], seen["assignment_epoch"]) == (
                admin["state"], admin["group_epoch"], admin["assignment_epoch"])
            and {m: {**d, "current": labels(d["current"]),
                     "target": {k: labels(d["target"])[k] for k in ("active", "standby")}}
                 for m, d in seen["members"].items()} == admin_members
        ]
        assert matching, where
        seen, moment = matching[-1]
        if admin["members"]:
            assert seen["topology_epoch"] == admin["topology_epoch"], where
            assert seen["subtopologies"] == {
                s: tuple(topics) for s, topics in admin["subtopologies"].items()}, where
        assert _state_at(moment) == {
            names()[i]: {"tasks": m["current"], "epoch": m["epoch"]}
            for i, m in admin_members.items()}, where


def test_epochs_are_the_group_at_the_end_of_each_epoch_admin_described():
    epochs = group().epochs
    assert [e.epoch for e in epochs] == [s["describe"]["group_epoch"]
                                         for s in expected()["steps"][:-1]]
    by_epoch = {e.epoch: e for e in epochs}
    for step in expected()["steps"][:-1]:  # the last one: the group is empty
        admin, where = step["describe"], step["event"]
        epoch = by_epoch[admin["group_epoch"]]
        assert (epoch.group_state, epoch.target_epoch) == (
            admin["state"], admin["assignment_epoch"]), where
        assert epoch.topology_epoch == admin["topology_epoch"], where
        assert epoch.subtopologies == {s: tuple(t) for s, t in admin["subtopologies"].items()}
        # st1 leaves at epoch 5 with st2 still in; st2 was killed later in that epoch, and
        # the epoch is the group at its end
        gone = {"st2"} if step["event"] == "st1 leaves" else set()
        wanted = {m["member_id"]: m for m in admin["members"]
                  if names()[m["member_id"]] not in gone}
        assert set(epoch.members) == set(wanted), where
        for member_id, member in epoch.members.items():
            admin_member = wanted[member_id]
            assert member.member_epoch == admin_member["member_epoch"], where
            assert member.process_id == admin_member["process_id"], where
            assert labels(member.tasks) == admin_tasks(admin_member), where
            assert labels(member.owned) == admin_tasks(admin_member), where  # reported back
            target = labels(epoch.target[member_id])
            assert (target["active"], target["standby"]) == (
                admin_member["target_active"], admin_member["target_standby"]), where


def test_decode_shows_the_streams_group_on_the_console_and_as_json(capsys):
    assert main(["decode", "capture", str(CAPTURE), "--width", "250"]) == 0
    out = capsys.readouterr().out
    assert "Streams group kafka43-streams (Streams groups, KIP-1071): 5 epoch(s)" in out
    assert "sub-topology 0 reads words; sub-topology 1 reads clicks" in out
    assert "st2-StreamThread-1-consumer vanished" in out
    assert "st1-StreamThread-1-consumer left (leave)" in out
    assert "st1-StreamThread-1-consumer assigned active 0_2,0_3,1_1 (epoch 3)" in out
    # st2 was killed in epoch 5: its tasks ran nowhere until the broker fenced it
    assert out.count("run by no live member: 0_1,0_2,0_3") == 1
    assert main(["decode", "capture", str(CAPTURE), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    steps = expected()["steps"][:-1]
    assert [line["group_epoch"] for line in lines] == [s["describe"]["group_epoch"] for s in steps]
    assert {line["group_type"] for line in lines} == {"streams"}
    for line, step in zip(lines, steps, strict=True):
        admin = {m["member_id"]: admin_tasks(m) for m in step["describe"]["members"]}
        assert all(admin[m["member_id"]] == m["tasks"] for m in line["members"]), step["event"]
    last = {m["client_id"]: m["final_state"] for m in lines[-1]["members"]}
    assert last == {"st0-StreamThread-1-consumer": "left"}


def test_the_codec_reads_every_streams_frame_byte_for_byte():
    """4.3.1's Kafka Streams and Admin speak StreamsGroupHeartbeat and StreamsGroupDescribe v0
    here; every such body re-encodes to the captured bytes."""
    seen: dict[str, int] = {}
    for message in iter_messages(CAPTURE, Problems()):
        frame = message.frame
        if frame.api_key not in STREAMS_APIS:
            continue
        assert frame.api_version == 0
        value = codec.decode(frame.kind, frame.body, frame.api_version)
        assert codec.encode(frame.kind, value.to_dict(), 0) == frame.body, frame.kind
        seen[frame.kind] = seen.get(frame.kind, 0) + 1
    assert set(seen) == {"StreamsGroupHeartbeatRequest", "StreamsGroupHeartbeatResponse",
                         "StreamsGroupDescribeResponse"}
    assert seen["StreamsGroupDescribeResponse"] == len(expected()["steps"])


def test_every_streams_exchange_tshark_frames_is_one_we_read():
    """Wireshark 4.0 knows no Streams group API bodies: only the Kafka headers compare, every
    exchange of StreamsGroupHeartbeat/Describe tshark frames (client port, api key, version,
    correlation id) is one of ours, and ours are all its."""
    theirs, ours = test_tshark.exchange_headers(CAPTURE, recorded()["port"], STREAMS_APIS)
    assert len(ours) > 50 and theirs == ours


def _first_heartbeat_response() -> Any:
    return next(m for m in iter_messages(CAPTURE, Problems())
                if m.kind == "StreamsGroupHeartbeatResponse" and m.fields["active_tasks"])


def test_a_truncated_streams_heartbeat_is_one_clear_error():
    frame = _first_heartbeat_response().frame
    cut = read_message(dataclasses.replace(frame, body=frame.body[:12]))
    assert cut is not None and cut.fields == {}
    assert cut.error is not None and cut.error.startswith("TruncatedError: ")
    assert "kind=StreamsGroupHeartbeatResponse, version=0, path=member_id" in cut.error


def test_a_mangled_streams_heartbeat_in_the_capture_is_skipped_and_reported(tmp_path, capsys):
    """The capture with one StreamsGroupHeartbeat response's member id claiming 126 bytes (its
    body ends first): that answer is skipped with one line naming it, the rest decodes, and
    decode exits 1 (something skipped)."""
    mangled = mangled_member_id(CAPTURE, _first_heartbeat_response(), tmp_path)
    assert main(["decode", "capture", str(mangled)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(
        "assignframe: skipped: StreamsGroupHeartbeatResponse v0 (correlation id"), err
    assert "undecodable" in err[0]
    result = decode_capture(mangled)
    assert [g.group_id for g in result.streams_groups] == [expected()["group_id"]]
