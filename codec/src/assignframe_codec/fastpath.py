"""The ``struct`` fast path, driven by the construct declarations themselves.

Subscriptions and assignments are decoded for every member on every rebalance, and construct's
compiled parser (a Container per nested struct) is several times slower than ``struct``. So
:class:`Layout` reads a declaration (a ``Struct`` of :mod:`.primitives`) once per version and
turns each field into a small ``struct``-based reader and writer: ``Since`` windows, defaults,
nullability and the field order all come from the declaration, so a new field or version is one
edit there. A field type without a fast reader is refused when the layout is built (import
time), never guessed.

The fast path only says yes when it is sure. On anything unusual (truncation, a negative count,
a null where the declaration refuses one, a negative version, invalid UTF-8, a value the writer
would have to judge) it raises :class:`NotFast`, and the caller runs the declaration, which
stays the truth and produces the error report. Callers catch ``NotFast`` only: any other
exception here is a bug and propagates. The tests run both on the same bytes, golden and fuzzed.

Objects are created without their ``__init__`` (frozen-dataclass ``__setattr__`` costs more
than the decoding itself); they are the same frozen classes, equal to the slow path's.

Two bounded caches hold what repeats across members and rebalances, keyed by the exact bytes
they were decoded from, so a hit decodes to what a miss would:

* ``_TOPIC_ARRAYS``: a string array (a subscription's topics; every member of a group usually
  sends the same one) to its tuple, probed by its count and first string and confirmed with
  ``startswith`` on the whole array: the array is self-delimiting, so equal bytes parse equally.
* ``_GROUP_HEADERS``: a topic group's header (name and partition count) to the decoded name,
  the partition unpacker and its width. Partition numbers are always decoded from the bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Mapping
from itertools import repeat
from typing import Any

from construct import Construct, Renamed, Struct

from .primitives import Int, KafkaArray, KafkaBytes, KafkaString, Since
from .types import TopicPartitions

__all__ = ["Layout", "NotFast", "clear_caches", "decode_exact", "decode_prefixed", "encode"]


class NotFast(Exception):
    """This payload or value needs the construct declaration (it may well be invalid)."""


#: what the readers and writers raise on bytes or values they cannot take: all mean "not fast"
_DECLINED = (struct.error, IndexError, OverflowError, UnicodeDecodeError, UnicodeEncodeError)

_INT16 = struct.Struct(">h").unpack_from
_INT32 = struct.Struct(">i").unpack_from
_PACK_INT16 = struct.Struct(">h").pack
_PACK_INT32 = struct.Struct(">i").pack
_NULL_BYTES = _PACK_INT32(-1)
_NULL_STRING = _PACK_INT16(-1)
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


def _cached_strings(data: bytes, pos: int,
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





# --------------------------------------------------------------------------- leaf readers
def _int16(data: bytes, pos: int) -> tuple[int, int]:
    return _INT16(data, pos)[0], pos + 2


def _int32(data: bytes, pos: int) -> tuple[int, int]:
    return _INT32(data, pos)[0], pos + 4


def _nullable_bytes(data: bytes, pos: int) -> tuple[bytes | None, int]:
    (length,) = _INT32(data, pos)
    pos += 4
    if length < 0:
        return None, pos
    end = pos + length
    if end > len(data):
        raise NotFast
    return data[pos:end], end


def _bytes(data: bytes, pos: int) -> tuple[bytes, int]:
    value, pos = _nullable_bytes(data, pos)
    if value is None:
        raise NotFast
    return value, pos


def _nullable_string(data: bytes, pos: int) -> tuple[str | None, int]:
    (length,) = _INT16(data, pos)
    pos += 2
    if length < 0:
        return None, pos
    end = pos + length
    if end > len(data):
        raise NotFast
    return data[pos:end].decode(), end


def _string(data: bytes, pos: int) -> tuple[str, int]:
    value, pos = _nullable_string(data, pos)
    if value is None:
        raise NotFast
    return value, pos


def _int32_array(data: bytes, pos: int) -> tuple[tuple[int, ...], int]:
    (count,) = _INT32(data, pos)
    pos += 4
    if count < 0 or count * 4 > len(data) - pos:
        raise NotFast
    return _int32s(count)(data, pos), pos + 4 * count


# --------------------------------------------------------------------------- leaf writers
def _int_writer(pack: Callable[[int], bytes]) -> Callable[[Any, list[bytes]], None]:
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
    return _PACK_INT16(len(encoded)) + encoded


def _write_string(value: Any, out: list[bytes]) -> None:
    out.append(_string_out(value))


def _write_nullable_string(value: Any, out: list[bytes]) -> None:
    out.append(_NULL_STRING if value is None else _string_out(value))


def _write_bytes(value: Any, out: list[bytes]) -> None:
    if type(value) is not bytes:
        raise NotFast
    out.append(_PACK_INT32(len(value)) + value)


def _write_nullable_bytes(value: Any, out: list[bytes]) -> None:
    if value is None:
        out.append(_NULL_BYTES)
    else:
        _write_bytes(value, out)


def _write_strings(values: Any, out: list[bytes]) -> None:
    out.append(_PACK_INT32(len(values)))
    out.extend(map(_string_out, values))


def _write_int32_array(values: Any, out: list[bytes]) -> None:
    out.append(_PACK_INT32(len(values)))
    out.append(_int32s_out(len(values))(*values))


def _write_runs(runs: Any, out: list[bytes]) -> None:
    """Topic groups given as ``(topic, partitions)`` pairs, already in wire order."""
    out.append(_PACK_INT32(len(runs)))
    for topic, partitions in runs:
        out.append(_string_out(topic))
        out.append(_PACK_INT32(len(partitions)))
        out.append(_int32s_out(len(partitions))(*partitions))


_PACK_INT32S: dict[int, Callable[..., bytes]] = {}


def _int32s_out(count: int) -> Callable[..., bytes]:
    pack = _PACK_INT32S.get(count)
    if pack is None:
        if len(_PACK_INT32S) >= _MAX_UNPACKERS:
            _PACK_INT32S.clear()
        pack = _PACK_INT32S[count] = struct.Struct(f">{count}i").pack
    return pack


# --------------------------------------------------------------------------- declarations -> plans
Reader = Callable[[bytes, int], tuple[Any, int]]
Writer = Callable[[Any, list[bytes]], None]
FieldsReader = Callable[[bytes, int, dict[str, Any]], int]
_INTS: dict[int, tuple[Reader, Writer]] = {
    2: (_int16, _int_writer(_PACK_INT16)),
    4: (_int32, _int_writer(_PACK_INT32)),
}


def _is_topic_partitions(element: Construct) -> bool:
    """A nested struct of exactly ``topic`` (string) and ``partitions`` ([]int32)."""
    fields = [(s.name, s.subcon) for s in getattr(element, "subcons", ()) if isinstance(s, Renamed)]
    if [name for name, _ in fields] != ["topic", "partitions"] or \
            len(fields) != len(element.subcons):  # type: ignore[attr-defined]
        return False
    topic, partitions = fields[0][1], fields[1][1]
    return (isinstance(topic, KafkaString) and topic.nullable_from is None
            and isinstance(partitions, KafkaArray) and partitions.nullable_from is None
            and isinstance(partitions.subcon, Int) and partitions.subcon.length == 4)


def _leaf(construct: Construct, version: int) -> tuple[Reader, Writer]:
    """The fast reader and writer of one classic (non-flexible) field at ``version``."""
    nullable_from = getattr(construct, "nullable_from", None)
    nullable = nullable_from is not None and version >= nullable_from
    if getattr(construct, "compact", None):
        raise TypeError(f"{construct} is compact: the fast path reads classic layouts only")
    if isinstance(construct, Int) and construct.length in _INTS:
        return _INTS[construct.length]
    if isinstance(construct, KafkaString):
        return (_nullable_string, _write_nullable_string) if nullable else (_string, _write_string)
    if isinstance(construct, KafkaBytes):
        return (_nullable_bytes, _write_nullable_bytes) if nullable else (_bytes, _write_bytes)
    if isinstance(construct, KafkaArray) and not nullable:
        element = construct.subcon
        if isinstance(element, KafkaString) and element.nullable_from is None:
            return _cached_strings, _write_strings
        if isinstance(element, Int) and element.length == 4:
            return _int32_array, _write_int32_array
        if _is_topic_partitions(element):
            return _groups, _write_runs
    raise TypeError(f"no fast reader for {construct!r}: add one to fastpath.py")


def _must_be_default(default: Any) -> Writer:
    """An absent field the schema does not call ignorable: only its default may be written."""
    def write(value: Any, out: list[bytes]) -> None:
        if value != default:
            raise NotFast  # the declaration explains why
    return write


def _skip(value: Any, out: list[bytes]) -> None:
    """An absent ignorable field: dropped, as Java does."""


# The commonest leaves are written inline into the generated readers (a call per field costs
# about as much as reading an int32); the others are called.
_INLINE: dict[Reader, tuple[str, ...]] = {
    _int32: ("(fields[{name!r}],) = _INT32(data, pos)", "pos += 4"),
    _int16: ("(fields[{name!r}],) = _INT16(data, pos)", "pos += 2"),
    _nullable_bytes: (
        "(length,) = _INT32(data, pos)", "pos += 4",
        "if length < 0:", "    fields[{name!r}] = None",
        "else:", "    end = pos + length",
        "    if end > len(data):", "        raise NotFast",
        "    fields[{name!r}] = data[pos:end]", "    pos = end",
    ),
    _nullable_string: (
        "(length,) = _INT16(data, pos)", "pos += 2",
        "if length < 0:", "    fields[{name!r}] = None",
        "else:", "    end = pos + length",
        "    if end > len(data):", "        raise NotFast",
        "    fields[{name!r}] = data[pos:end].decode()", "    pos = end",
    ),
}


def _generate_reader(steps: tuple[tuple[str, Reader | None, Any], ...]) -> FieldsReader:
    """One straight-line function for one version's steps, like construct's ``compile()``."""
    lines = ["def read(data, pos, fields):"]
    scope: dict[str, Any] = {"_INT32": _INT32, "_INT16": _INT16, "NotFast": NotFast}
    for index, (name, reader, default) in enumerate(steps):
        if reader is None:
            scope[f"default_{index}"] = default
            lines.append(f"    fields[{name!r}] = default_{index}")
        elif reader in _INLINE:
            lines.extend("    " + line.format(name=name) for line in _INLINE[reader])
        else:
            scope[f"read_{index}"] = reader
            lines.append(f"    fields[{name!r}], pos = read_{index}(data, pos)")
    lines.append("    return pos")
    exec("\n".join(lines), scope)  # noqa: S102 - source built above from the declaration
    return scope["read"]


class Layout:
    """The fast reader and writer of one declaration, one plan per version.

    ``read`` fills a model's ``__dict__`` (every field, absent ones with the declaration's
    default) and returns where the struct ended; ``write`` appends a mapping's fields. Readers
    are generated per version from the plan (straight-line code, no loop over fields).
    """

    def __init__(self, declaration: Struct, versions: Iterable[int]) -> None:
        self.readers: dict[int, tuple[tuple[str, Reader | None, Any], ...]] = {}
        self.writers: dict[int, tuple[tuple[str, Writer], ...]] = {}
        self.generated: dict[int, FieldsReader] = {}
        for version in versions:
            steps = list(self._steps(declaration, version))
            self.readers[version] = tuple((name, r, d) for name, r, _, d in steps)
            self.writers[version] = tuple((name, w) for name, _, w, _ in steps)
            self.generated[version] = _generate_reader(self.readers[version])

    @staticmethod
    def _steps(declaration: Struct, version: int):
        for subcon in declaration.subcons:
            if not isinstance(subcon, Renamed):
                raise TypeError(f"{subcon!r}: the fast path reads named fields only")
            inner, default = subcon.subcon, None
            if isinstance(inner, Since):
                default = inner.default
                if not inner.present(version):
                    writer = _skip if inner.ignorable else _must_be_default(default)
                    yield subcon.name, None, writer, default
                    continue
                inner = inner.subcon
            reader, writer = _leaf(inner, version)
            yield subcon.name, reader, writer, default

    def read(self, data: bytes, pos: int, version: int, fields: dict[str, Any]) -> int:
        return self.generated[version](data, pos, fields)

    def write(self, values: Mapping[str, Any], version: int, out: list[bytes]) -> None:
        for name, writer in self.writers[version]:
            writer(values[name], out)


# --------------------------------------------------------------------------- entry points
def decode_prefixed(layout: Layout, data: Any, cls: type, highest: int) -> Any:
    """A consumer-protocol payload: int16 version (read as ``highest`` when above it), then the
    struct exactly as written (trailing bytes ignored, like Java)."""
    if type(data) is not bytes:
        raise NotFast
    try:
        (version,) = _INT16(data, 0)
        if version < 0:
            raise NotFast
        message: Any = _new(cls)
        fields = message.__dict__
        fields["version"] = version
        layout.generated[version if version < highest else highest](data, 2, fields)
        return message
    except _DECLINED:
        raise NotFast from None


def decode_exact(layout: Layout, data: Any, version: int, cls: type,
                 extra: Mapping[str, Any]) -> Any:
    """A struct that must fill ``data`` exactly (user data has no version prefix), as ``cls``
    with the declaration's fields plus ``extra`` (what the bytes do not say, e.g. the layout)."""
    if type(data) is not bytes:
        raise NotFast
    message: Any = _new(cls)
    fields = message.__dict__
    try:
        end = layout.generated[version](data, 0, fields)
    except _DECLINED:
        raise NotFast from None
    if end != len(data):
        raise NotFast
    fields.update(extra)
    return message


def encode(layout: Layout, values: Mapping[str, Any], version: int,
           prefix: bytes = b"") -> bytes:
    """``prefix`` then the fields; NotFast for any value the declaration must judge."""
    out = [prefix]
    try:
        layout.write(values, version, out)
    except _DECLINED:
        raise NotFast from None
    return b"".join(out)
