"""``decode``/``encode`` by kind name, and the version-prefixed ``__consumer_offsets`` form."""

from __future__ import annotations

import struct
from typing import Any

from .engine import as_bytes
from .errors import InvalidVersionError, TruncatedError, UnknownKindError, reporting
from .registry import CODECS, RECORD_KINDS, Codec, MessageCodec

__all__ = ["decode", "decode_record", "encode", "encode_record", "version_prefix"]

_VERSION_PREFIX = struct.Struct(">h")


def _codec(kind: str) -> Codec:
    codec = CODECS.get(kind) if isinstance(kind, str) else None
    if codec is None:
        raise UnknownKindError(f"unknown kind {kind!r}; see KINDS", kind=str(kind))
    return codec


def decode(kind: str, data: bytes, version: int | None = None) -> Any:
    """Decode ``data`` as ``kind`` into its frozen dataclass.

    ``version`` is required for messages and records (``data`` is the struct only), must be
    omitted or match for the consumer protocol (its bytes start with the version), and picks a
    layout for sticky user data (omitted: V1, else V0, as Java does).
    """
    with reporting(kind, version):
        return _codec(kind).decode(data, version)


def encode(kind: str, value: Any, version: int | None = None) -> bytes:
    """Encode a typed object or a plain dict (snake_case keys, bytes as bytes) as ``kind``.

    ``version`` defaults to ``value.version`` for typed objects.
    """
    with reporting(kind, version):
        return _codec(kind).encode(value, version)


def version_prefix(data: bytes) -> int:
    """The int16 that starts a record key/value or a consumer-protocol payload, unjudged."""
    data = as_bytes(data)
    if len(data) < 2:
        raise TruncatedError("needs an int16 version prefix", offset=0)
    return int(_VERSION_PREFIX.unpack_from(data)[0])


def _record_codec(kind: str) -> MessageCodec:
    codec = _codec(kind)
    if kind not in RECORD_KINDS or not isinstance(codec, MessageCodec):
        raise UnknownKindError(f"{kind!r} is not a __consumer_offsets record kind")
    return codec


def decode_record(kind: str, data: bytes) -> Any:
    """A record key or value as stored: int16 version, then the struct."""
    with reporting(kind):
        codec = _record_codec(kind)
        data = as_bytes(data)
        if len(data) < 2:
            raise TruncatedError("record needs an int16 version prefix", offset=0)
        version = version_prefix(data)
        if version < 0:
            raise InvalidVersionError(f"negative record version {version}", offset=0)
        return codec.decode(data[2:], version)


def encode_record(kind: str, value: Any, version: int | None = None) -> bytes:
    """The stored form: int16 version, then the struct."""
    with reporting(kind, version):
        codec = _record_codec(kind)
        if version is None:
            version = getattr(value, "version", None)
        body = codec.encode(value, version)
        return _VERSION_PREFIX.pack(version) + body  # type: ignore[arg-type]
