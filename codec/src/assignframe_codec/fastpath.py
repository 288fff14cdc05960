"""Hand-written ``struct``-module decoders and encoders for the two hot formats.

Subscriptions and assignments are decoded for every member on every rebalance, and construct's
compiled parser (a Container per nested struct) is several times slower than this. These
functions decode exactly what the declarations in :mod:`.consumer` decode and nothing else:
on anything unusual (truncation, a negative count or length where the declaration refuses
one, a negative version, invalid UTF-8) they raise, and the caller re-runs the construct
declaration, which stays the truth and produces the error report. The tests check both on the
same bytes, golden and fuzzed. The encoders likewise refuse (raise) anything the declaration
would have to judge: out-of-range integers, over-long strings, values of the wrong type.

Objects are created without their ``__init__`` (frozen-dataclass ``__setattr__`` costs more
than the decoding itself); they are the same frozen classes, equal to the slow path's.

Two bounded caches hold what repeats across members and rebalances, keyed by the exact bytes
they were decoded from, so a hit decodes to what a miss would:

* ``_TOPIC_ARRAYS``: a subscription's whole topic array (every member of a group usually sends
  the same one) to its tuple of names. Looked up by the array's first element, confirmed with
  ``startswith`` on the whole array: the array is self-delimiting, so equal bytes parse equally.
* ``_GROUP_HEADERS``: a topic group's header (name and partition count) to the decoded name,
  the partition unpacker and its width. Partition numbers are always decoded from the bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from itertools import repeat
from typing import Any

from .types import Assignment, CooperativeUserData, StickyUserData, Subscription, TopicPartitions

__all__ = [
    "NotFast",
    "clear_caches",
    "decode_assignment",
    "decode_cooperative_user_data",
    "decode_sticky_user_data",
    "decode_subscription",
    "encode_assignment",
    "encode_cooperative_user_data",
    "encode_sticky_user_data",
    "encode_subscription",
]

_INT16 = struct.Struct(">h").unpack_from
_INT32 = struct.Struct(">i").unpack_from
_INT32_INT16 = struct.Struct(">ih").unpack_from  # generation_id, then rack_id's length
_PACK_INT16 = struct.Struct(">h").pack
_PACK_INT32 = struct.Struct(">i").pack
_NULL_BYTES = _PACK_INT32(-1)
_NULL_STRING = _PACK_INT16(-1)
_HIGHEST_VERSION = 3
_new = object.__new__

Unpacker = Callable[[bytes, int], tuple[Any, ...]]

# Bounds, in entries and (topic arrays) approximate memory; a full cache is emptied. A group's
# leader needs a topic array per distinct subscription and a header per (topic, partition
# count) its members send. When names never repeat, a bigger cache only costs memory traffic:
# with 20,000 distinct names, 4096 headers and 1024 arrays made decoding 20% slower than the
# cache-less code; these bounds, 5-10%.
_MAX_GROUP_HEADERS = 1024
_MAX_UNPACKERS = 1024
_MAX_TOPIC_ARRAYS = 256
_MAX_TOPIC_ARRAY_BYTES = 1 << 20
_OBJECT_BYTES = 64  # a str, bytes or tuple's own size, roughly

_GROUP_HEADERS: dict[bytes, tuple[str, Unpacker, int]] = {}
_TOPIC_ARRAYS: dict[bytes, tuple[bytes, tuple[str, ...], int]] = {}
_topic_array_bytes = 0
_UNPACK_INT32S: dict[int, Unpacker] = {}


class NotFast(Exception):
    """This payload needs the construct declaration (it may well be invalid)."""


def clear_caches() -> None:
    """Forget every cached topic array, group header and unpacker (tests, memory)."""
    global _topic_array_bytes
    _GROUP_HEADERS.clear()
    _TOPIC_ARRAYS.clear()
    _UNPACK_INT32S.clear()
    _topic_array_bytes = 0


def _int32s(count: int) -> Unpacker:
    """A cached unpacker of ``count`` big-endian int32s."""
    unpack = _UNPACK_INT32S.get(count)
    if unpack is None:
        if len(_UNPACK_INT32S) >= _MAX_UNPACKERS:
            _UNPACK_INT32S.clear()
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


def _topic_array(data: bytes) -> tuple[tuple[str, ...], int]:
    """Decode the topic array at offset 2 and cache it under its probe (see decode_subscription)."""
    global _topic_array_bytes
    topics, end = _strings(data, 2)
    probe, segment = data[2:8 + data[7]], data[2:end]
    size = len(probe) + len(segment) + _OBJECT_BYTES * (len(topics) + 3)  # about its memory
    if size <= _MAX_TOPIC_ARRAY_BYTES:
        if (_topic_array_bytes + size > _MAX_TOPIC_ARRAY_BYTES
                or len(_TOPIC_ARRAYS) >= _MAX_TOPIC_ARRAYS):
            _TOPIC_ARRAYS.clear()
            _topic_array_bytes = 0
        _TOPIC_ARRAYS[probe] = (segment, topics, end)
        _topic_array_bytes += size
    return topics, end


def _group_header(data: bytes, pos: int) -> tuple[tuple[str, Unpacker, int], int]:
    """A topic group header with a name of 256+ bytes (never cached), and where it ends."""
    length = (data[pos] << 8) | data[pos + 1]
    end = pos + 6 + length
    if length & 0x8000 or end > len(data):
        raise NotFast
    (count,) = _INT32(data, end - 4)
    if count < 0 or count * 4 > len(data) - end:
        raise NotFast
    return (data[pos + 2:end - 4].decode(), _int32s(count), count * 4), end


# Defaults bind caches and constructors as locals (fewer lookups per call); callers never pass
# them. Not keyword-only: CPython 3.11 specializes calls to such functions, not to those.
# TopicPartitions is slotted: its fields are set through the slots' own descriptors.
_SET_TOPIC = vars(TopicPartitions)["topic"].__set__
_SET_PARTITIONS = vars(TopicPartitions)["partitions"].__set__


def _groups(data: bytes, pos: int, headers: dict = _GROUP_HEADERS,
            unpackers: dict = _UNPACK_INT32S, new: Any = _new,
            cls: type = TopicPartitions, set_topic: Any = _SET_TOPIC,
            set_partitions: Any = _SET_PARTITIONS) -> tuple[tuple[TopicPartitions, ...], int]:
    (count,) = _INT32(data, pos)
    pos += 4
    if count < 0 or count * 6 > len(data) - pos:  # a group takes at least 6 bytes
        raise NotFast
    # Allocating the objects in one C-level map is cheaper than a call per loop turn; they are
    # filled in below, before anything else can see them.
    groups = tuple(map(new, repeat(cls, count)))
    get = headers.get
    for group in groups:
        # The key's end uses the low length byte only: a cached key is exactly its length + 6
        # bytes long, so a name of 256+ bytes (or a truncated slice) can never match one.
        end = pos + 6 + data[pos + 1]
        header = get(key := data[pos:end])
        if header is None:  # decoded here, not in a call: with new topic names, misses are many
            if data[pos] or end > len(data):  # 256+ bytes (Kafka allows 249), < 0, or truncated
                header, end = _group_header(data, pos)
            else:
                (partitions,) = _INT32(data, end - 4)
                if partitions < 0 or partitions * 4 > len(data) - end:
                    raise NotFast
                header = (data[pos + 2:end - 4].decode(),
                          unpackers.get(partitions) or _int32s(partitions), partitions * 4)
                if len(headers) >= _MAX_GROUP_HEADERS:
                    headers.clear()
                headers[key] = header
        topic, unpack, width = header
        set_topic(group, topic)
        set_partitions(group, unpack(data, end))
        pos = end + width
    return groups, pos


def decode_subscription(data: bytes, arrays: dict = _TOPIC_ARRAYS, new: Any = _new,
                        cls: type = Subscription) -> Subscription:
    """Version-prefixed ConsumerProtocolSubscription, exactly as written."""
    if type(data) is not bytes:
        raise NotFast
    (version,) = _INT16(data, 0)
    if version < 0:
        raise NotFast
    # A topic array seen before: probed by its count and first name, confirmed on every byte.
    cached = arrays.get(data[2:8 + data[7]])
    if cached is not None and data.startswith(cached[0], 2):
        topics, pos = cached[1], cached[2]
    else:
        topics, pos = _topic_array(data)
    (length,) = _INT32(data, pos)
    pos += 4
    if length < 0:
        user_data = None
    else:
        user_data = data[pos:pos + length]
        pos += length
        if pos > len(data):
            raise NotFast
    subscription = new(cls)
    fields = subscription.__dict__
    fields["version"] = version
    fields["topics"] = topics
    fields["user_data"] = user_data
    if version == 0:
        fields["owned_partitions"] = ()
        fields["generation_id"] = -1
        fields["rack_id"] = None
        return subscription
    fields["owned_partitions"], pos = _groups(data, pos)
    if version == 1:
        fields["generation_id"] = -1
        fields["rack_id"] = None
    elif version == 2:
        (fields["generation_id"],) = _INT32(data, pos)
        fields["rack_id"] = None
    else:
        fields["generation_id"], length = _INT32_INT16(data, pos)
        pos += 6
        if length < 0:
            fields["rack_id"] = None
        elif pos + length > len(data):
            raise NotFast
        else:
            fields["rack_id"] = data[pos:pos + length].decode()
    return subscription


def decode_assignment(data: bytes, new: Any = _new, cls: type = Assignment) -> Assignment:
    """Version-prefixed ConsumerProtocolAssignment, exactly as written."""
    if type(data) is not bytes:
        raise NotFast
    (version,) = _INT16(data, 0)
    if version < 0:
        raise NotFast
    groups, pos = _groups(data, 2)
    (length,) = _INT32(data, pos)
    pos += 4
    if length < 0:
        user_data = None
    else:
        user_data = data[pos:pos + length]
        if pos + length > len(data):
            raise NotFast
    assignment = new(cls)
    fields = assignment.__dict__
    fields["version"] = version
    fields["assigned_partitions"] = groups
    fields["user_data"] = user_data
    return assignment


# The assignors' user data (no version prefix). Only the unambiguous cases are decoded here:
# bytes that are exactly the V1 layout (groups, then a generation) or exactly V0 (groups only).
# Java tries V1 first, so exact V1 bytes are V1 and exact V0 bytes (V1 lacks its generation)
# are V0; trailing bytes and everything else are the declarations' to judge.
def decode_sticky_user_data(data: bytes, version: int | None) -> StickyUserData:
    """StickyAssignor user data; ``version`` None tries V1 then V0, 1 or 0 forces one."""
    if type(data) is not bytes:
        raise NotFast
    groups, pos = _groups(data, 0)
    if pos + 4 == len(data) and version != 0:
        (generation,) = _INT32(data, pos)
        return StickyUserData("V1", groups, generation)
    if pos == len(data) and version != 1:
        return StickyUserData("V0", groups, None)
    raise NotFast


def decode_cooperative_user_data(data: bytes) -> CooperativeUserData:
    """Java's bare int32 generation (exactly 4 bytes) or exactly a sticky V1 blob."""
    if type(data) is not bytes:
        raise NotFast
    if len(data) == 4:
        return CooperativeUserData("java-generation", _INT32(data, 0)[0], None)
    groups, pos = _groups(data, 0)
    if pos + 4 != len(data):
        raise NotFast
    return CooperativeUserData("sticky-v1", _INT32(data, pos)[0], groups)


def encode_sticky_user_data(runs: list[tuple[str, list[int]]], generation: int | None) -> bytes:
    """V1 (``generation`` given) or V0; runs already grouped as Java writes them."""
    out: list[bytes] = []
    _runs_out(runs, out)
    if generation is not None:
        out.append(_PACK_INT32(generation))
    return b"".join(out)


def encode_cooperative_user_data(generation: int) -> bytes:
    """Java's layout: the int32 generation."""
    return _PACK_INT32(generation)


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
