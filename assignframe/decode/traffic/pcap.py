"""Read pcap / pcapng files into TCP segments (link, IP and TCP headers parsed by dpkt).

dpkt (pure Python, no dependencies, reads both pcap and pcapng, knows Ethernet, Linux cooked
SLL/SLL2, BSD loopback, IPv4 and IPv6) does the header work; TCP reassembly and Kafka framing are
ours (:mod:`.tcp`, :mod:`.frames`). A file that ends mid-record or has a corrupt record is reported
with its byte offset, and the packets read before it are kept.
"""

from __future__ import annotations

import io
import ipaddress
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from struct import error as struct_error
from typing import Any, BinaryIO

import dpkt

from ..problems import Problems

__all__ = ["LINK_TYPES", "TcpSegment", "read_segments"]

_PCAPNG_MAGIC = b"\x0a\x0d\x0d\x0a"

# TCP flag bits (RFC 793)
FIN, SYN, RST = 0x01, 0x02, 0x04


@dataclass(frozen=True, slots=True)
class TcpSegment:
    """One captured TCP segment; ``number`` is the 1-based packet number in the file."""

    number: int
    timestamp: float
    src: str
    sport: int
    dst: str
    dport: int
    seq: int
    flags: int
    payload: bytes

    @property
    def endpoint_pair(self) -> str:
        return f"{_fmt(self.src, self.sport)}->{_fmt(self.dst, self.dport)}"


def _fmt(address: str, port: int) -> str:
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


def _raw_ip(buf: bytes) -> Any:
    version = buf[0] >> 4 if buf else 0
    return dpkt.ip6.IP6(buf) if version == 6 else dpkt.ip.IP(buf)


_IP_ETHERTYPES = (0x0800, 0x86DD)


def _ip_of(link_frame: Any) -> Any:
    """The IP packet inside a link-layer frame; raises when an IP ethertype holds no parsable IP."""
    inner = link_frame.data
    ethertype = (
        getattr(link_frame, "type", None)
        if isinstance(link_frame, dpkt.ethernet.Ethernet)
        else getattr(link_frame, "ethtype", None)
    )
    if isinstance(inner, (bytes, bytearray)) and ethertype in _IP_ETHERTYPES:
        raise ValueError(f"IP header cut short ({len(inner)} bytes captured)")
    return inner


#: pcap link type -> function turning one captured frame into its network-layer packet
LINK_TYPES: dict[int, Callable[[bytes], Any]] = {
    dpkt.pcap.DLT_EN10MB: lambda b: _ip_of(dpkt.ethernet.Ethernet(b)),
    dpkt.pcap.DLT_NULL: lambda b: dpkt.loopback.Loopback(b).data,
    dpkt.pcap.DLT_LOOP: lambda b: dpkt.loopback.Loopback(b).data,
    dpkt.pcap.DLT_LINUX_SLL: lambda b: _ip_of(dpkt.sll.SLL(b)),
    dpkt.pcap.DLT_LINUX_SLL2: lambda b: _ip_of(dpkt.sll2.SLL2(b)),
    dpkt.pcap.DLT_RAW: _raw_ip,
    14: _raw_ip,  # DLT_RAW on OpenBSD
    101: _raw_ip,  # LINKTYPE_RAW
    dpkt.pcap.DLT_IPV4: _raw_ip,
    dpkt.pcap.DLT_IPV6: _raw_ip,
}


def _open_reader(stream: BinaryIO) -> Any:
    magic = stream.read(4)
    stream.seek(0)
    if magic == _PCAPNG_MAGIC:
        return dpkt.pcapng.Reader(stream)
    return dpkt.pcap.Reader(stream)


def _records(
    stream: BinaryIO, source: str, problems: Problems
) -> Iterator[tuple[int, float, bytes]]:
    """Yield (offset, timestamp, frame) until the end, or until the file turns out corrupt."""
    try:
        reader = _open_reader(stream)
    except (ValueError, dpkt.UnpackError, OSError) as exc:
        problems.add(source, 0, f"not a pcap/pcapng capture: {exc}")
        return
    link_type = reader.datalink()
    if link_type not in LINK_TYPES:
        problems.add(source, 0, f"unsupported link type {link_type}")
        return
    yield link_type, 0.0, b""  # first item announces the link type
    records = iter(reader)
    while True:
        offset = stream.tell()
        try:
            timestamp, frame = next(records)
        except StopIteration:
            return
        except (ValueError, struct_error, dpkt.UnpackError, OverflowError, MemoryError) as exc:
            problems.add(source, offset, f"{_record_problem(exc)}; rest of file skipped")
            return
        yield offset, float(timestamp), frame


def _record_problem(exc: BaseException) -> str:
    """A broken packet record in people's words (no library class names)."""
    if isinstance(exc, dpkt.NeedData):
        return "the file ends inside a packet record (a truncated capture)"
    detail = str(exc).strip()
    return "a packet record is corrupt" + (f" ({detail})" if detail else "")


def _declared_length(packet: Any) -> int:
    """IP packet length the header announces (what was sent, captured or not)."""
    if isinstance(packet, dpkt.ip.IP):
        return int(packet.len)
    return int(packet.plen) + 40


def _segment(number: int, timestamp: float, packet: Any) -> TcpSegment | None:
    if not isinstance(packet, (dpkt.ip.IP, dpkt.ip6.IP6)):
        return None
    tcp = packet.data
    if not isinstance(tcp, dpkt.tcp.TCP):
        if isinstance(tcp, (bytes, bytearray)) and _protocol(packet) == 6:
            raise ValueError(f"TCP header cut short ({len(tcp)} bytes captured)")
        return None
    return TcpSegment(
        number=number,
        timestamp=timestamp,
        src=str(ipaddress.ip_address(packet.src)),
        sport=tcp.sport,
        dst=str(ipaddress.ip_address(packet.dst)),
        dport=tcp.dport,
        seq=tcp.seq,
        flags=tcp.flags,
        payload=bytes(tcp.data),
    )


def _protocol(packet: Any) -> int:
    return int(packet.p) if isinstance(packet, dpkt.ip.IP) else int(packet.nxt)


def _check_captured(packet: Any, where: str, offset: int, problems: Problems) -> None:
    captured, declared = len(bytes(packet)), _declared_length(packet)
    if declared > captured:
        problems.add(
            where,
            offset,
            f"packet cut short (snap length or truncated file): {captured} of "
            f"{declared} IP bytes captured",
        )


def read_segments(
    capture: str | Path | bytes, problems: Problems, source: str | None = None
) -> Iterator[TcpSegment]:
    """Yield every TCP segment of a pcap/pcapng capture (a path or the file's bytes).

    Non-TCP packets are ignored; a packet whose headers do not parse is reported and skipped; a
    corrupt or truncated file is reported at the byte offset where reading stopped.
    """
    if isinstance(capture, (bytes, bytearray)):
        stream: BinaryIO = io.BytesIO(capture)
        source = source or "<capture>"
    else:
        stream = open(capture, "rb")  # noqa: SIM115  (closed in the finally below)
        source = source or str(capture)
    try:
        records = _records(stream, source, problems)
        first = next(records, None)
        if first is None:
            return
        to_network = LINK_TYPES[first[0]]
        for number, (offset, timestamp, frame) in enumerate(records, start=1):
            where = f"{source} packet {number}"
            try:
                packet = to_network(frame)
                segment = _segment(number, timestamp, packet)
            except (dpkt.UnpackError, ValueError, IndexError, KeyError, struct_error) as exc:
                detail = str(exc).strip() or "headers shorter than they declare"
                problems.add(where, offset, f"undecodable packet headers ({detail})")
                continue
            if segment is not None:
                _check_captured(packet, where, offset, problems)
                yield segment
    finally:
        stream.close()
