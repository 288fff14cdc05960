"""Build capture files for the robustness tests out of the shared captures' TCP streams.

``tcp_chunks`` reassembles a real capture into in-order chunks per direction; ``write_capture``
writes them back as new segments: re-cut at random sizes, locally reordered, with retransmitted and
overlapping copies, over any link type, IPv4 or IPv6, pcap or pcapng. The seeds make every file
reproducible.
"""

from __future__ import annotations

import io
import ipaddress
import random
from dataclasses import dataclass
from pathlib import Path

import dpkt

from assignframe.decode.problems import Problems
from assignframe.decode.traffic.pcap import SYN, TcpSegment, read_segments
from assignframe.decode.traffic.tcp import Reassembler


@dataclass(frozen=True)
class Chunk:
    timestamp: float
    src: str
    sport: int
    dst: str
    dport: int
    data: bytes


class _Recorder:
    def __init__(self, chunks: list[Chunk]) -> None:
        self.chunks = chunks

    def data(self, offset: int, chunk: bytes, segment: TcpSegment) -> None:
        self.chunks.append(
            Chunk(segment.timestamp, segment.src, segment.sport, segment.dst, segment.dport, chunk)
        )

    def gap(self, offset: int, length: int, reason: str) -> None:
        raise AssertionError(f"the shared capture has a hole: {reason}")

    def close(self) -> None:
        return None


def tcp_chunks(path: Path) -> list[Chunk]:
    chunks: list[Chunk] = []
    reassembler = Reassembler(lambda segment: _Recorder(chunks))
    for segment in read_segments(path, Problems()):
        reassembler.feed(segment)
    reassembler.finish()
    return chunks


def _address(text: str, ipv6: bool) -> bytes:
    if ipv6:  # 127.0.0.1 -> fd00::1 (keeps distinct hosts distinct)
        return ipaddress.IPv6Address("fd00::" + text.split(".")[-1]).packed
    return ipaddress.IPv4Address(text).packed


def _packet(
    src: str,
    sport: int,
    dst: str,
    dport: int,
    seq: int,
    flags: int,
    data: bytes,
    ipv6: bool,
    link: int,
) -> bytes:
    tcp = dpkt.tcp.TCP(sport=sport, dport=dport, seq=seq % (1 << 32), flags=flags, data=data, off=5)
    if ipv6:
        ip = dpkt.ip6.IP6(
            src=_address(src, True),
            dst=_address(dst, True),
            nxt=6,
            hlim=64,
            data=tcp,
            plen=len(bytes(tcp)),
        )
        ethertype, family = 0x86DD, 30
    else:
        ip = dpkt.ip.IP(src=_address(src, False), dst=_address(dst, False), p=6, data=tcp)
        ethertype, family = 0x0800, 2
    raw = bytes(ip)
    if link == dpkt.pcap.DLT_EN10MB:
        return bytes(
            dpkt.ethernet.Ethernet(src=b"\x00" * 6, dst=b"\x00" * 6, type=ethertype, data=raw)
        )
    if link == dpkt.pcap.DLT_LINUX_SLL:
        return bytes(
            dpkt.sll.SLL(type=0, hrd=772, hlen=6, hdr=b"\x00" * 8, ethtype=ethertype, data=raw)
        )
    if link == dpkt.pcap.DLT_LINUX_SLL2:
        return bytes(
            dpkt.sll2.SLL2(
                ethtype=ethertype, intindex=1, hrd=772, type=0, hlen=6, hdr=b"\x00" * 8, data=raw
            )
        )
    if link == dpkt.pcap.DLT_NULL:
        return family.to_bytes(4, "little") + raw
    if link == dpkt.pcap.DLT_RAW:
        return raw
    raise ValueError(link)


def write_capture(
    chunks: list[Chunk],
    *,
    seed: int = 0,
    max_piece: int = 0,
    reorder: float = 0.0,
    duplicate: float = 0.0,
    drop: float = 0.0,
    ipv6: bool = False,
    link: int = dpkt.pcap.DLT_EN10MB,
    pcapng: bool = False,
) -> bytes:
    """A capture of the same streams; each direction starts with a SYN (random ISN)."""
    rng = random.Random(seed)
    next_seq: dict[tuple[str, int, str, int], int] = {}
    tails: dict[tuple[str, int, str, int], bytes] = {}
    packets: list[tuple[float, tuple[str, int, str, int], bytes]] = []
    for chunk in chunks:
        key = (chunk.src, chunk.sport, chunk.dst, chunk.dport)
        if key not in next_seq:
            isn = rng.randrange(1 << 32)
            packets.append(
                (chunk.timestamp, ("syn", *key), _packet(*key, isn, SYN, b"", ipv6, link))
            )
            next_seq[key], tails[key] = isn + 1, b""
        pieces = _cut(chunk.data, rng, max_piece)
        for piece in pieces:
            seq = next_seq[key]
            next_seq[key] += len(piece)
            before, tails[key] = tails[key], (tails[key] + piece)[-2:]
            if rng.random() < drop:
                continue
            packets.append((chunk.timestamp, key, _packet(*key, seq, 0x18, piece, ipv6, link)))
            if rng.random() < duplicate:  # a retransmission, sometimes overlapping earlier bytes
                extra = rng.randrange(0, len(before) + 1)
                copy = before[len(before) - extra :] + piece
                packets.append(
                    (chunk.timestamp, key, _packet(*key, seq - extra, 0x18, copy, ipv6, link))
                )
    _shuffle_locally(packets, rng, reorder)
    return _write(packets, link, pcapng)


def _cut(data: bytes, rng: random.Random, max_piece: int) -> list[bytes]:
    if not max_piece:
        return [data]
    pieces, start = [], 0
    while start < len(data):
        size = rng.randint(1, max_piece)
        pieces.append(data[start : start + size])
        start += size
    return pieces


def _shuffle_locally(
    packets: list[tuple[float, tuple, bytes]], rng: random.Random, rate: float
) -> None:
    """Swap neighbouring segments of the same direction (the SYN that opens it stays first)."""
    for index in range(1, len(packets) - 1):
        same_direction = packets[index][1] == packets[index + 1][1]
        if same_direction and rng.random() < rate:
            packets[index], packets[index + 1] = packets[index + 1], packets[index]


def _write(packets: list[tuple[float, tuple, bytes]], link: int, pcapng: bool) -> bytes:
    buffer = io.BytesIO()
    writer = (
        dpkt.pcapng.Writer(buffer, linktype=link)
        if pcapng
        else dpkt.pcap.Writer(buffer, linktype=link)
    )
    for timestamp, _, packet in packets:
        writer.writepkt(packet, ts=timestamp)
    return buffer.getvalue()
