"""Flexible-version building blocks the KIP-848 messages need beyond :mod:`.primitives`.

* ``Uuid``: 16 raw bytes on the wire, Kafka's string form in values (``Uuid.toString()``:
  URL-safe base64 without padding, 22 characters).
* ``NullableStruct``: a struct field that may be null, preceded by a presence marker: an int8
  outside tagged fields (Java writes ``ff``/``01`` and reads any negative byte as null), an
  unsigned varint inside a tagged field (written ``00``/``01``, read ``<= 0`` as an int32 as null).
* ``TaggedSection``: the tagged-field section with *known* tags parsed by their type (Java
  ignores the declared size of a known tag; a repeated known tag overrides the first) and
  unknown tags kept raw, in the order read, duplicates included. Writing follows Java's
  ``RawTaggedFieldWriter``: a known field is written only when it differs from its default,
  unknown fields whose tag is below the next known tag go first.

Like :mod:`.primitives`, every class parses and builds in the interpreter and emits code for
``Struct.compile()``; both paths call the same helper functions below.

The models of these messages are generated from their declarations by :mod:`.flexible_models`.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
from collections.abc import Mapping
from io import BytesIO
from typing import Any

from construct import Construct, FormatField, SizeofError, Struct, Subconstruct

from . import wire
from .errors import CodecError, EncodeError, TruncatedError
from .primitives import ValidVersions
from .types import UNKNOWN_TAGS

__all__ = [
    "NullableStruct",
    "Tag",
    "TaggedSection",
    "Uint16",
    "Uuid",
    "message_struct",
    "nested_struct",
]

_FLEXIBLE = "this['_params']['flexible']"
_IMPORT = "from assignframe_codec.flexible import {}"
RAW_UNKNOWN = "unknown"  # key of the raw unknown tags inside a parsed tagged section


# --------------------------------------------------------------------------- helpers (both paths)
def read_uuid(io: Any) -> str:
    raw = wire.read_exact(io, 16, "uuid")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def write_uuid(obj: Any, io: Any) -> Any:
    if not isinstance(obj, str) or len(obj) != 22:
        raise EncodeError(f"expected a 22-character Kafka uuid string, got {obj!r}")
    try:
        raw = base64.urlsafe_b64decode(obj + "==")
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != 16:
        raise EncodeError(f"{obj!r} is not a base64 Kafka uuid")
    io.write(raw)
    return obj


def read_presence(io: Any, tagged: bool) -> bool:
    """Whether a nullable struct follows (Java's reading rules, see the module docstring)."""
    if tagged:
        marker = wire.read_uvarint(io)
        return 0 < marker < 0x8000_0000
    return wire.read_exact(io, 1, "presence byte")[0] < 0x80


def write_presence(obj: Any, io: Any, tagged: bool) -> bool:
    if obj is None:
        io.write(b"\x00" if tagged else b"\xff")
        return False
    io.write(b"\x01")
    return True


def read_tag_header(io: Any) -> int:
    """The count of a tagged section, refused when the bytes left cannot hold that many."""
    start = io.tell()
    count = wire.read_uvarint(io)
    if count and count > wire.bytes_left(io):  # most sections are empty: no seeks for them
        raise TruncatedError(f"{count} tagged field(s) cannot fit", offset=start)
    return count


def read_unknown_tag(io: Any, unknown: list, tag: int, size: int) -> None:
    unknown.append((tag, wire.read_exact(io, size, f"tagged field {tag}")))


def plain(value: Any) -> Any:
    """A value as plain dicts/lists for comparing: models, containers and tuples normalised,
    a nested tagged section flattened into its struct (raw unknown tags kept when present)."""
    if isinstance(value, Mapping):
        out = {key: plain(item) for key, item in value.items()
               if not str(key).startswith("_") and key != "tagged_fields"}
        section = dict(value.get("tagged_fields") or {})
        unknown = section.pop(RAW_UNKNOWN, None)
        out.update({key: plain(item) for key, item in section.items()})
        if unknown:
            out[UNKNOWN_TAGS] = plain(unknown)
        return out
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def is_default(value: Any, default: Any) -> bool:
    if default is None or value is None:
        return value is default
    if isinstance(default, bool) or isinstance(value, bool):
        return type(value) is type(default) and value == default
    return bool(plain(value) == plain(default))


def write_tagged(io: Any, flexible: bool, known: list, unknown: Any, version: int) -> None:
    """Java's tagged-section writer. ``known``: ``(tag, name, data or None, ignorable)``, where
    ``data`` is None when the field holds its default and is not written."""
    unknown = list(unknown or ())
    if not flexible:
        for _, name, data, ignorable in known:
            if data is not None and not ignorable:
                raise EncodeError(f"attempted to write a non-default {name} at version {version}")
        if unknown:
            raise EncodeError(f"tagged fields were set, but version {version} of this message "
                              "does not support them")
        return
    written = [(tag, data) for tag, _, data, _ in known if data is not None]
    for tag, data in unknown:
        if not isinstance(tag, int) or isinstance(tag, bool) or tag < 0 or \
                not isinstance(data, (bytes, bytearray)):
            raise EncodeError(f"unknown tagged fields must be (tag, bytes), got {(tag, data)!r}")
    io.write(wire.uvarint(len(written) + len(unknown)))
    position = 0
    for tag, data in written:
        while position < len(unknown) and unknown[position][0] < tag:
            _write_raw(io, *unknown[position])
            position += 1
        _write_raw(io, tag, data)
    for raw_tag, data in unknown[position:]:
        _write_raw(io, raw_tag, data)


def _write_raw(io: Any, tag: int, data: bytes) -> None:
    io.write(wire.uvarint(tag) + wire.uvarint(len(data)) + bytes(data))


# --------------------------------------------------------------------------- construct classes
class _Uuid(Construct):
    """``uuid``: 16 bytes on the wire, Kafka's 22-character base64 string in values."""

    def _parse(self, stream, context, path):
        try:
            return read_uuid(stream)
        except CodecError as exc:
            raise exc.fill(path=path) from None

    def _build(self, obj, stream, context, path):
        try:
            return write_uuid(obj, stream)
        except CodecError as exc:
            raise exc.fill(path=path) from None

    def _sizeof(self, context, path):
        return 16

    def _emitparse(self, code):
        code.append(_IMPORT.format("read_uuid"))
        return "read_uuid(io)"

    def _emitbuild(self, code):
        code.append(_IMPORT.format("write_uuid"))
        return "write_uuid(obj, io)"


class NullableStruct(Subconstruct):
    """A nullable struct field with its presence marker (varint inside tagged fields)."""

    def __init__(self, subcon, *, tagged: bool = False) -> None:
        super().__init__(subcon)
        self.tagged = tagged
        self.flagbuildnone = True

    def _parse(self, stream, context, path):
        try:
            present = read_presence(stream, self.tagged)
        except CodecError as exc:
            raise exc.fill(path=path) from None
        return self.subcon._parsereport(stream, context, path) if present else None

    def _build(self, obj, stream, context, path):
        if write_presence(obj, stream, self.tagged):
            self.subcon._build(obj, stream, context, path)
        return obj

    def _sizeof(self, context, path):
        raise SizeofError("nullable struct", path=path)

    def _emitparse(self, code):
        code.append(_IMPORT.format("read_presence"))
        present = f"read_presence(io, {self.tagged})"
        return f"(({self.subcon._compileparse(code)}) if {present} else None)"

    def _emitbuild(self, code):
        code.append(_IMPORT.format("write_presence"))
        present = f"write_presence(obj, io, {self.tagged})"
        return f"(({self.subcon._compilebuild(code)}) if {present} else obj)"


@dataclasses.dataclass(frozen=True)
class Tag:
    """One known tagged field: its tag, name, type and the default that is never written."""

    tag: int
    name: str
    subcon: Construct
    default: Any = None
    ignorable: bool = False
    first: int = 0  # first version holding the tag (taggedVersions)


class TaggedSection(Construct):
    """The tagged-field section of a flexible struct; absent (defaults) in classic versions.

    Parses to ``{name: value for each known tag, "unknown": [(tag, raw bytes), ...]}``.
    """

    def __init__(self, *tags: Tag) -> None:
        super().__init__()
        self.tags = tuple(sorted(tags, key=lambda item: item.tag))
        self.flagbuildnone = True

    def _defaults(self) -> dict:
        return {item.name: item.default for item in self.tags}

    def _parse(self, stream, context, path):
        result = {**self._defaults(), RAW_UNKNOWN: []}
        if not context._params.flexible:
            return result
        by_tag = {item.tag: item for item in self.tags}
        try:
            count = read_tag_header(stream)
            for _ in range(count):
                tag, size = wire.read_uvarint(stream), wire.read_uvarint(stream)
                known = by_tag.get(tag)
                if known is None:
                    read_unknown_tag(stream, result[RAW_UNKNOWN], tag, size)
                else:
                    result[known.name] = known.subcon._parsereport(
                        stream, context, f"{path} -> {known.name}")
        except CodecError as exc:
            raise exc.fill(path=path) from None
        return result

    def _build(self, obj, stream, context, path):
        obj = obj or {}
        known = []
        for item in self.tags:
            value = obj.get(item.name, item.default)
            data = None
            if not is_default(value, item.default):
                buffer = BytesIO()
                item.subcon._build(value, buffer, context, f"{path} -> {item.name}")
                data = buffer.getvalue()
            known.append((item.tag, item.name, data, item.ignorable))
        try:
            write_tagged(stream, context._params.flexible, known, obj.get(RAW_UNKNOWN),
                         context._params.version)
        except CodecError as exc:
            raise exc.fill(path=path) from None
        return obj

    def _sizeof(self, context, path):
        raise SizeofError("tagged fields", path=path)

    def _emitparse(self, code):
        for name in ("read_tag_header", "read_unknown_tag"):
            code.append(_IMPORT.format(name))
        code.append("from assignframe_codec.wire import read_uvarint")
        fname = f"parse_tagged_section_{code.allocateId()}"
        lines = [f"def {fname}(io, this):",
                 f"    result = {{**{self._defaults()!r}, {RAW_UNKNOWN!r}: []}}",
                 f"    if not {_FLEXIBLE}:",
                 "        return result",
                 "    for _ in range(read_tag_header(io)):",
                 "        tag = read_uvarint(io)",
                 "        size = read_uvarint(io)",
                 "        if False:",
                 "            pass"]
        for item in self.tags:
            lines += [f"        elif tag == {item.tag}:",
                      f"            result[{item.name!r}] = {item.subcon._compileparse(code)}"]
        lines += ["        else:",
                  f"            read_unknown_tag(io, result[{RAW_UNKNOWN!r}], tag, size)",
                  "    return result"]
        code.append("\n".join(lines) + "\n")
        return f"{fname}(io, this)"

    def _emitbuild(self, code):
        for name in ("write_tagged", "is_default"):
            code.append(_IMPORT.format(name))
        code.append("from io import BytesIO")
        fname = f"build_tagged_section_{code.allocateId()}"
        lines = []
        for item in self.tags:
            lines += [f"def {fname}_{item.tag}(obj, io, this):",
                      f"    {item.subcon._compilebuild(code)}",
                      "    return io.getvalue()"]
        lines += [f"def {fname}(obj, io, this):",
                  "    section = obj or {}",
                  "    known = []"]
        for item in self.tags:
            lines += [f"    value = section.get({item.name!r}, {item.default!r})",
                      f"    data = None if is_default(value, {item.default!r}) else "
                      f"{fname}_{item.tag}(value, BytesIO(), this)",
                      f"    known.append(({item.tag}, {item.name!r}, data, {item.ignorable!r}))"]
        lines += [f"    write_tagged(io, {_FLEXIBLE}, known, section.get({RAW_UNKNOWN!r}),"
                  " this['_params']['version'])",
                  "    return obj"]
        code.append("\n".join(lines) + "\n")
        return f"{fname}(obj, io, this)"


Uuid = _Uuid()


class _Unsigned16(FormatField):
    """``uint16`` (a Streams endpoint's port)."""

    def __init__(self) -> None:
        super().__init__(">", "H")

    def _build(self, obj, stream, context, path):
        if isinstance(obj, bool) or not isinstance(obj, int) or not 0 <= obj <= 0xFFFF:
            raise EncodeError(f"expected an int in 0..65535, got {obj!r}", path=path)
        return super()._build(obj, stream, context, path)

    def _parse(self, stream, context, path):
        start = stream.tell()
        try:
            return int.from_bytes(wire.read_exact(stream, 2, "uint16"), "big")
        except CodecError as exc:
            raise exc.fill(path=path, offset=start) from None


Uint16 = _Unsigned16()


# --------------------------------------------------------------------------- struct shapes
def message_struct(*fields: Any, tags: tuple[Tag, ...] = ()) -> Struct:
    """A top-level message or record struct: its fields, then its tagged section (known
    ``tags`` and unknown ones; only defaults in versions that are not flexible)."""
    return Struct(*fields, "tagged_fields" / TaggedSection(*tags))


def nested_struct(name: str, highest: int, *fields: Any, tags: tuple[Tag, ...] = ()) -> Struct:
    """A struct inside a message: Java refuses to read or write it above ``highest``."""
    return Struct(ValidVersions(0, highest, name), *fields,
                  "tagged_fields" / TaggedSection(*tags))
