"""Reassembly, link types, bad input: same answers from re-cut captures, clear reports otherwise."""

from __future__ import annotations

import random
import struct
import tracemalloc

import dpkt
import pytest

from assignframe.cli import main
from assignframe.decode import Problems, decode_capture, snapshot_dicts
from assignframe.decode.capture import CaptureOptions

from ..conftest import ALL_CAPTURES, CAPTURES
from .synth import Chunk, tcp_chunks, write_capture


def essence(result) -> list[tuple]:
    """What a rebalance is, without timestamps and addresses."""
    out = []
    for snapshot in snapshot_dicts(result.timelines):
        members = tuple(
            sorted(
                (
                    m["member_id"],
                    m["subscription"]["hex"],
                    (m["assignment"] or {}).get("hex"),
                    (m["received_assignment"] or {}).get("hex"),
                )
                for m in snapshot["members"]
            )
        )
        out.append(
            (
                snapshot["group_id"],
                snapshot["generation"],
                snapshot["leader"],
                snapshot["protocol"],
                tuple(sorted(snapshot["topic_partitions"].items())),
                members,
                len(snapshot["events"]),
            )
        )
    return out


_chunks: dict[str, list[Chunk]] = {}


def chunks(name: str) -> list[Chunk]:
    if name not in _chunks:
        _chunks[name] = tcp_chunks(CAPTURES / name)
    return _chunks[name]


def original(name: str) -> list[tuple]:
    return essence(decode_capture(CAPTURES / name))


@pytest.mark.parametrize("name", ALL_CAPTURES)
@pytest.mark.parametrize("seed", [1, 2])
def test_recut_reordered_retransmitted_streams_decode_the_same(name, seed):
    capture = write_capture(chunks(name), seed=seed, max_piece=97, reorder=0.3, duplicate=0.2)
    result = decode_capture(capture)
    assert [str(p) for p in result.problems] == []
    assert essence(result) == original(name)


@pytest.mark.parametrize(
    "link",
    [
        dpkt.pcap.DLT_EN10MB,
        dpkt.pcap.DLT_LINUX_SLL,
        dpkt.pcap.DLT_LINUX_SLL2,
        dpkt.pcap.DLT_NULL,
        dpkt.pcap.DLT_RAW,
    ],
)
@pytest.mark.parametrize("ipv6", [False, True], ids=["ipv4", "ipv6"])
@pytest.mark.parametrize("pcapng", [False, True], ids=["pcap", "pcapng"])
def test_link_types_ip_versions_and_file_formats(link, ipv6, pcapng):
    name = "kafka_group_sticky.pcap"
    capture = write_capture(
        chunks(name), seed=3, max_piece=1500, ipv6=ipv6, link=link, pcapng=pcapng
    )
    result = decode_capture(capture)
    assert [str(p) for p in result.problems] == []
    assert essence(result) == original(name)
    if ipv6:
        assert all(
            m.connection.startswith("[fd00::")
            for t in result.timelines
            for s in t.snapshots
            for m in s.members.values()
        )


def test_several_frames_in_one_segment_and_a_frame_across_many():
    name = "java_sticky.pcap"
    joined: list[Chunk] = []
    for chunk in chunks(name):  # merge consecutive chunks of one direction into one big segment
        if joined and (joined[-1].src, joined[-1].sport, joined[-1].dst, joined[-1].dport) == (
            chunk.src,
            chunk.sport,
            chunk.dst,
            chunk.dport,
        ):
            last = joined.pop()
            chunk = Chunk(
                last.timestamp, last.src, last.sport, last.dst, last.dport, last.data + chunk.data
            )
        joined.append(chunk)
    assert len(joined) < len(chunks(name))
    assert essence(decode_capture(write_capture(joined, seed=4))) == original(name)
    assert essence(decode_capture(write_capture(chunks(name), seed=5, max_piece=3))) == original(
        name
    )


def test_a_lost_segment_is_reported_with_stream_and_offset_and_decoding_goes_on():
    name = "kafka_group_range.pcap"
    result = decode_capture(write_capture(chunks(name), seed=6, max_piece=200, drop=0.01))
    assert result.problems
    for problem in result.problems:
        assert "->" in problem.where and problem.offset >= 0
    assert any("missing" in p.message for p in result.problems)
    assert result.messages > 50  # everything after each hole is still decoded


def test_non_kafka_stream_on_the_kafka_port_is_given_up_quickly():
    http = Chunk(
        1.0, "10.0.0.1", 40000, "10.0.0.2", 9092, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 1000
    )
    result = decode_capture(write_capture([http], max_piece=1000))
    messages = [p.message for p in result.problems]
    assert any("not Kafka" in m for m in messages) and len(messages) <= 4
    assert all(p.where == "10.0.0.1:40000->10.0.0.2:9092" for p in result.problems)


def test_an_oversized_frame_is_corrupt_and_the_stream_resynchronises():
    name = "kafka_group_range.pcap"
    options = CaptureOptions(max_frame_bytes=300)  # smaller than some Metadata/JoinGroup frames
    result = decode_capture(CAPTURES / name, options)
    assert any("outside [" in p.message for p in result.problems)
    assert result.messages > 20


def test_sniffing_finds_kafka_on_another_port_and_no_sniff_does_not():
    moved = [
        Chunk(
            c.timestamp,
            c.src,
            19092 if c.sport == 9092 else c.sport,
            c.dst,
            19092 if c.dport == 9092 else c.dport,
            c.data,
        )
        for c in chunks("kafka_group_range.pcap")
    ]
    capture = write_capture(moved, seed=7)
    assert essence(decode_capture(capture)) == original("kafka_group_range.pcap")
    assert decode_capture(capture, CaptureOptions(sniff=False)).timelines == []
    assert essence(
        decode_capture(capture, CaptureOptions(ports=frozenset({19092}), sniff=False))
    ) == original("kafka_group_range.pcap")


def record_boundaries(data: bytes) -> set[int]:
    """Offsets where a classic (little-endian, as shared) pcap record starts."""
    boundaries, offset = set(), 24
    while offset + 16 <= len(data):
        boundaries.add(offset)
        offset += 16 + struct.unpack_from("<I", data, offset + 8)[0]
    return boundaries | {offset}


@pytest.mark.parametrize("name", ALL_CAPTURES)
def test_truncated_captures_report_where_they_stop(name, tmp_path):
    data = (CAPTURES / name).read_bytes()
    boundaries = record_boundaries(data)
    rng = random.Random(name)
    cuts = sorted(set(rng.sample(range(30, len(data)), 12)) - boundaries)
    for cut in cuts:
        path = tmp_path / f"cut{cut}.pcap"
        path.write_bytes(data[:cut])
        result = decode_capture(path)
        assert result.problems, f"cut at {cut}: nothing reported"
        last_record = max(b for b in boundaries if b < cut)
        assert any(p.offset == last_record and str(path) in p.where for p in result.problems)


def _mutate(data: bytes, rng: random.Random) -> bytes:
    buffer = bytearray(data)
    for _ in range(rng.randint(1, 40)):
        action = rng.random()
        position = rng.randrange(24, len(buffer))
        if action < 0.6:
            buffer[position] = rng.randrange(256)
        elif action < 0.8:  # a plausible-looking but wrong size or count
            buffer[position : position + 4] = struct.pack(
                ">i", rng.choice([-1, 0, 1, 0x7FFFFFFF, rng.randrange(1 << 16)])
            )
        else:
            del buffer[position : position + rng.randint(1, 64)]
    return bytes(buffer)


@pytest.mark.parametrize("name", ALL_CAPTURES)
def test_fuzzed_captures_never_crash_or_hang(name):
    data = (CAPTURES / name).read_bytes()
    rng = random.Random(f"fuzz-{name}")
    for _ in range(25):
        mutated = _mutate(data, rng)
        problems = Problems()
        tracemalloc.start()
        try:
            result = decode_capture(mutated, problems=problems)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        # Work and memory bounded by the input, not by the clock: a frame takes at least 8 bytes
        # (size + api key/version or correlation id), and nothing is held beyond a few copies.
        assert 0 <= result.frames <= len(mutated) // 8
        assert peak < 16 * len(mutated) + (8 << 20)
        for problem in problems:
            assert problem.where and problem.offset >= 0 and problem.message


def test_cli_exit_status_says_whether_anything_was_skipped(tmp_path, capsys):
    good = CAPTURES / "kafka_group_range.pcap"
    assert main(["decode", "capture", str(good)]) == 0
    truncated = tmp_path / "truncated.pcap"
    truncated.write_bytes(good.read_bytes()[:-37])
    assert main(["decode", "capture", str(truncated)]) == 1
    err = capsys.readouterr().err
    assert "skipped:" in err and "@ byte" in err
    assert main(["decode", "capture", str(tmp_path / "missing.pcap")]) == 2
    not_a_capture = tmp_path / "text.pcap"
    not_a_capture.write_text("hello")
    assert main(["decode", "capture", str(not_a_capture)]) == 2  # unusable input (docs/cli.md)


def test_a_truncated_capture_is_said_in_words_not_class_names(tmp_path):
    """Issue 22: the skip line said '(NeedData)', a library's class name."""
    cut = tmp_path / "cut.pcap"
    cut.write_bytes((CAPTURES / "kafka_group_range.pcap").read_bytes()[:50000])
    problems = Problems()
    decode_capture(cut, problems=problems)
    messages = [p.message for p in problems]
    assert messages == ["the file ends inside a packet record (a truncated capture); "
                        "rest of file skipped"]
