"""``__consumer_offsets`` records: group metadata and committed offsets (hex, files, a broker).

The record key's int16 version says what the record is (0-1 offset commit, 2 group metadata; 3 and
up the record types of the KIP-848 coordinator: consumer 3-8 and 16, share 10-15, Streams 17 and
19-23, read by :func:`assignframe_codec.decode_coordinator_record` and named by its key type
without "Key", e.g. ``ConsumerGroupMemberMetadata``). A null value is a tombstone: the
offset or the group was deleted. Keys and values are read by :mod:`assignframe_codec`; the
ConsumerProtocol bytes inside group metadata are decoded with the group's protocol.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import assignframe_codec as codec

from ...jsonview import loads
from ..payload import _enrich, jsonable, parse_payload_text
from ..problems import Problems

__all__ = [
    "OFFSETS_TOPIC",
    "OffsetsRecord",
    "decode_offsets_record",
    "read_offsets_file",
]

OFFSETS_TOPIC = codec.OFFSETS_TOPIC
_RECORD_TYPES = {
    0: ("offset_commit", "OffsetCommitKey", "OffsetCommitValue"),
    1: ("offset_commit", "OffsetCommitKey", "OffsetCommitValue"),
    2: ("group_metadata", "GroupMetadataKey", "GroupMetadataValue"),
}


@dataclass
class OffsetsRecord:
    """One decoded record; ``where`` names its origin (``partition 3 offset 17``, ``line 2``)."""

    where: str
    key_hex: str
    value_hex: str | None
    record_type: str | None = None
    key_version: int | None = None
    value_version: int | None = None
    key: dict[str, Any] | None = None
    value: dict[str, Any] | None = None
    error: str | None = None

    @property
    def tombstone(self) -> bool:
        return self.value_hex is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "where": self.where,
            "record_type": self.record_type,
            "tombstone": self.tombstone,
            "key_version": self.key_version,
            "key": self.key,
            "value_version": self.value_version,
            "value": self.value,
            "key_hex": self.key_hex,
            "value_hex": self.value_hex,
            "error": self.error,
        }


def decode_offsets_record(key: bytes, value: bytes | None, where: str) -> OffsetsRecord:
    """Decode one ``__consumer_offsets`` key/value pair (value None = tombstone); never raises."""
    record = OffsetsRecord(where, key.hex(), None if value is None else value.hex())
    if len(key) < 2:
        record.error = "key shorter than its int16 version"
        return record
    record.key_version = codec.version_prefix(key)
    kinds = _RECORD_TYPES.get(record.key_version)
    if kinds is None:
        return _coordinator_record(record, key, value)
    record.record_type, key_kind, value_kind = kinds
    try:
        record.key = jsonable(codec.decode_record(key_kind, key).to_dict())
        if value is not None:
            record.value_version = codec.version_prefix(value) if len(value) >= 2 else None
            record.value = jsonable(
                _enrich(value_kind, codec.decode_record(value_kind, value).to_dict())
            )
    except codec.CodecError as exc:
        record.error = f"{type(exc).__name__}: {exc}"
    return record


def _coordinator_record(record: OffsetsRecord, key: bytes, value: bytes | None) -> OffsetsRecord:
    """A record type of the new group coordinator (3 and up), read by the codec by type."""
    try:
        decoded = codec.decode_coordinator_record(key, value)
    except codec.CodecError as exc:
        record.error = f"{type(exc).__name__}: {exc}"
        return record
    record.record_type = decoded.key_type.removesuffix("Key")
    record.key = jsonable(decoded.key.to_dict())
    record.value_version = decoded.value_version
    record.value = None if decoded.value is None else jsonable(decoded.value.to_dict())
    return record


def _pair_from_line(line: str) -> tuple[bytes, bytes | None]:
    """``KEY VALUE`` / ``KEY`` / ``KEY null`` (hex or base64), or JSON ``{"key", "value"}``."""
    if line.startswith("{"):
        obj = loads(line)
        value = obj.get("value")
        return parse_payload_text(obj["key"]), None if value is None else parse_payload_text(value)
    parts = line.replace(",", " ").replace("\t", " ").split()
    if not parts or len(parts) > 2:
        raise ValueError("expected KEY [VALUE]")
    value_text = parts[1] if len(parts) == 2 else None
    value = None if value_text in (None, "null", "-") else parse_payload_text(value_text)
    return parse_payload_text(parts[0]), value


def read_offsets_file(
    lines: Iterable[str], name: str, problems: Problems
) -> Iterator[OffsetsRecord]:
    """Decode every non-blank, non-``#`` line; unparsable lines are reported and skipped."""
    offset = 0
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        where = f"{name} line {number}"
        if text and not text.startswith("#"):
            try:
                key, value = _pair_from_line(text)
            except (ValueError, KeyError, TypeError) as exc:
                problems.add(where, offset, f"unreadable record line: {exc}; skipped")
            else:
                yield _checked(decode_offsets_record(key, value, where), problems, offset)
        offset += len(line.encode()) + (0 if line.endswith("\n") else 1)


def _checked(record: OffsetsRecord, problems: Problems, offset: int) -> OffsetsRecord:
    if record.error:
        problems.add(record.where, offset, f"record not decoded: {record.error}")
    return record
