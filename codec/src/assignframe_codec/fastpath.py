"""Hand-written ``struct``-module decoders and encoders for the two hot formats.

Subscriptions and assignments are decoded for every member on every rebalance, and construct's
compiled parser (a Container per nested struct) is several times slower than this. These
functions decode exactly what the declarations in :mod:`.consumer` decode and nothing else:
on anything unusual (truncation, a negative count or length where the declaration refuses
one, a negative version) they raise, and the caller re-runs the construct declaration, which
stays the truth and produces the error report. The tests check both on the same bytes, golden
and fuzzed. The encoders likewise refuse (raise) anything the declaration would have to judge:
out-of-range integers, over-long strings, values of the wrong type.

Objects are created without their ``__init__`` (frozen-dataclass ``__setattr__`` costs more
than the decoding itself); they are the same frozen classes, equal to the slow path's.
"""

from __future__ import annotations

import struct

from .types import Assignment, Subscription, TopicPartitions

__all__ = [
    "NotFast",
    "decode_assignment",
    "decode_subscription",
    "encode_assignment",
    "encode_subscription",
]

_INT16 = struct.Struct(">h").unpack_from
_INT32 = struct.Struct(">i").unpack_from
_PACK_INT16 = struct.Struct(">h").pack
_PACK_INT32 = struct.Struct(">i").pack
_NULL_BYTES = _PACK_INT32(-1)
_NULL_STRING = _PACK_INT16(-1)
_HIGHEST_VERSION = 3
_new = object.__new__


class NotFast(Exception):
    """This payload needs the construct declaration (it may well be invalid)."""


_UNPACK_INT32S: dict[int, object] = {}


def _int32s(count: int):
    """A cached unpacker of ``count`` big-endian int32s."""
    unpack = _UNPACK_INT32S.get(count)
    if unpack is None:
        unpack = _UNPACK_INT32S[count] = struct.Struct(f">{count}i").unpack_from
    return unpack


# The loops below read lengths with byte indexing and decode UTF-8 strictly: both are cheaper
# than the general forms, and anything they refuse (negative lengths, invalid UTF-8 that Java
# would replace) is left to the declaration.
def _strings(data: bytes, pos: int) -> tuple[tuple[str, ...], int]:
    (count,) = _INT32(data, pos)
    pos += 4
    size = len(data)
    if count < 0 or count * 2 > size - pos:
        raise NotFast
    strings: list[str] = []
    append = strings.append
    for _ in range(count):
        length = (data[pos] << 8) | data[pos + 1]
        pos += 2
        end = pos + length
        if length & 0x8000 or end > size:
            raise NotFast
        append(data[pos:end].decode())
        pos = end
    return tuple(strings), pos


def _nullable_bytes(data: bytes, pos: int) -> tuple[bytes | None, int]:
    (length,) = _INT32(data, pos)
    pos += 4
    if length < 0:
        return None, pos
    end = pos + length
    if end > len(data):
        raise NotFast
    return data[pos:end], end


def _nullable_string(data: bytes, pos: int) -> tuple[str | None, int]:
    (length,) = _INT16(data, pos)
    pos += 2
    if length < 0:
        return None, pos
    end = pos + length
    if end > len(data):
        raise NotFast
    return data[pos:end].decode(), end


def _groups(data: bytes, pos: int) -> tuple[tuple[TopicPartitions, ...], int]:
    (count,) = _INT32(data, pos)
    pos += 4
    size = len(data)
    if count < 0 or count > size - pos:
        raise NotFast
    groups: list[TopicPartitions] = []
    append = groups.append
    unpackers = _UNPACK_INT32S
    for _ in range(count):
        length = (data[pos] << 8) | data[pos + 1]
        pos += 2
        end = pos + length
        if length & 0x8000 or end + 4 > size:
            raise NotFast
        topic = data[pos:end].decode()
        partitions = (data[end] << 24) | (data[end + 1] << 16) | (data[end + 2] << 8) \
            | data[end + 3]
        pos = end + 4
        if partitions & 0x8000_0000 or partitions * 4 > size - pos:
            raise NotFast
        unpack = unpackers.get(partitions) or _int32s(partitions)
        group = _new(TopicPartitions)
        fields = group.__dict__
        fields["topic"] = topic
        fields["partitions"] = unpack(data, pos)  # type: ignore[operator]
        append(group)
        pos += partitions * 4
    return tuple(groups), pos


def decode_subscription(data: bytes) -> Subscription:
    """Version-prefixed ConsumerProtocolSubscription, exactly as written."""
    if type(data) is not bytes:
        raise NotFast
    (version,) = _INT16(data, 0)
    if version < 0:
        raise NotFast
    topics, pos = _strings(data, 2)
    user_data, pos = _nullable_bytes(data, pos)
    owned: tuple[TopicPartitions, ...] = ()
    generation_id, rack_id = -1, None
    if version >= 1:
        owned, pos = _groups(data, pos)
    if version >= 2:
        (generation_id,) = _INT32(data, pos)
        pos += 4
    if version >= 3:
        rack_id, pos = _nullable_string(data, pos)
    subscription = _new(Subscription)
    subscription.__dict__.update(
        version=version, topics=topics, user_data=user_data, owned_partitions=owned,
        generation_id=generation_id, rack_id=rack_id,
    )
    return subscription


def decode_assignment(data: bytes) -> Assignment:
    """Version-prefixed ConsumerProtocolAssignment, exactly as written."""
    if type(data) is not bytes:
        raise NotFast
    (version,) = _INT16(data, 0)
    if version < 0:
        raise NotFast
    groups, pos = _groups(data, 2)
    user_data, pos = _nullable_bytes(data, pos)
    assignment = _new(Assignment)
    assignment.__dict__.update(version=version, assigned_partitions=groups, user_data=user_data)
    return assignment


# --------------------------------------------------------------------------- encoding
def _string_out(text: str) -> bytes:
    encoded = text.encode()
    if len(encoded) > 0x7FFF:
        raise NotFast
    return _PACK_INT16(len(encoded)) + encoded


def _bytes_out(data: bytes | None) -> bytes:
    if data is None:
        return _NULL_BYTES
    if type(data) is not bytes:
        raise NotFast
    return _PACK_INT32(len(data)) + data


def _runs_out(runs: list[tuple[str, list[int]]], out: list[bytes]) -> None:
    out.append(_PACK_INT32(len(runs)))
    for topic, partitions in runs:
        out.append(_string_out(topic))
        out.append(_PACK_INT32(len(partitions)))
        out.append(_int32s_out(len(partitions))(*partitions))


_PACK_INT32S: dict[int, object] = {}


def _int32s_out(count: int):
    pack = _PACK_INT32S.get(count)
    if pack is None:
        pack = _PACK_INT32S[count] = struct.Struct(f">{count}i").pack
    return pack


def encode_subscription(version: int, topics: tuple[str, ...], user_data: bytes | None,
                        runs: list[tuple[str, list[int]]], generation_id: int,
                        rack_id: str | None) -> bytes:
    """Version-prefixed ConsumerProtocolSubscription; ``version`` already clamped to 0..3."""
    out = [_PACK_INT16(version), _PACK_INT32(len(topics))]
    out.extend(_string_out(topic) for topic in topics)
    out.append(_bytes_out(user_data))
    if version >= 1:
        _runs_out(runs, out)
    if version >= 2:
        out.append(_PACK_INT32(generation_id))
    if version >= 3:
        out.append(_NULL_STRING if rack_id is None else _string_out(rack_id))
    return b"".join(out)


def encode_assignment(version: int, runs: list[tuple[str, list[int]]],
                      user_data: bytes | None) -> bytes:
    """Version-prefixed ConsumerProtocolAssignment; ``version`` already clamped to 0..3."""
    out = [_PACK_INT16(version)]
    _runs_out(runs, out)
    out.append(_bytes_out(user_data))
    return b"".join(out)
