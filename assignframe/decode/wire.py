"""A minimal Kafka primitive-type reader for the few messages the codec does not declare.

Request/response headers, and the handful of fields the decoder takes from Metadata, CreateTopics,
LeaveGroup, Heartbeat and ApiVersions. JoinGroup, SyncGroup and everything inside them go through
:mod:`assignframe_codec`. Every read is bounds-checked and raises :class:`WireError` with the byte
offset, so a corrupt frame is reported, never half-read.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import TypeVar

__all__ = ["Reader", "WireError"]

T = TypeVar("T")

#: an array longer than this is corrupt (no sane message of ours has more elements)
MAX_ARRAY_LENGTH = 1_000_000


class WireError(ValueError):
    """Bytes that do not hold what the schema says; ``offset`` is where reading failed."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"{message} at byte {offset}")
        self.offset = offset


class Reader:
    """Sequential reader over one message; ``flexible`` selects compact types (KIP-482)."""

    def __init__(self, data: bytes, offset: int = 0, flexible: bool = False) -> None:
        self.data = memoryview(data)
        self.offset = offset
        self.flexible = flexible

    def take(self, size: int) -> bytes:
        if size < 0 or self.offset + size > len(self.data):
            raise WireError(f"need {size} bytes, {len(self.data) - self.offset} left", self.offset)
        chunk = bytes(self.data[self.offset : self.offset + size])
        self.offset += size
        return chunk

    def _unpack(self, fmt: str, size: int) -> int:
        return int(struct.unpack(fmt, self.take(size))[0])

    def int8(self) -> int:
        return self._unpack(">b", 1)

    def int16(self) -> int:
        return self._unpack(">h", 2)

    def int32(self) -> int:
        return self._unpack(">i", 4)

    def int64(self) -> int:
        return self._unpack(">q", 8)

    def boolean(self) -> bool:
        return self.int8() != 0

    def uuid(self) -> bytes:
        return self.take(16)

    def varuint(self) -> int:
        value, shift = 0, 0
        while True:
            byte = self.take(1)[0]
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7
            if shift > 28:
                raise WireError("unsigned varint longer than 5 bytes", self.offset)

    def _length(self) -> int:
        """Classic int16 / compact varint length; -1 means null."""
        return self.varuint() - 1 if self.flexible else self.int16()

    def string(self, classic: bool = False) -> str | None:
        """A (nullable) string; ``classic`` forces int16 length (client_id in header v2)."""
        length = self.int16() if classic else self._length()
        if length < 0:
            return None
        return self.take(length).decode("utf-8", errors="replace")

    def bytes_(self) -> bytes | None:
        length = self.varuint() - 1 if self.flexible else self.int32()
        return None if length < 0 else self.take(length)

    def array(self, element: Callable[[Reader], T]) -> list[T] | None:
        length = self.varuint() - 1 if self.flexible else self.int32()
        if length < 0:
            return None
        if length > MAX_ARRAY_LENGTH or length > len(self.data) - self.offset:
            raise WireError(f"array length {length} exceeds the bytes left", self.offset)
        return [element(self) for _ in range(length)]

    def tagged_fields(self) -> None:
        """Skip a tagged-field section (present only in flexible versions)."""
        if not self.flexible:
            return
        for _ in range(self.varuint()):
            self.varuint()  # tag
            self.take(self.varuint())

    @property
    def remaining(self) -> int:
        return len(self.data) - self.offset
