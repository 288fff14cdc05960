"""TCP reassembly: turn captured segments into in-order byte streams, one per direction.

Handles what loopback and real captures contain: retransmissions and overlaps (first copy wins),
out-of-order segments (held until the hole fills), captures that start mid-connection (no SYN: the
first segment seen starts the stream), port reuse (a new SYN starts a new stream) and sequence
number wrap-around. Memory is bounded: out-of-order bytes held per direction are capped, and a hole
that is never filled (lost packet, truncated capture) is reported to the sink as a gap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from .pcap import SYN, TcpSegment

__all__ = ["DEFAULT_MAX_PENDING_BYTES", "HalfStream", "Reassembler", "StreamSink"]

#: out-of-order bytes held per direction before the hole is declared lost
DEFAULT_MAX_PENDING_BYTES = 8 * 1024 * 1024

_MOD = 1 << 32


def _signed_delta(a: int, b: int) -> int:
    """a - b in 32-bit sequence space, as a signed number (RFC 1982 style)."""
    delta = (a - b) % _MOD
    return delta - _MOD if delta >= _MOD // 2 else delta


class StreamSink(Protocol):
    """Receives one direction's bytes in order; offsets count from the stream's first byte."""

    def data(self, offset: int, chunk: bytes, segment: TcpSegment) -> None: ...

    def gap(self, offset: int, length: int, reason: str) -> None: ...

    def close(self) -> None: ...


@dataclass
class HalfStream:
    """One direction of one TCP connection."""

    sink: StreamSink
    max_pending_bytes: int = DEFAULT_MAX_PENDING_BYTES
    next_seq: int | None = None
    delivered: int = 0
    saw_syn: bool = False
    pending: dict[int, tuple[bytes, TcpSegment]] = field(default_factory=dict)
    pending_bytes: int = 0

    def feed(self, segment: TcpSegment) -> None:
        if segment.flags & SYN:
            self.saw_syn = True
            self.next_seq = (segment.seq + 1) % _MOD
            if not segment.payload:
                return
        if self.next_seq is None:  # capture started mid-connection
            self.next_seq = segment.seq
        if segment.payload:
            start = (segment.seq + 1) % _MOD if segment.flags & SYN else segment.seq
            self._place(
                self.delivered + _signed_delta(start, self.next_seq), segment.payload, segment
            )

    def _place(self, offset: int, payload: bytes, segment: TcpSegment) -> None:
        if offset > self.delivered:
            self._hold(offset, payload, segment)
            return
        tail = payload[self.delivered - offset :]
        if tail:  # else: a pure retransmission of bytes already delivered
            self._deliver(tail, segment)
            self._drain()

    def _hold(self, offset: int, payload: bytes, segment: TcpSegment) -> None:
        held = self.pending.get(offset)
        if held is not None and len(held[0]) >= len(payload):
            return
        self.pending_bytes += len(payload) - (len(held[0]) if held else 0)
        self.pending[offset] = (payload, segment)
        if self.pending_bytes > self.max_pending_bytes:
            self.skip_hole(f"more than {self.max_pending_bytes} bytes waiting behind a hole")

    def _deliver(self, chunk: bytes, segment: TcpSegment) -> None:
        self.sink.data(self.delivered, chunk, segment)
        self.delivered += len(chunk)
        self.next_seq = (self.next_seq + len(chunk)) % _MOD  # type: ignore[operator]

    def _drain(self) -> None:
        while self.pending:
            ready = [offset for offset in self.pending if offset <= self.delivered]
            if not ready:
                return
            for offset in sorted(ready):
                payload, segment = self.pending.pop(offset)
                self.pending_bytes -= len(payload)
                tail = (
                    payload[self.delivered - offset :]
                    if offset + len(payload) > self.delivered
                    else b""
                )
                if tail:
                    self._deliver(tail, segment)

    def skip_hole(self, reason: str) -> None:
        """Give up on the bytes missing before the first held segment and go on after them."""
        if not self.pending:
            return
        first = min(self.pending)
        missing = first - self.delivered
        self.sink.gap(self.delivered, missing, reason)
        self.delivered = first
        self.next_seq = (self.next_seq + missing) % _MOD  # type: ignore[operator]
        self._drain()

    def finish(self) -> None:
        while self.pending:
            self.skip_hole("bytes never captured (lost or truncated capture)")
        self.sink.close()


@dataclass
class Reassembler:
    """Route segments to per-direction :class:`HalfStream` objects, created on first sight.

    :param sink_for: called with the first segment of a new direction; returns its sink
    """

    sink_for: Callable[[TcpSegment], StreamSink]
    max_pending_bytes: int = DEFAULT_MAX_PENDING_BYTES
    streams: dict[tuple[str, int, str, int], HalfStream] = field(default_factory=dict)

    def feed(self, segment: TcpSegment) -> None:
        key = (segment.src, segment.sport, segment.dst, segment.dport)
        stream = self.streams.get(key)
        if stream is not None and segment.flags & SYN and (stream.delivered or stream.pending):
            stream.finish()  # port reuse: the 4-tuple now carries a new connection
            stream = None
        if stream is None:
            stream = HalfStream(self.sink_for(segment), self.max_pending_bytes)
            self.streams[key] = stream
        stream.feed(segment)

    def finish(self) -> None:
        for stream in self.streams.values():
            stream.finish()
        self.streams.clear()
