"""Kafka's primitive types as construct classes that compile.

Every class here parses and builds in the interpreter (``_parse``/``_build``, with construct's
field path for error messages) and emits code for ``Struct.compile()`` (``_emitparse``/
``_emitbuild``), so a compiled declaration never falls back to the interpreter. Both paths call
the same small ``read_*``/``write_*`` functions of :mod:`.wire`, which hold the Kafka rules.

Which encoding a field uses is decided at parse/build time from the context parameters that the
facade always passes: ``version`` (the message version) and ``flexible`` (compact encodings and
tagged fields). A declaration therefore reads like the schema table:
``"group_instance_id" / Since(5, NullableString)``.
"""

from __future__ import annotations

import struct

from construct import Construct, FormatField, SizeofError, Subconstruct

from . import wire
from .errors import CodecError, EncodeError

_FLEXIBLE = "this['_params']['flexible']"
_VERSION = "this['_params']['version']"
_IMPORTS = "from assignframe_codec.wire import {}"


# --------------------------------------------------------------------------- construct classes
def _with_path(exc: CodecError, path: str) -> CodecError:
    return exc.fill(path=path)


class Int(FormatField):
    """Big-endian signed integer (int8/16/32/64); truncation reports the field's offset."""

    def __init__(self, fmt: str) -> None:
        super().__init__(">", fmt)
        self._packer = struct.Struct(self.fmtstr)

    def _parse(self, stream, context, path):
        start = stream.tell()
        try:
            data = wire.read_exact(stream, self.length, f"int{8 * self.length}")
            return self._packer.unpack(data)[0]
        except CodecError as exc:
            raise _with_path(exc, path).fill(offset=start) from None

    def _build(self, obj, stream, context, path):
        if isinstance(obj, bool) or not isinstance(obj, int):
            raise EncodeError(f"expected int, got {type(obj).__name__}", path=path)
        try:
            stream.write(self._packer.pack(obj))
        except struct.error:
            raise EncodeError(f"{obj} does not fit in int{8 * self.length}", path=path) from None
        return obj


Int8 = Int("b")
Int16 = Int("h")
Int32 = Int("l")
Int64 = Int("q")


class _Primitive(Construct):
    """A leaf whose parse and build are one helper call each, interpreted or compiled."""

    helpers: tuple[str, str] = ("", "")

    def _args_code(self) -> str:
        """The helper's extra arguments as Python source, for the compiler."""
        return ""

    def _args(self, context) -> tuple:
        """The same arguments evaluated now, for the interpreter."""
        return ()

    def _parse(self, stream, context, path):
        try:
            return _HELPERS[self.helpers[0]](stream, *self._args(context))
        except CodecError as exc:
            raise _with_path(exc, path) from None

    def _build(self, obj, stream, context, path):
        try:
            return _HELPERS[self.helpers[1]](obj, stream, *self._args(context))
        except CodecError as exc:
            raise _with_path(exc, path) from None

    def _emitparse(self, code):
        code.append(_IMPORTS.format(self.helpers[0]))
        args = self._args_code()
        return f"{self.helpers[0]}(io{', ' + args if args else ''})"

    def _emitbuild(self, code):
        code.append(_IMPORTS.format(self.helpers[1]))
        args = self._args_code()
        return f"{self.helpers[1]}(obj, io{', ' + args if args else ''})"

    def _sizeof(self, context, path):
        raise SizeofError("Kafka variable-length field", path=path)


def _nullable_code(nullable_from: int | None) -> str:
    if nullable_from is None:
        return "False"
    return "True" if nullable_from == 0 else f"({_VERSION} >= {nullable_from})"


def _compact_code(compact: bool | None) -> str:
    return _FLEXIBLE if compact is None else repr(compact)


def _nullable_at(nullable_from: int | None, context) -> bool:
    return nullable_from is not None and context._params.version >= nullable_from


def _compact_at(compact: bool | None, context) -> bool:
    return bool(context._params.flexible) if compact is None else compact


class _LengthPrefixed(_Primitive):
    """Shared shape of strings and bytes: nullable from some version, classic or compact."""

    def __init__(self, nullable_from: int | None = None, compact: bool | None = None) -> None:
        super().__init__()
        self.nullable_from = nullable_from
        self.compact = compact

    def _args_code(self) -> str:
        return f"{_nullable_code(self.nullable_from)}, {_compact_code(self.compact)}"

    def _args(self, context) -> tuple:
        return _nullable_at(self.nullable_from, context), _compact_at(self.compact, context)


class KafkaString(_LengthPrefixed):
    """``string``: int16 length (classic) or uvarint length+1 (compact); UTF-8."""

    helpers = ("read_string", "write_string")


class KafkaBytes(_LengthPrefixed):
    """``bytes``: int32 length (classic) or uvarint length+1 (compact)."""

    helpers = ("read_bytes", "write_bytes")


class KafkaBool(_Primitive):
    """``bool``: one byte, any non-zero value reads as true (like Java)."""

    helpers = ("read_bool", "write_bool")


class KafkaUuid(_Primitive):
    """``uuid``: 16 raw bytes (Metadata v10+ topic ids)."""

    helpers = ("read_uuid", "write_uuid")


class KafkaTaggedFields(_Primitive):
    """The tagged-field section of flexible versions; absent otherwise. Tags are kept raw."""

    helpers = ("read_tagged_fields_if", "write_tagged_fields")

    def _args_code(self) -> str:
        return _FLEXIBLE

    def _args(self, context) -> tuple:
        return (bool(context._params.flexible),)


class KafkaArray(Subconstruct):
    """``[]T``: int32 count (classic) or uvarint count+1 (compact), then the elements."""

    def __init__(self, subcon, nullable_from: int | None = None, compact: bool | None = None):
        super().__init__(subcon)
        self.nullable_from = nullable_from
        self.compact = compact
        self.element_size = subcon.length if isinstance(subcon, FormatField) else 1

    def _count_args(self) -> str:
        return f"{_nullable_code(self.nullable_from)}, {_compact_code(self.compact)}"

    def _count_flags(self, context) -> tuple[bool, bool]:
        return _nullable_at(self.nullable_from, context), _compact_at(self.compact, context)

    def _parse(self, stream, context, path):
        nullable, compact = self._count_flags(context)
        try:
            count = wire.read_count(stream, nullable, compact, self.element_size)
        except CodecError as exc:
            raise _with_path(exc, path) from None
        if count is None:
            return None
        return [self.subcon._parsereport(stream, context, f"{path}[{i}]") for i in range(count)]

    def _build(self, obj, stream, context, path):
        nullable, compact = self._count_flags(context)
        try:
            present = wire.write_count(obj, stream, nullable, compact)
        except CodecError as exc:
            raise _with_path(exc, path) from None
        for index, item in enumerate(obj if present else ()):
            self.subcon._build(item, stream, context, f"{path}[{index}]")
        return obj

    def _emitparse(self, code):
        code.append(_IMPORTS.format("read_count"))
        fname = f"parse_kafka_array_{code.allocateId()}"
        code.append(f"""
            def {fname}(io, this):
                count = read_count(io, {self._count_args()}, {self.element_size})
                if count is None:
                    return None
                return [{self.subcon._compileparse(code)} for _ in range(count)]
        """)
        return f"{fname}(io, this)"

    def _emitbuild(self, code):
        code.append(_IMPORTS.format("write_count"))
        fname = f"build_kafka_array_{code.allocateId()}"
        code.append(f"""
            def {fname}(obj, io, this):
                items = obj
                if write_count(items, io, {self._count_args()}):
                    for obj in items:
                        {self.subcon._compilebuild(code)}
                return items
        """)
        return f"{fname}(obj, io, this)"


class Since(Subconstruct):
    """A field present in versions ``first``..``last`` (inclusive) and absent otherwise.

    Absent fields parse to ``default``. Building an absent field with a non-default value is
    an error unless the schema marks it ``ignorable`` (then it is silently dropped, as in Java).
    """

    def __init__(self, first, subcon, *, last=None, default=None, ignorable=False):
        super().__init__(subcon)
        self.first = first
        self.last = last
        self.default = default
        self.ignorable = ignorable
        self.flagbuildnone = True

    def present(self, version: int) -> bool:
        return self.first <= version and (self.last is None or version <= self.last)

    def _condition(self) -> str:
        upper = "" if self.last is None else f" and {_VERSION} <= {self.last}"
        return f"({_VERSION} >= {self.first}{upper})"

    def _parse(self, stream, context, path):
        if self.present(context._params.version):
            return self.subcon._parsereport(stream, context, path)
        return self.default

    def _build(self, obj, stream, context, path):
        version = context._params.version
        if self.present(version):
            return self.subcon._build(obj, stream, context, path)
        try:
            return wire.check_absent(obj, self.default, self.ignorable, version, self.first)
        except CodecError as exc:
            raise _with_path(exc, path) from None

    def _emitparse(self, code):
        return f"(({self.subcon._compileparse(code)}) if {self._condition()} else {self.default!r})"

    def _emitbuild(self, code):
        code.append(_IMPORTS.format("check_absent"))
        absent = (f"check_absent(obj, {self.default!r}, {self.ignorable!r}, {_VERSION},"
                  f" {self.first})")
        return f"(({self.subcon._compilebuild(code)}) if {self._condition()} else {absent})"


class ValidVersions(Construct):
    """Zero-width guard naming a nested struct's highest version (Java checks it on read)."""

    def __init__(self, first: int, last: int, name: str) -> None:
        super().__init__()
        self.first, self.last, self.struct_name = first, last, name
        self.flagbuildnone = True

    def _parse(self, stream, context, path):
        wire.check_version(context._params.version, self.last, self.struct_name)

    def _build(self, obj, stream, context, path):
        wire.check_version(context._params.version, self.last, self.struct_name)

    def _sizeof(self, context, path):
        return 0

    def _emitparse(self, code):
        code.append(_IMPORTS.format("check_version"))
        return f"check_version({_VERSION}, {self.last}, {self.struct_name!r})"

    _emitbuild = _emitparse


_HELPERS = {
    name: getattr(wire, name)
    for name in (
        "read_string", "write_string", "read_bytes", "write_bytes", "read_bool", "write_bool",
        "read_tagged_fields_if", "write_tagged_fields", "read_uuid", "write_uuid",
    )
}

# The vocabulary of the declarations: flexible-aware unless named Classic*.
String = KafkaString()
NullableString = KafkaString(nullable_from=0)
Bytes = KafkaBytes()
NullableBytes = KafkaBytes(nullable_from=0)
Bool = KafkaBool()
Uuid = KafkaUuid()
TaggedFields = KafkaTaggedFields()
ClassicNullableString = KafkaString(nullable_from=0, compact=False)


def NullableStringSince(version: int) -> KafkaString:  # noqa: N802 - reads like a type
    """A string that became nullable at ``version`` (e.g. JoinGroupResponse ProtocolName)."""
    return KafkaString(nullable_from=version)


def Array(subcon) -> KafkaArray:  # noqa: N802 - reads like a type
    return KafkaArray(subcon)


def NullableArray(subcon, since: int = 0) -> KafkaArray:  # noqa: N802 - reads like a type
    """An array that may be null from version ``since`` (a negative count, or compact 0)."""
    return KafkaArray(subcon, nullable_from=since)
