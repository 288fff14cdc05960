"""The shipped Apache Kafka 4.3.1 capture of a share group (KIP-932,
``captures/share/kafka43_share_group.pcap``, recorded by ``scripts/record_share_group_capture.py``),
decoded and held against what the members and Kafka's Admin reported while it was recorded
(``kafka43_share_group.expected.json``).

Three real KafkaShareConsumers: ``s0`` (jobs) joins, ``s1`` (jobs) joins, ``s2`` (alerts) joins,
``s1`` leaves (SIGTERM), ``s2`` is killed (-9), ``s0`` leaves; after each step the recorder
waited until Admin (describe-group.sh, through the captured port) showed the live members settled
(``steps``). The members printed every change of their assignment with their member epoch
(``printed``).
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

from ..traffic import test_tshark

CAPTURES = Path(__file__).resolve().parents[3] / "assignframe" / "data" / "captures" / "share"
CAPTURE = CAPTURES / "kafka43_share_group.pcap"
EXPECTED = CAPTURES / "kafka43_share_group.expected.json"
SHARE_APIS = (76, 77)  # ShareGroupHeartbeat, ShareGroupDescribe


@functools.cache
def decoded() -> Any:
    return decode_capture(CAPTURE)


@functools.cache
def expected() -> dict[str, Any]:
    (group,) = json.loads(EXPECTED.read_text())["groups"]
    return dict(group)


def group() -> Any:
    (found,) = decoded().share_groups
    return found


def names() -> dict[str, str]:
    return {m.member_id: m.client_id for m in group().members.values()}


def pairs(partitions: Any) -> list[tuple[str, int]]:
    return sorted((topic, partition) for topic, partition in partitions)


def test_the_capture_decodes_whole_into_one_share_group():
    result = decoded()
    assert result.problems.items == []
    assert result.timelines == [] and result.consumer_groups == []
    assert [g.group_id for g in result.share_groups] == [expected()["group_id"]]
    assert group().group_type == "share"


def test_members_are_the_ones_the_clients_named():
    members = {m.client_id: m.member_id for m in group().members.values()}
    assert members == {n: m["member_id"] for n, m in expected()["members"].items()}
    topics = {m: sorted(member.topics) for s in group().snapshots
              for m, member in s.members.items()}
    assert {names()[m]: t for m, t in topics.items()} == {
        n: [m["topic"]] for n, m in expected()["members"].items()}


def test_every_assignment_a_heartbeat_response_brought_is_one_the_member_printed():
    """Each member printed its assignment (and member epoch) on every change it saw: the
    non-empty assignments the broker's ShareGroupHeartbeat responses brought it are those, in
    order, at the same epochs (the runner prints nothing for the empty assignment of its first
    answer, and its closing line is the leave, epoch -1)."""
    sent: dict[str, list[tuple[list, int]]] = {}
    for event in sorted(group().events, key=lambda e: e["timestamp"]):
        if event["event"] == "assignment" and event["partitions"]:
            sent.setdefault(names()[event["member_id"]], []).append(
                (pairs(event["partitions"]), event["epoch"]))
    printed = {name: [(pairs(line["assignment"]), line["member_epoch"]) for line in lines
                      if line["event"] == "assignment" and line["member_epoch"] >= 0]
               for name, lines in expected()["printed"].items()}
    assert sent == printed
    assert len(sent["s0"]) == 3  # all of jobs, half of it when s1 joined, all of it again


def test_joins_leaves_and_the_killed_member():
    events = sorted(group().events, key=lambda e: e["timestamp"])
    kinds = {e["event"] for e in events}
    assert kinds <= {"join", "assignment", "epoch", "leave", "vanished", "error"}, kinds
    said = [(names()[e["member_id"]], e["event"]) for e in events
            if e["event"] in ("join", "leave", "vanished")]
    assert said == [("s0", "join"), ("s1", "join"), ("s2", "join"), ("s1", "leave"),
                    ("s2", "vanished"), ("s0", "leave")]
    assert {names()[m.member_id]: m.state for m in group().members.values()} == {
        "s0": "left", "s1": "left", "s2": "vanished"}
    # a fresh broker: s0's first heartbeats met a coordinator still loading, then it joined
    errors = [(names()[e["member_id"]], e["error"]) for e in events if e["event"] == "error"]
    assert {error for _, error in errors} <= {"NOT_COORDINATOR", "COORDINATOR_LOAD_IN_PROGRESS"}
    assert {member for member, _ in errors} <= {"s0"}


def _describe_times() -> list[float]:
    return [m.frame.timestamp for m in iter_messages(CAPTURE, Problems())
            if m.kind == "ShareGroupDescribeResponse"]


def _state_at(moment: float) -> dict[str, dict[str, Any]]:
    """Each member the capture shows in the group at ``moment`` (joined, not left, and not
    silent for a session timeout: a member that vanished, its ``vanished`` event at its last
    heartbeat, is in the group until the broker fences it): the last assignment and member
    epoch its heartbeat responses brought."""
    session = json.loads(EXPECTED.read_text())["session_timeout_ms"] / 1000
    state: dict[str, dict[str, Any]] = {}
    for event in sorted(group().events, key=lambda e: e["timestamp"]):
        if event["timestamp"] > moment:
            break
        name, kind = names()[event["member_id"]], event["event"]
        if kind == "join":
            state[name] = {"assignment": [], "epoch": None}
        elif kind == "leave" or (kind == "vanished" and event["timestamp"] + session < moment):
            state.pop(name, None)
        elif kind in ("assignment", "epoch") and name in state:
            state[name]["epoch"] = event["epoch"]
            if kind == "assignment":
                state[name]["assignment"] = pairs(event["partitions"])
    return state


def test_every_step_admin_saw_is_a_captured_describe_and_the_heartbeats_agree():
    """Admin's answer at each step is a ShareGroupDescribe answer in the capture (same epochs,
    state, members, their epochs and assignments), and at that moment the heartbeat responses
    had brought each member in it that assignment and member epoch, and nobody else was in
    the group."""
    answers = list(zip(group().described, _describe_times(), strict=True))
    for step in expected()["steps"]:
        admin, where = step["describe"], step["event"]
        admin_members = {m["client_id"]: {"assignment": pairs(m["assignment"]),
                                          "epoch": m["member_epoch"]} for m in admin["members"]}
        matching = [
            (seen, moment) for seen, moment in answers
            if seen["error"] is None
            and (seen["group_state"], seen["group_epoch"], seen["assignment_epoch"]) == (
                admin["state"], admin["group_epoch"], admin["assignment_epoch"])
            and {names()[m]: {"assignment": pairs(d["current"]), "epoch": d["epoch"]}
                 for m, d in seen["members"].items()} == admin_members
        ]
        assert matching, where
        seen, moment = matching[-1]
        assert seen["assignor"] == "simple", where
        assert all(d["target"] is None for d in seen["members"].values())  # none reported
        assert _state_at(moment) == admin_members, where


def test_snapshots_are_share_snapshots_of_every_epoch():
    snapshots = group().snapshots
    assert [s.generation for s in snapshots] == list(range(2, 9))
    assert {s.group_type for s in snapshots} == {"share"}
    by_epoch = {s.generation: s for s in snapshots}
    for step in expected()["steps"][:-1]:  # the last one: the group is empty
        admin = step["describe"]
        snapshot = by_epoch[admin["group_epoch"]]
        assert snapshot.group_state == admin["state"] and snapshot.assignor == "simple"
        assert snapshot.target is None  # ShareGroupDescribe reports no target
        for member_id in snapshot.members:
            info = snapshot.info(member_id)
            assert info.member_type == "share" and info.member_epoch == admin["group_epoch"]
        held = {names()[m]: pairs(snapshot.current.partitions_of(m)) for m in snapshot.members}
        admin_held = {m["client_id"]: pairs(m["assignment"]) for m in admin["members"]}
        # s1 leaves at epoch 7 with s2 still in; s2 was killed later in that epoch, and the
        # epoch's snapshot is the group at its end
        gone = {"s2"} if step["event"] == "s1 leaves" else set()
        assert held == {n: p for n, p in admin_held.items() if n not in gone}, step["event"]


def test_decode_shows_the_share_group_on_the_console_and_as_json(capsys):
    assert main(["decode", "capture", str(CAPTURE), "--width", "200"]) == 0
    out = capsys.readouterr().out
    assert "share group kafka43-share (share groups, KIP-932): 7 epoch(s)" in out
    assert "assignor: simple (reported by the broker)" in out
    assert "owned (reported)" not in out  # a share member reports no owned partitions
    assert "s2 vanished" in out and "s1 left (leave)" in out
    assert main(["decode", "capture", str(CAPTURE), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["group_epoch"] for line in lines] == list(range(2, 9))
    assert {line["group_type"] for line in lines} == {"share"}
    assert all(line["handovers"] == [] for line in lines)
    last = {m["client_id"]: m["final_state"] for m in lines[-1]["members"]}
    assert last == {"s0": "left"}


def test_the_codec_reads_every_share_frame_byte_for_byte():
    """4.3.1's clients and broker speak ShareGroupHeartbeat and ShareGroupDescribe v1 (the only
    version its schemas define); every such body re-encodes to the captured bytes."""
    seen: dict[str, int] = {}
    for message in iter_messages(CAPTURE, Problems()):
        frame = message.frame
        if frame.api_key not in SHARE_APIS:
            continue
        assert frame.api_version == 1
        value = codec.decode(frame.kind, frame.body, frame.api_version)
        assert codec.encode(frame.kind, value.to_dict(), 1) == frame.body, frame.kind
        seen[frame.kind] = seen.get(frame.kind, 0) + 1
    assert set(seen) == {"ShareGroupHeartbeatRequest", "ShareGroupHeartbeatResponse",
                         "ShareGroupDescribeResponse"}
    assert seen["ShareGroupHeartbeatResponse"] > 30


def test_every_share_exchange_tshark_frames_is_one_we_read():
    """Wireshark 4.0 knows no share-group API bodies ("Unknown 76 API key"): only the Kafka
    headers compare, every exchange of ShareGroupHeartbeat/Describe tshark frames (client port,
    api key, version, correlation id) is one of ours, and ours are all its."""
    port = int(next(iter(group().members.values())).client_host.rsplit(":", 1)[1])
    theirs, ours = test_tshark.exchange_headers(CAPTURE, port, SHARE_APIS)
    assert len(ours) > 60 and theirs == ours


def _first_heartbeat_response() -> Any:
    return next(m for m in iter_messages(CAPTURE, Problems())
                if m.kind == "ShareGroupHeartbeatResponse" and m.fields["member_id"])


def test_a_truncated_share_heartbeat_is_one_clear_error():
    frame = _first_heartbeat_response().frame
    cut = read_message(dataclasses.replace(frame, body=frame.body[:12]))
    assert cut is not None and cut.fields == {}
    assert cut.error == ("TruncatedError: string of 22 byte(s) but only 4 byte(s) left "
                         "(kind=ShareGroupHeartbeatResponse, version=1, path=member_id, offset=7)")


def mangled_member_id(capture: Path, response: Any, folder: Path) -> Path:
    """A copy of ``capture`` in which ``response``'s member id (a compact string) claims 126
    bytes, more than its body holds."""
    body = response.frame.body
    member_id = response.fields["member_id"].encode()
    at = body.index(member_id) - 1  # the compact string's length byte (length + 1)
    assert body[at] == len(member_id) + 1
    raw = capture.read_bytes()
    assert raw.count(body) == 1
    mangled = folder / "mangled.pcap"
    mangled.write_bytes(raw.replace(body, body[:at] + bytes([0x7F]) + body[at + 1:]))
    return mangled


def test_a_mangled_share_heartbeat_in_the_capture_is_skipped_and_reported(tmp_path, capsys):
    """The capture with one ShareGroupHeartbeat response's member id claiming 126 bytes (its
    body ends first): that answer is skipped with one line naming it, the rest decodes, and
    decode exits 1 (something skipped)."""
    mangled = mangled_member_id(CAPTURE, _first_heartbeat_response(), tmp_path)
    assert main(["decode", "capture", str(mangled)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("assignframe: skipped: ShareGroupHeartbeatResponse"
                                               " v1 (correlation id"), err
    assert "undecodable" in err[0]
    result = decode_capture(mangled)
    assert [g.group_id for g in result.share_groups] == [expected()["group_id"]]

