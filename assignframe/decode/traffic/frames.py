"""Kafka framing on reassembled TCP streams, and request/response matching by correlation id.

A connection is Kafka when one side is a configured broker port, or (when sniffing) when its first
bytes parse as a plausible request header. Requests carry api_key/api_version; responses only a
correlation id, so each connection remembers its outstanding requests. Frames of APIs the decoder
does not read are skipped without being buffered, so a stream holds at most one frame in memory;
a size beyond ``max_frame_bytes`` is corrupt. After a corrupt frame or a capture hole the framer
scans for the next plausible header, and gives the stream up after ``MAX_CORRUPT_FRAMES``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import assignframe_codec as codec

from ..problems import Problems
from .pcap import TcpSegment

__all__ = [
    "DEFAULT_MAX_FRAME_BYTES",
    "INTERESTING_APIS",
    "KafkaFrame",
    "KafkaStreams",
]

DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024
MAX_CORRUPT_FRAMES = 3
MAX_PENDING_REQUESTS = 4096
MAX_RESYNC_SCAN = 1024 * 1024  # bytes scanned for a header before a stream is declared not Kafka
_MAX_API_VERSION = 30

#: the APIs whose frames are buffered and handed on (everything else is skipped unbuffered)
INTERESTING_APIS = frozenset(
    codec.api_key(name)
    for name in ("Metadata", "FindCoordinator", "JoinGroup", "Heartbeat", "LeaveGroup",
                 "SyncGroup", "ApiVersions", "CreateTopics",
                 "ConsumerGroupHeartbeat", "ConsumerGroupDescribe",
                 "ShareGroupHeartbeat", "ShareGroupDescribe",
                 "StreamsGroupHeartbeat", "StreamsGroupDescribe")
)


@dataclass(frozen=True)
class KafkaFrame:
    """One complete request or response of an interesting API.

    :param stream: ``src:port->dst:port`` of the direction the frame travelled
    :param offset: stream offset of the frame's 4-byte size field
    :param body: the bytes after the header (request or response body)
    :param request: for a response, the request it answers (same connection, same correlation id)
    """

    stream: str
    offset: int
    timestamp: float
    packet: int
    is_request: bool
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None
    body: bytes
    request: KafkaFrame | None = None

    @property
    def api_name(self) -> str:
        return codec.api_name(self.api_key)

    @property
    def kind(self) -> str:
        """The codec's name for this body (``JoinGroupResponse``)."""
        return f"{self.api_name}{'Request' if self.is_request else 'Response'}"


@dataclass
class _Connection:
    client: str
    server: str
    pending: dict[int, KafkaFrame] = field(default_factory=dict)

    def remember(self, frame: KafkaFrame) -> None:
        if len(self.pending) >= MAX_PENDING_REQUESTS:
            self.pending.pop(next(iter(self.pending)))
        self.pending[frame.correlation_id] = frame


def plausible_request(head: bytes, max_frame: int) -> bool:
    """Do these bytes (at least ``REQUEST_HEAD_SIZE``, 14) start like a Kafka request frame?"""
    if len(head) < codec.REQUEST_HEAD_SIZE:
        return False
    size, api_key, version, correlation, client_len = codec.peek_request_head(head)
    return (
        10 <= size <= max_frame
        and api_key in codec.APIS
        and 0 <= version <= _MAX_API_VERSION
        and correlation >= 0
        and -1 <= client_len <= size - 10
    )


class _Framer:
    """Cuts one direction of a Kafka connection into frames (a :class:`~.tcp.StreamSink`)."""

    def __init__(self, owner: KafkaStreams, connection: _Connection, name: str, is_request: bool):
        self.owner, self.connection, self.name, self.is_request = (
            owner,
            connection,
            name,
            is_request,
        )
        self.buffer = bytearray()
        self.buffer_offset = 0  # stream offset of buffer[0]
        self.skip = 0  # bytes of an uninteresting frame still to drop
        self.lost = False  # True after corruption or a hole: scanning for the next header
        self.scanned = 0  # bytes skipped while scanning
        self.corrupt = 0
        self.dead = False
        self.segment: TcpSegment | None = None

    # -- StreamSink ---------------------------------------------------------------------------
    def data(self, offset: int, chunk: bytes, segment: TcpSegment) -> None:
        if self.dead:
            return
        self.segment = segment
        if self.skip:
            dropped = min(self.skip, len(chunk))
            self.skip -= dropped
            chunk, offset = chunk[dropped:], offset + dropped
        if not self.buffer:
            self.buffer_offset = offset
        self.buffer += chunk
        self._cut()

    def gap(self, offset: int, length: int, reason: str) -> None:
        if self.dead:
            return
        if self.skip >= length and not self.buffer:
            self.skip -= length  # the hole fell inside a frame we were skipping anyway
            return
        frame_end = self._buffered_frame_end()
        self.buffer.clear()
        if frame_end is not None and offset + length <= frame_end:
            self._problem(
                offset,
                f"{length} bytes missing ({reason}); frame at byte {self.buffer_offset} lost",
            )
            self.skip = frame_end - (offset + length)
        else:
            self._problem(offset, f"{length} bytes missing ({reason}); resynchronising")
            self.skip = 0
            self.lost = True
        self.buffer_offset = offset + length

    def _buffered_frame_end(self) -> int | None:
        if self.lost or len(self.buffer) < 4:
            return None
        size = codec.frame_size(self.buffer)
        return self.buffer_offset + 4 + size if 0 <= size <= self.owner.max_frame_bytes else None

    def close(self) -> None:
        if self.dead:
            return
        if self.lost:
            scanned = self.scanned + len(self.buffer)
            self._problem(
                self.buffer_offset,
                f"stream ended while looking for a frame ({scanned} bytes skipped): not Kafka?",
            )
        elif self.buffer:
            self._problem(
                self.buffer_offset, f"stream ended inside a frame ({len(self.buffer)} bytes lost)"
            )
        self.buffer.clear()

    # -- framing ------------------------------------------------------------------------------
    def _problem(self, offset: int, message: str) -> None:
        self.owner.problems.add(self.name, offset, message)

    def _drop(self, count: int) -> None:
        del self.buffer[:count]
        self.buffer_offset += count

    def _cut(self) -> None:
        while not self.dead:
            if self.skip:
                dropped = min(self.skip, len(self.buffer))
                self.skip -= dropped
                self._drop(dropped)
            if self.lost and not self._resync():
                return
            if len(self.buffer) < 4 or not self._next_frame():
                return

    def _resync(self) -> bool:
        limit = self.owner.max_frame_bytes
        head_size = codec.REQUEST_HEAD_SIZE  # enough for either direction's fixed head
        for start in range(max(0, len(self.buffer) - head_size + 1)):
            head = bytes(self.buffer[start : start + head_size])
            if self._plausible(head, limit):
                self._problem(
                    self.buffer_offset,
                    f"resynchronised after skipping {self.scanned + start} bytes",
                )
                self._drop(start)
                self.lost, self.scanned = False, 0
                return True
        dropped = max(0, len(self.buffer) - head_size + 1)
        self._drop(dropped)
        self.scanned += dropped
        if self.scanned > MAX_RESYNC_SCAN:
            self._problem(
                self.buffer_offset,
                f"no Kafka frame in {self.scanned} bytes: not Kafka, rest of stream ignored",
            )
            self.dead = True
            self.buffer.clear()
        return False

    def _plausible(self, head: bytes, limit: int) -> bool:
        if self.is_request:
            return plausible_request(head, limit)
        size, correlation = codec.peek_response_head(head)
        return 4 <= size <= limit and correlation in self.connection.pending

    def _corrupt(self, message: str) -> None:
        self.corrupt += 1
        if self.corrupt >= MAX_CORRUPT_FRAMES:
            self._problem(
                self.buffer_offset,
                f"{message}; not Kafka after {self.corrupt} corrupt frames, rest of stream ignored",
            )
            self.dead = True
            self.buffer.clear()
            return
        self._problem(self.buffer_offset, f"{message}; resynchronising")
        self._drop(1)
        self.lost = True

    def _next_frame(self) -> bool:
        """Handle the frame at the buffer's start; False when more bytes are needed."""
        size = codec.frame_size(self.buffer)
        minimum = 10 if self.is_request else 4
        if not minimum <= size <= self.owner.max_frame_bytes:
            self._corrupt(f"frame size {size} outside [{minimum}, {self.owner.max_frame_bytes}]")
            return True
        head = codec.REQUEST_HEAD_SIZE if self.is_request else codec.RESPONSE_HEAD_SIZE
        if len(self.buffer) < min(4 + size, head):
            return False
        key = self._frame_key(size)
        if key is None:
            return True
        if key not in INTERESTING_APIS:
            self._drop(min(len(self.buffer), 4 + size))
            self.skip = 4 + size - (self.buffer_offset - self._frame_start)
            return True
        if len(self.buffer) < 4 + size:
            return False
        frame_bytes = bytes(self.buffer[: 4 + size])
        start = self.buffer_offset
        self._drop(4 + size)
        self._emit(frame_bytes, start)
        return True

    def _frame_key(self, size: int) -> int | None:
        """The frame's api_key, registering requests; None when the frame was rejected."""
        self._frame_start = self.buffer_offset
        if self.is_request:
            _, api_key, version, correlation, _ = codec.peek_request_head(self.buffer)
            if api_key not in codec.APIS or not 0 <= version <= _MAX_API_VERSION or correlation < 0:
                self._corrupt(f"implausible request header (api_key {api_key}, version {version})")
                return None
            if api_key not in INTERESTING_APIS:
                self.connection.remember(self._stub(api_key, version, correlation))
            return api_key
        _, correlation = codec.peek_response_head(self.buffer)
        request = self.connection.pending.get(correlation)
        if request is None:
            self._problem(
                self.buffer_offset,
                f"response with correlation id {correlation} matches no captured request; skipped",
            )
            return -1  # not interesting: skip it
        if request.api_key not in INTERESTING_APIS:
            del self.connection.pending[correlation]
        return request.api_key

    def _stub(self, api_key: int, version: int, correlation: int) -> KafkaFrame:
        return KafkaFrame(
            self.name, self.buffer_offset, 0.0, 0, True, api_key, version, correlation, None, b""
        )

    def _emit(self, frame_bytes: bytes, start: int) -> None:
        segment = self.segment
        try:
            frame = self._parse(frame_bytes, start, segment)
        except codec.CodecError as exc:
            where = start + (exc.offset or 0)
            self._problem(where, f"corrupt frame header: {exc}; frame skipped")
            return
        if frame is not None:
            self.owner.on_frame(frame)

    def _parse(
        self, frame_bytes: bytes, start: int, segment: TcpSegment | None
    ) -> KafkaFrame | None:
        timestamp, packet = (segment.timestamp, segment.number) if segment else (0.0, 0)
        if self.is_request:
            header, body_start = codec.decode_request_header(frame_bytes)
            frame = KafkaFrame(
                self.name,
                start,
                timestamp,
                packet,
                True,
                header.request_api_key,
                header.request_api_version,
                header.correlation_id,
                header.client_id,
                frame_bytes[body_start:],
            )
            self.connection.remember(frame)
            return frame
        _, correlation = codec.peek_response_head(frame_bytes)
        request = self.connection.pending.pop(correlation)
        _, body_start = codec.decode_response_header(
            frame_bytes, request.api_key, request.api_version
        )
        return KafkaFrame(
            self.name,
            start,
            timestamp,
            packet,
            False,
            request.api_key,
            request.api_version,
            correlation,
            request.client_id,
            frame_bytes[body_start:],
            request,
        )


class _Direction:
    """Sink for one direction whose connection may not be classified yet (SYN carries no data)."""

    def __init__(self, owner: KafkaStreams, segment: TcpSegment) -> None:
        self.owner = owner
        self.name = segment.endpoint_pair
        self.key = frozenset(((segment.src, segment.sport), (segment.dst, segment.dport)))
        self.ports = (segment.sport, segment.dport)
        self.framer: _Framer | None = None
        self.ignored = False

    def _resolve(self, first_bytes: bytes) -> _Framer | None:
        if self.framer is None and not self.ignored:
            connection = self.owner.classify(self.key, self.name, self.ports, first_bytes)
            if connection is None:
                self.ignored = True
            else:
                is_request = self.name.startswith(connection.client + "->")
                self.framer = _Framer(self.owner, connection, self.name, is_request)
        return self.framer

    def data(self, offset: int, chunk: bytes, segment: TcpSegment) -> None:
        framer = self._resolve(chunk if offset == 0 else b"")
        if framer is not None:
            framer.data(offset, chunk, segment)

    def gap(self, offset: int, length: int, reason: str) -> None:
        framer = self._resolve(b"")
        if framer is not None:
            framer.gap(offset, length, reason)

    def close(self) -> None:
        if self.framer is not None:
            self.framer.close()


@dataclass
class KafkaStreams:
    """Decide which TCP directions are Kafka and frame them; complete frames go to ``on_frame``.

    :param ports: broker ports; a connection to one of them is Kafka (client = the other side)
    :param sniff: also treat a connection as Kafka when its first bytes look like a request
    """

    on_frame: Callable[[KafkaFrame], None]
    problems: Problems
    ports: frozenset[int] = frozenset({9092})
    sniff: bool = True
    max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES
    connections: dict[frozenset[tuple[str, int]], _Connection | None] = field(default_factory=dict)

    def sink_for(self, segment: TcpSegment) -> _Direction:
        """Called by the reassembler for the first segment of each direction."""
        return _Direction(self, segment)

    def classify(
        self, key: frozenset[tuple[str, int]], name: str, ports: tuple[int, int], first_bytes: bytes
    ) -> _Connection | None:
        """The connection of a direction, deciding on its first data: broker port, else sniffing."""
        if key in self.connections:
            return self.connections[key]
        sport, dport = ports
        client, server = name.split("->")
        connection: _Connection | None = None
        if sport in self.ports and dport not in self.ports:
            connection = _Connection(server, client)
        elif dport in self.ports:
            connection = _Connection(client, server)
        elif self.sniff and plausible_request(first_bytes, self.max_frame_bytes):
            connection = _Connection(client, server)
        elif not first_bytes:
            return None  # undecided: wait for this connection's first data (not remembered)
        self.connections[key] = connection
        return connection
