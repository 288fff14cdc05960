"""Typed models for the flexible (KIP-848) declarations, generated from the declarations.

:func:`message_model` turns a construct ``Struct`` into a frozen dataclass (a
:class:`.types.Message`): one field per declared field, known tagged fields included, nested
structs as nested models, ``unknown_tagged_fields`` for the raw unknown tags, and ``version`` on
top-level models. A field is therefore declared once: in its ``Struct``.
:class:`FlexibleFormat` is the :class:`.engine.Format` that decodes into these models.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

from construct import Construct, Container, Renamed, Struct

from .engine import Format, as_bytes, bind_windows
from .errors import CodecError, EncodeError, MalformedError
from .flexible import RAW_UNKNOWN, NullableStruct, TaggedSection, Uuid
from .primitives import (
    KafkaArray,
    KafkaBool,
    KafkaBytes,
    KafkaString,
    KafkaTaggedFields,
    Since,
)
from .types import UNKNOWN_TAGS, Message

__all__ = ["FlexibleFormat", "as_model", "from_parsed", "message_model", "to_build", "to_model"]


@dataclasses.dataclass(frozen=True)
class _Slot:
    """How one model field maps to the parsed container."""

    name: str
    nested: type[Message] | None = None  # model of a struct or of an array's elements
    array: bool = False
    tagged: bool = False
    raw_tags: bool = False  # a classic-codec section of unknown tags only (records.py)


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def _nested_model(owner: str, name: str, inner: Construct) -> tuple[type[Message] | None, bool]:
    if isinstance(inner, NullableStruct):
        inner = inner.subcon
    if isinstance(inner, KafkaArray):
        element = inner.subcon
        if isinstance(element, Struct):
            return message_model(owner + _camel(name), element, top=False), True
        return None, True
    if isinstance(inner, Struct):
        return message_model(owner + _camel(name), inner, top=False), False
    return None, False


def _annotation(inner: Construct, nested: type[Message] | None, array: bool) -> str:
    """The field's type as a string (models are made at run time, never type-checked)."""
    nullable = getattr(inner, "nullable_from", None) is not None  # at some version at least
    optional = nullable or isinstance(inner, NullableStruct)
    if array:
        text = f"tuple[{nested.__name__ if nested else 'Any'}, ...]"
    elif nested is not None:
        text = nested.__name__
    elif isinstance(inner, KafkaBytes):
        text = "bytes"
    elif isinstance(inner, KafkaString) or inner is Uuid:
        text = "str"
    else:
        text = "bool" if isinstance(inner, KafkaBool) else "int"
    return f"{text} | None" if optional else text


def message_model(name: str, struct: Struct, *, top: bool = True) -> type[Message]:
    """A frozen dataclass for ``struct``: one field per declared field (tagged ones included),
    ``unknown_tagged_fields`` when the struct has a tagged section, ``version`` on top models.

    Fields absent from some versions and tagged fields default to their declared default.
    """
    names = {getattr(subcon, "name", None) for subcon in struct.subcons}
    message_version = top and "version" not in names
    specs: list[tuple] = [("version", "int")] if message_version else []
    slots: list[_Slot] = []
    for subcon in struct.subcons:
        if not isinstance(subcon, Renamed):
            continue
        inner = subcon.subcon
        if isinstance(inner, TaggedSection):
            for item in inner.tags:
                nested, array = _nested_model(name, item.name, item.subcon)
                default = _model_default(item.default, nested, array)
                specs.append((item.name, _annotation(item.subcon, nested, array),
                              dataclasses.field(default=default)))
                slots.append(_Slot(item.name, nested, array, tagged=True))
            specs.append((UNKNOWN_TAGS, "tuple", dataclasses.field(default=())))
            continue
        if isinstance(inner, KafkaTaggedFields):
            specs.append((UNKNOWN_TAGS, "tuple", dataclasses.field(default=())))
            slots.append(_Slot(subcon.name, raw_tags=True))
            continue
        since = inner if isinstance(inner, Since) else None
        inner = since.subcon if since else inner
        nested, array = _nested_model(name, subcon.name, inner)
        spec: tuple = (subcon.name, _annotation(inner, nested, array))
        if since is not None:
            spec += (dataclasses.field(default=_model_default(since.default, nested, array)),)
        specs.append(spec)
        slots.append(_Slot(subcon.name, nested, array))
    base = Message if message_version or not top else _VersionFieldMessage
    model: Any = dataclasses.make_dataclass(name, specs, bases=(base,), frozen=True,
                                            kw_only=True)
    model._message_version = message_version
    model._elements = {slot.name: slot.nested for slot in slots if slot.array and slot.nested}
    model._slots_plan = tuple(slots)
    model._parsed_plan = tuple((slot.name, slot.nested, slot.array, slot.tagged, slot.raw_tags)
                               for slot in slots)
    model.__module__ = __name__
    return model


class _VersionFieldMessage(Message):
    """Base of a top-level model whose schema has a field named ``version``
    (ConsumerGroupRegularExpressionValue): that field is data, not the message version."""

    __slots__ = ()

    def to_dict(self, version: int | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for item in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, item.name)
            if item.name == UNKNOWN_TAGS and not value:
                continue
            out[item.name] = plain_value(value)
        return out


def plain_value(value: Any) -> Any:
    """A model's value as to_dict() shows it (nested models as dicts, tuples as lists)."""
    if isinstance(value, Message):
        return value.to_dict(None)
    if isinstance(value, tuple):
        return [plain_value(item) for item in value]
    return value


def as_model(model: type[Message], given: Any, version: int | None = None) -> Any:
    """A typed value or a plain dict (snake_case, the shape ``to_dict`` gives) as ``model``."""
    if isinstance(given, model):
        return given
    if not isinstance(given, Mapping):
        raise EncodeError(f"expected {model.__name__} or a dict, got {type(given).__name__}")
    extra = {"version": version} if getattr(model, "_message_version", False) else {}
    try:
        return to_model(model, given, **extra)
    except TypeError as exc:
        raise EncodeError(f"{model.__name__}: {exc}") from None


def _model_default(default: Any, nested: type[Message] | None, array: bool) -> Any:
    if default is None:
        return None
    if nested is not None and not array:
        return to_model(nested, default)
    if isinstance(default, list):
        if nested is not None:
            return tuple(to_model(nested, item) for item in default)
        return tuple(default)
    return default


def model_plan(model: type[Message]) -> tuple[_Slot, ...]:
    return model._slots_plan  # type: ignore[attr-defined, no-any-return]


# --------------------------------------------------------------------------- container <-> model
def to_model(model: type[Message], container: Mapping[str, Any], **extra: Any) -> Any:
    """A parsed container (or a plain dict of the same shape) as ``model``."""
    tagged = container.get("tagged_fields")
    tagged = tagged if isinstance(tagged, Mapping) else {}
    kwargs: dict[str, Any] = dict(extra)
    for slot in model_plan(model):
        if slot.raw_tags:
            kwargs[UNKNOWN_TAGS] = tuple(tuple(pair) for pair in container.get(slot.name) or ())
            continue
        # a parsed container holds tagged fields in its section, a to_dict-shaped dict inline
        source = tagged if slot.tagged and slot.name in tagged else container
        if slot.name not in source:
            continue
        kwargs[slot.name] = _value_to_model(slot, source[slot.name])
    if UNKNOWN_TAGS in container:
        kwargs[UNKNOWN_TAGS] = tuple(tuple(pair) for pair in container[UNKNOWN_TAGS] or ())
    elif "tagged_fields" in container and UNKNOWN_TAGS not in kwargs:
        kwargs[UNKNOWN_TAGS] = tuple(tuple(pair) for pair in tagged.get(RAW_UNKNOWN, ()))
    return model(**kwargs)


def from_parsed(model: type[Message], container: Any, **extra: Any) -> Any:
    """What :func:`to_model` makes of a container that ``model``'s own declaration parsed, with
    none of the checks a caller's dict needs: such a container holds every declared field
    (absent ones at their default) and its known tags in its section. The decode hot path."""
    if not isinstance(container, Container):  # a declared default (a plain dict)
        return to_model(model, container, **extra)
    section = container.get("tagged_fields")
    kwargs = extra
    for name, nested, array, tagged, raw in model._parsed_plan:  # type: ignore[attr-defined]
        if raw:
            kwargs[UNKNOWN_TAGS] = tuple(tuple(pair) for pair in container[name] or ())
            continue
        value = section[name] if tagged else container[name]
        if value is not None:
            if array:
                value = tuple(value) if nested is None else tuple(
                    [from_parsed(nested, item) for item in value])
            elif nested is not None:
                value = from_parsed(nested, value)
        kwargs[name] = value
    if isinstance(section, dict):
        kwargs[UNKNOWN_TAGS] = tuple(tuple(pair) for pair in section[RAW_UNKNOWN])
    return model(**kwargs)


def _value_to_model(slot: _Slot, value: Any) -> Any:
    if value is None or isinstance(value, Message):
        return value
    if slot.array:
        if slot.nested is None:
            return tuple(value)
        return tuple(item if isinstance(item, Message) else to_model(slot.nested, item)
                     for item in value)
    if slot.nested is not None:
        return to_model(slot.nested, value)
    return value


def to_build(message: Any) -> dict[str, Any]:
    """The mapping a declaration builds from: tagged fields go into ``tagged_fields``."""
    if isinstance(message, Mapping):
        return dict(message)
    out: dict[str, Any] = {}
    tagged: dict[str, Any] = {RAW_UNKNOWN: list(getattr(message, UNKNOWN_TAGS, ()) or ())}
    for slot in model_plan(type(message)):
        if slot.raw_tags:
            out[slot.name] = tagged.pop(RAW_UNKNOWN)
            continue
        value = _value_to_build(slot, getattr(message, slot.name))
        (tagged if slot.tagged else out)[slot.name] = value
    if tagged:
        out["tagged_fields"] = tagged
    return out


def _value_to_build(slot: _Slot, value: Any) -> Any:
    if value is None or slot.nested is None:
        return list(value) if isinstance(value, tuple) else value
    if slot.array:
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            return value  # the array builder reports the wrong type with its path
        return [_struct_to_build(slot.nested, item) for item in value]
    return _struct_to_build(slot.nested, value)


def _struct_to_build(model: type[Message], value: Any) -> Any:
    if isinstance(value, Message):
        return to_build(value)
    if isinstance(value, Mapping):
        return to_build(to_model(model, value))
    return value


#: held while a format generates its model (see FlexibleFormat.model)
_GENERATING = threading.Lock()


class FlexibleFormat(Format):
    """A :class:`.engine.Format` whose model is generated from the declaration and whose
    values may hold nested structs and known tagged fields.

    The model is generated when first used (``model``), not when the format is declared:
    making a dataclass runs ``exec`` for each of its methods, and a process that reads one
    kind should not pay for the ~190 models of every kind the codec knows (issue 34).
    """

    def __init__(self, name: str, struct: Struct) -> None:
        # not Format.__init__: it binds a model given now, this one is made on first use
        self.name = name
        self.struct = struct

    @cached_property
    def model(self) -> type[Message]:  # type: ignore[override]
        """The generated dataclass, with the versions that hold each field bound to it."""
        with _GENERATING:  # two threads' first decodes must get one class, not two
            made = self.__dict__.get("model")
            if made is not None:
                return made  # type: ignore[no-any-return]
            model = message_model(self.name, self.struct)
            bind_windows(model, self.struct)
            tag_windows = {item.name: (item.first, None) for sub in self.struct.subcons
                           if isinstance(getattr(sub, "subcon", None), TaggedSection)
                           for item in sub.subcon.tags if item.first}
            model._windows = {**model._windows, **tag_windows}
            self.__dict__["model"] = model
            return model

    def decode(self, data: bytes, *, version: int, flexible: bool, **extra: Any) -> Any:
        container, _ = self.parse(as_bytes(data), version=version, flexible=flexible)
        if self.model._message_version:  # type: ignore[attr-defined]
            extra.setdefault("version", version)
        try:
            return from_parsed(self.model, container, **extra)
        except TypeError as exc:  # pragma: no cover - a declaration/model mismatch
            raise MalformedError(f"{self.name}: {exc}") from None

    def encode(self, message: Message, *, version: int, flexible: bool) -> bytes:
        try:
            mapping = to_build(message)
        except CodecError:
            raise
        except (TypeError, ValueError, AttributeError) as exc:
            raise EncodeError(f"{self.name}: {exc}") from None
        return self.build(mapping, version=version, flexible=flexible)

