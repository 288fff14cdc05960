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

The field readers and writers, and the bounded caches of the hot ones (a subscription's topic
array, a topic group's header), are :mod:`.fastfields`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from construct import Construct, Renamed, Struct

from .fastfields import (
    DECLINED,
    INT16,
    INT32,
    PACK_INT16,
    PACK_INT32,
    NotFast,
    clear_caches,
    int_writer,
    new_object,
    read_bytes,
    read_int16,
    read_int32,
    read_int32_array,
    read_nullable_bytes,
    read_nullable_string,
    read_string,
    read_strings_cached,
    read_topic_groups,
    write_bytes,
    write_int32_array,
    write_nullable_bytes,
    write_nullable_string,
    write_runs,
    write_string,
    write_strings,
)
from .primitives import Int, KafkaArray, KafkaBytes, KafkaString, Since

__all__ = ["Layout", "NotFast", "clear_caches", "decode_exact", "decode_prefixed", "encode"]


# --------------------------------------------------------------------------- declarations -> plans
Reader = Callable[[bytes, int], tuple[Any, int]]
Writer = Callable[[Any, list[bytes]], None]
FieldsReader = Callable[[bytes, int, dict[str, Any]], int]
_INTS: dict[int, tuple[Reader, Writer]] = {
    2: (read_int16, int_writer(PACK_INT16)),
    4: (read_int32, int_writer(PACK_INT32)),
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
        if nullable:
            return read_nullable_string, write_nullable_string
        return read_string, write_string
    if isinstance(construct, KafkaBytes):
        if nullable:
            return read_nullable_bytes, write_nullable_bytes
        return read_bytes, write_bytes
    if isinstance(construct, KafkaArray) and not nullable:
        element = construct.subcon
        if isinstance(element, KafkaString) and element.nullable_from is None:
            return read_strings_cached, write_strings
        if isinstance(element, Int) and element.length == 4:
            return read_int32_array, write_int32_array
        if _is_topic_partitions(element):
            return read_topic_groups, write_runs
    raise TypeError(f"no fast reader for {construct!r}: add one to fastfields.py")


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
    read_int32: ("(fields[{name!r}],) = INT32(data, pos)", "pos += 4"),
    read_int16: ("(fields[{name!r}],) = INT16(data, pos)", "pos += 2"),
    read_nullable_bytes: (
        "(length,) = INT32(data, pos)", "pos += 4",
        "if length < 0:", "    fields[{name!r}] = None",
        "else:", "    end = pos + length",
        "    if end > len(data):", "        raise NotFast",
        "    fields[{name!r}] = data[pos:end]", "    pos = end",
    ),
    read_nullable_string: (
        "(length,) = INT16(data, pos)", "pos += 2",
        "if length < 0:", "    fields[{name!r}] = None",
        "else:", "    end = pos + length",
        "    if end > len(data):", "        raise NotFast",
        "    fields[{name!r}] = data[pos:end].decode()", "    pos = end",
    ),
}


def _generate_reader(steps: tuple[tuple[str, Reader | None, Any], ...]) -> FieldsReader:
    """One straight-line function for one version's steps, like construct's ``compile()``."""
    lines = ["def read(data, pos, fields):"]
    scope: dict[str, Any] = {"INT32": INT32, "INT16": INT16, "NotFast": NotFast}
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
        (version,) = INT16(data, 0)
        if version < 0:
            raise NotFast
        message: Any = new_object(cls)
        fields = message.__dict__
        fields["version"] = version
        layout.generated[version if version < highest else highest](data, 2, fields)
        return message
    except DECLINED:
        raise NotFast from None


def decode_exact(layout: Layout, data: Any, version: int, cls: type,
                 extra: Mapping[str, Any]) -> Any:
    """A struct that must fill ``data`` exactly (user data has no version prefix), as ``cls``
    with the declaration's fields plus ``extra`` (what the bytes do not say, e.g. the layout)."""
    if type(data) is not bytes:
        raise NotFast
    message: Any = new_object(cls)
    fields = message.__dict__
    try:
        end = layout.generated[version](data, 0, fields)
    except DECLINED:
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
    except DECLINED:
        raise NotFast from None
    return b"".join(out)
