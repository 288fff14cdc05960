"""Running declarations: compiled first, the interpreter for error reports, typed results.

The compiled parser is what runs. Generated code carries no field path, so when it fails the
same bytes go through the interpreted declaration, whose error names the construct path and the
byte offset. Containers are turned into the frozen dataclasses of :mod:`.types` here and never
leave the package.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Mapping
from dataclasses import fields
from functools import cached_property
from io import BytesIO
from typing import Any, Generic, TypeVar

from construct import Construct, ConstructError, Renamed

from .errors import CodecError, EncodeError, MalformedError
from .primitives import KafkaArray, Since
from .types import UNKNOWN_TAGS, Message

__all__ = [
    "COMPILED_PARSE_REFUSALS",
    "Format",
    "as_bytes",
    "from_value",
    "to_build_dict",
    "to_model",
]

M = TypeVar("M", bound=Message)
#: how generated parsers refuse bytes: our helpers' CodecError, construct's own errors, and
#: struct.error from the int fields' inlined unpack; anything else is a bug and propagates
COMPILED_PARSE_REFUSALS = (CodecError, ConstructError, struct.error)
_PATH_NOISE = re.compile(r"^\((?:parsing|building)\)(?: -> )?")


class Format(Generic[M]):
    """One declaration, its lazily compiled twin and the dataclass it decodes into."""

    def __init__(self, name: str, struct: Construct, model: type[M]) -> None:
        self.name = name
        self.struct = struct
        self.model = model
        bind_windows(model, struct)

    @cached_property
    def compiled(self) -> Construct:
        return self.struct.compile()

    def parse(self, data: bytes, *, version: int, flexible: bool, start: int = 0):
        """Parse from ``start``; returns ``(container, end_offset)``. Trailing bytes are left."""
        try:
            return _run_parse(self.compiled, data, start, version, flexible)
        except COMPILED_PARSE_REFUSALS:  # generated code has no path; re-run for the report
            pass
        try:
            return _run_parse(self.struct, data, start, version, flexible)
        except CodecError as exc:
            raise _tidy(exc) from None
        except Exception as exc:  # noqa: BLE001 - nothing but CodecError may escape
            raise MalformedError(f"{type(exc).__name__}: {exc}") from None

    def build(self, value: Mapping[str, Any], *, version: int, flexible: bool) -> bytes:
        try:
            return self.compiled.build(value, version=version, flexible=flexible)
        except Exception:  # noqa: BLE001 - re-run interpreted for a precise report
            pass
        try:
            return self.struct.build(value, version=version, flexible=flexible)
        except CodecError as exc:
            raise _tidy(exc) from None
        except KeyError as exc:
            raise EncodeError(f"missing field {exc}") from None
        except Exception as exc:  # noqa: BLE001
            raise EncodeError(f"{type(exc).__name__}: {exc}") from None

    def decode(self, data: bytes, *, version: int, flexible: bool, **extra: Any) -> M:
        """Typed result; top-level models also get ``version`` unless ``extra`` says otherwise."""
        container, _ = self.parse(as_bytes(data), version=version, flexible=flexible)
        if "version" in self.model.__dataclass_fields__:  # type: ignore[attr-defined]
            extra.setdefault("version", version)
        return to_model(self.model, container, **extra)

    def encode(self, message: Message, *, version: int, flexible: bool) -> bytes:
        return self.build(to_build_dict(message), version=version, flexible=flexible)


def _run_parse(parser: Construct, data: bytes, start: int, version: int, flexible: bool):
    stream = BytesIO(data)
    stream.seek(start)
    container = parser.parse_stream(stream, version=version, flexible=flexible)
    return container, stream.tell()


def _tidy(exc: CodecError) -> CodecError:
    """construct's "(parsing) -> a[2] -> b" becomes "a[2].b"."""
    if exc.path is not None:
        exc.path = _PATH_NOISE.sub("", exc.path).replace(" -> ", ".") or None
    return exc


def as_bytes(data: Any) -> bytes:
    if isinstance(data, bytes):
        return data
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    raise MalformedError(f"expected bytes, got {type(data).__name__}")


# --------------------------------------------------------------------------- declarations -> models
def bind_windows(model: type[Message], struct: Construct) -> None:
    """Record on ``model`` (and its nested models) which versions hold each field."""
    windows: dict[str, tuple[int, int | None]] = {}
    for subcon in getattr(struct, "subcons", ()):
        if not isinstance(subcon, Renamed):
            continue
        inner = subcon.subcon
        if isinstance(inner, Since):
            windows[subcon.name] = (inner.first, inner.last)
            inner = inner.subcon
        element = model._elements.get(subcon.name)
        if element is not None and isinstance(inner, KafkaArray):
            bind_windows(element, inner.subcon)
    model._windows = windows


_PLANS: dict[type, tuple[tuple[str, type[Message] | None], ...]] = {}


def _plan(model: type[Message]) -> tuple[tuple[str, type[Message] | None], ...]:
    """Field names and nested models, in declaration order (cached per model)."""
    plan = _PLANS.get(model)
    if plan is None:
        items = fields(model)  # type: ignore[arg-type]
        plan = _PLANS[model] = tuple((item.name, model._elements.get(item.name)) for item in items)
    return plan


def to_model(model: type[M], container: Mapping[str, Any], **extra: Any) -> M:
    """A parsed container as a frozen dataclass; lists become tuples."""
    kwargs: dict[str, Any] = {}
    for name, element in _plan(model):
        if name in extra:
            kwargs[name] = extra[name]
            continue
        value = container["tagged_fields" if name == UNKNOWN_TAGS else name]
        if element is not None and value is not None:
            value = tuple(to_model(element, item) for item in value)
        elif isinstance(value, list):
            value = tuple(value)
        kwargs[name] = value
    return model(**kwargs)


def from_value(model: type[M], value: Any, version: int | None = None) -> M:
    """A typed object or a plain dict (snake_case keys) as ``model``.

    A dict has no version of its own; ``version`` is stored on top-level models.
    """
    if isinstance(value, model):
        return value
    if not isinstance(value, Mapping):
        raise EncodeError(f"expected {model.__name__} or a dict, got {type(value).__name__}")
    kwargs = dict(value)
    if version is not None and "version" in model.__dataclass_fields__:  # type: ignore[attr-defined]
        kwargs["version"] = version
    try:
        for name, element in model._elements.items():
            if kwargs.get(name) is not None:
                kwargs[name] = tuple(from_value(element, item) for item in kwargs[name])
        return model(**kwargs)
    except CodecError:
        raise
    except TypeError as exc:
        raise EncodeError(f"{model.__name__}: {exc}") from None


def to_build_dict(message: Message) -> dict[str, Any]:
    """The mapping a declaration builds from (tagged fields under ``tagged_fields``)."""
    out: dict[str, Any] = {}
    try:
        for name, element in _plan(type(message)):
            value = getattr(message, name)
            if element is not None and value is not None:
                value = [to_build_dict(item) for item in value]
            out["tagged_fields" if name == UNKNOWN_TAGS else name] = value
    except CodecError:
        raise
    except Exception as exc:  # noqa: BLE001 - e.g. a non-iterable where a list belongs
        raise EncodeError(f"{type(message).__name__}: {exc}") from None
    return out
