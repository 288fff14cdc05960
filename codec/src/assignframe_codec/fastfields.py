"""The fast path's field readers and writers (:mod:`.fastpath` plans a declaration with them),
and the bounded caches of the hot ones.

Two bounded caches hold what repeats across members and rebalances, keyed by the exact bytes
they were decoded from, so a hit decodes to what a miss would:

* ``_TOPIC_ARRAYS``: a string array (a subscription's topics; every member of a group usually
  sends the same one) to its tuple, probed by its count and first string and confirmed with
  ``startswith`` on the whole array: the array is self-delimiting, so equal bytes parse equally.
* ``_GROUP_HEADERS``: a topic group's header (name and partition count) to the decoded name,
  the partition unpacker and its width. Partition numbers are always decoded from the bytes.

Every reader raises :class:`NotFast` on anything the declaration must judge.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from itertools import repeat
from typing import Any

from .types import TopicPartitions

__all__ = [
    "DECLINED",
    "INT16",
    "INT32",
    "NotFast",
    "PACK_INT16",
    "PACK_INT32",
    "clear_caches",
    "int_writer",
    "new_object",
    "read_bytes",
    "read_int16",
    "read_int32",
    "read_int32_array",
    "read_nullable_bytes",
    "read_nullable_string",
    "read_string",
    "read_strings_cached",
    "read_topic_groups",
    "write_bytes",
    "write_int32_array",
    "write_nullable_bytes",
    "write_nullable_string",
    "write_runs",
    "write_string",
    "write_strings",
]


class NotFast(Exception):
    """This payload or value needs the construct declaration (it may well be invalid)."""


#: what the readers and writers raise on bytes or values they cannot take: all mean "not fast"
DECLINED = (struct.error, IndexError, OverflowError, UnicodeDecodeError, UnicodeEncodeError)

INT16 = struct.Struct(">h").unpack_from
INT32 = struct.Struct(">i").unpack_from
PACK_INT16 = struct.Struct(">h").pack
PACK_INT32 = struct.Struct(">i").pack
_NULL_BYTES = PACK_INT32(-1)
_NULL_STRING = PACK_INT16(-1)
new_object = object.__new__

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
_TOPIC_ARRAYS: dict[bytes, tuple[bytes, tuple[str, ...]]] = {}
_topic_array_bytes = 0
_UNPACK_INT32S: dict[int, Unpacker] = {}


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
    (count,) = INT32(data, pos)
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


def read_strings_cached(data: bytes, pos: int,
                    arrays: dict = _TOPIC_ARRAYS) -> tuple[tuple[str, ...], int]:
    """A string array (a subscription's topics): probed by its count and first string, confirmed
    on every byte, else decoded and cached under that probe."""
    global _topic_array_bytes
    probe = data[pos:pos + 6 + data[pos + 5]]
    cached = arrays.get(probe)
    if cached is not None and data.startswith(cached[0], pos):
        return cached[1], pos + len(cached[0])
    strings, end = _strings(data, pos)
    segment = data[pos:end]
    size = len(probe) + len(segment) + _OBJECT_BYTES * (len(strings) + 3)  # about its memory
    if size <= _MAX_TOPIC_ARRAY_BYTES:
        if (_topic_array_bytes + size > _MAX_TOPIC_ARRAY_BYTES
                or len(arrays) >= _MAX_TOPIC_ARRAYS):
            arrays.clear()
            _topic_array_bytes = 0
        arrays[probe] = (segment, strings)
        _topic_array_bytes += size
    return strings, end


def _group_header(data: bytes, pos: int) -> tuple[tuple[str, Unpacker, int], int]:
    """A topic group header with a name of 256+ bytes (never cached), and where it ends."""
    length = (data[pos] << 8) | data[pos + 1]
    end = pos + 6 + length
    if length & 0x8000 or end > len(data):
        raise NotFast
    (count,) = INT32(data, end - 4)
    if count < 0 or count * 4 > len(data) - end:
        raise NotFast
    return (data[pos + 2:end - 4].decode(), _int32s(count), count * 4), end


# Defaults bind caches and constructors as locals (fewer lookups per call); callers never pass
# them. Not keyword-only: CPython 3.11 specializes calls to such functions, not to those.
# TopicPartitions is slotted: its fields are set through the slots' own descriptors.
_SET_TOPIC = vars(TopicPartitions)["topic"].__set__
_SET_PARTITIONS = vars(TopicPartitions)["partitions"].__set__


def read_topic_groups(data: bytes, pos: int, headers: dict = _GROUP_HEADERS,
            unpackers: dict = _UNPACK_INT32S, new: Any = new_object,
            cls: type = TopicPartitions, set_topic: Any = _SET_TOPIC,
            set_partitions: Any = _SET_PARTITIONS) -> tuple[tuple[TopicPartitions, ...], int]:
    (count,) = INT32(data, pos)
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
                (partitions,) = INT32(data, end - 4)
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





# --------------------------------------------------------------------------- leaf readers
def read_int16(data: bytes, pos: int) -> tuple[int, int]:
    return INT16(data, pos)[0], pos + 2


def read_int32(data: bytes, pos: int) -> tuple[int, int]:
    return INT32(data, pos)[0], pos + 4


def read_nullable_bytes(data: bytes, pos: int) -> tuple[bytes | None, int]:
    (length,) = INT32(data, pos)
    pos += 4
    if length < 0:
        return None, pos
    end = pos + length
    if end > len(data):
        raise NotFast
    return data[pos:end], end


def read_bytes(data: bytes, pos: int) -> tuple[bytes, int]:
    value, pos = read_nullable_bytes(data, pos)
    if value is None:
        raise NotFast
    return value, pos


def read_nullable_string(data: bytes, pos: int) -> tuple[str | None, int]:
    (length,) = INT16(data, pos)
    pos += 2
    if length < 0:
        return None, pos
    end = pos + length
    if end > len(data):
        raise NotFast
    return data[pos:end].decode(), end


def read_string(data: bytes, pos: int) -> tuple[str, int]:
    value, pos = read_nullable_string(data, pos)
    if value is None:
        raise NotFast
    return value, pos


def read_int32_array(data: bytes, pos: int) -> tuple[tuple[int, ...], int]:
    (count,) = INT32(data, pos)
    pos += 4
    if count < 0 or count * 4 > len(data) - pos:
        raise NotFast
    return _int32s(count)(data, pos), pos + 4 * count


# --------------------------------------------------------------------------- leaf writers
def int_writer(pack: Callable[[int], bytes]) -> Callable[[Any, list[bytes]], None]:
    def write(value: Any, out: list[bytes]) -> None:
        if type(value) is not int:  # bools and the rest: the declaration judges
            raise NotFast
        out.append(pack(value))  # struct.error when out of range
    return write


def _string_out(text: Any) -> bytes:
    if type(text) is not str:
        raise NotFast
    encoded = text.encode()
    if len(encoded) > 0x7FFF:
        raise NotFast
    return PACK_INT16(len(encoded)) + encoded


def write_string(value: Any, out: list[bytes]) -> None:
    out.append(_string_out(value))


def write_nullable_string(value: Any, out: list[bytes]) -> None:
    out.append(_NULL_STRING if value is None else _string_out(value))


def write_bytes(value: Any, out: list[bytes]) -> None:
    if type(value) is not bytes:
        raise NotFast
    out.append(PACK_INT32(len(value)) + value)


def write_nullable_bytes(value: Any, out: list[bytes]) -> None:
    if value is None:
        out.append(_NULL_BYTES)
    else:
        write_bytes(value, out)


def write_strings(values: Any, out: list[bytes]) -> None:
    out.append(PACK_INT32(len(values)))
    out.extend(map(_string_out, values))


def write_int32_array(values: Any, out: list[bytes]) -> None:
    out.append(PACK_INT32(len(values)))
    out.append(_int32s_out(len(values))(*values))


def write_runs(runs: Any, out: list[bytes]) -> None:
    """Topic groups given as ``(topic, partitions)`` pairs, already in wire order."""
    out.append(PACK_INT32(len(runs)))
    for topic, partitions in runs:
        out.append(_string_out(topic))
        out.append(PACK_INT32(len(partitions)))
        out.append(_int32s_out(len(partitions))(*partitions))


_PACK_INT32S: dict[int, Callable[..., bytes]] = {}


def _int32s_out(count: int) -> Callable[..., bytes]:
    pack = _PACK_INT32S.get(count)
    if pack is None:
        if len(_PACK_INT32S) >= _MAX_UNPACKERS:
            _PACK_INT32S.clear()
        pack = _PACK_INT32S[count] = struct.Struct(f">{count}i").pack
    return pack
