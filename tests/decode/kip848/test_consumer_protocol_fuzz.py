"""Fuzzed KIP-848 heartbeats and coordinator records through decode: no crash, no hang, and
every problem names its stream (or record) and offset. Work is bounded by counting inputs."""

from __future__ import annotations

import dataclasses
import io
import json
import random

from assignframe.decode.capture import iter_messages
from assignframe.decode.kip848.timeline import ConsumerTimelineBuilder
from assignframe.decode.offsets.group_state import check_group, rebuild_groups
from assignframe.decode.offsets.records import read_offsets_file
from assignframe.decode.problems import Problems
from assignframe.decode.traffic.messages import read_message

from ..conftest import GOLDEN
from ..traffic.test_robustness import _mutate
from .test_consumer_protocol import SAMPLE


def _flip(data: bytes, rng: random.Random) -> bytes:
    buffer = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        if buffer:
            buffer[rng.randrange(len(buffer))] = rng.randrange(256)
    if rng.random() < 0.3:
        del buffer[rng.randrange(len(buffer) + 1):]
    return bytes(buffer)


def _fuzzed_timelines(messages: list, targets: list, rng: random.Random) -> tuple[list, int]:
    """One pass over the capture's ``messages``: half the ``targets`` bodies and a fifth of the
    requests with flipped bytes, each decoded (it must decode or be one codec error) and the
    decoded ones built into timelines; returns the groups and how many did not decode."""
    builder = ConsumerTimelineBuilder()
    undecodable = 0
    for message in messages:
        frame = message.frame
        if message in targets and rng.random() < 0.5:
            frame = dataclasses.replace(frame, body=_flip(frame.body, rng))
        if frame.request is not None and rng.random() < 0.2:
            request = dataclasses.replace(frame.request, body=_flip(frame.request.body, rng))
            frame = dataclasses.replace(frame, request=request)
        fuzzed = read_message(frame)
        assert fuzzed is not None
        if fuzzed.error:
            undecodable += 1
            assert fuzzed.error.split(":")[0].endswith("Error")
            continue
        builder.add(fuzzed)
    return builder.finish(), undecodable


def test_fuzzed_heartbeat_bodies_decode_or_are_reported() -> None:
    messages = list(iter_messages(str(SAMPLE), Problems()))
    heartbeats = [m for m in messages if m.kind.startswith("ConsumerGroupHeartbeat")]
    assert len(heartbeats) > 20
    rng = random.Random("kip848-heartbeats")
    undecodable = 0
    for _ in range(30):
        groups, failed = _fuzzed_timelines(messages, heartbeats, rng)
        undecodable += failed
        for group in groups:
            for snapshot in group.snapshots:
                assert snapshot.group_type == "consumer"
    assert undecodable > 0  # the fuzzing did reach the codec's error paths


def test_fuzzed_captures_with_heartbeats_never_crash() -> None:
    data = SAMPLE.read_bytes()
    rng = random.Random("kip848-capture")
    for _ in range(15):
        problems = Problems()
        for message in iter_messages(_mutate(data, rng), problems):
            ConsumerTimelineBuilder().add(message)
        for problem in problems:
            assert problem.where and problem.offset >= 0 and problem.message


def test_fuzzed_coordinator_records_are_reported_with_line_and_offset() -> None:
    cases = [json.loads(line) for line in
             (GOLDEN / "kip848" / "codec.jsonl").read_text().splitlines()]
    records = [c for c in cases if c["kind"] == "coordinator_record" and c["record_type"] >= 3]
    rng = random.Random("kip848-records")
    lines = []
    for case in records * 3:
        key = _flip(bytes.fromhex(case["key_hex"]), rng)
        value = case.get("value_hex")
        value_text = "null" if value is None else _flip(bytes.fromhex(value), rng).hex() or "00"
        lines.append(f"{key.hex() or '00'} {value_text}\n")
    problems = Problems()
    decoded = list(read_offsets_file(lines, "fuzzed.txt", problems))
    assert problems.items, "flipped bytes must break some records"
    for problem in problems:
        assert problem.where.startswith("fuzzed.txt line ") and problem.offset >= 0
    for group in rebuild_groups(decoded):
        assert isinstance(check_group(group), list)


def test_fuzzed_streams_heartbeats_and_describes_decode_or_are_reported() -> None:
    """The shipped Streams capture with flipped bytes in its StreamsGroupHeartbeat and
    StreamsGroupDescribe bodies: each body decodes or is one codec error, and the timelines,
    their text view and their JSON lines are made without a crash."""
    from rich.console import Console

    from assignframe.decode.views.jsonl import json_line, streams_epoch_dicts
    from assignframe.decode.views.kip848_text import render_consumer_timelines

    from .test_kafka43_streams_capture import CAPTURE

    messages = list(iter_messages(str(CAPTURE), Problems()))
    streams = [m for m in messages if m.kind.startswith("StreamsGroup")]
    assert len(streams) > 100
    rng = random.Random("kip1071-streams")
    undecodable = 0
    for _ in range(30):
        groups, failed = _fuzzed_timelines(messages, streams, rng)
        undecodable += failed
        render_consumer_timelines(groups, Console(file=io.StringIO(), width=200))
        for line in streams_epoch_dicts([g for g in groups if g.group_type == "streams"]):
            json.loads(json_line(line))
    assert undecodable > 0  # the fuzzing did reach the codec's error paths
