"""The golden sets written as Java's generated JsonConverter views (../shared/golden/kip848 and
../shared/golden/admin: snake_case fields, bytes as hex, uuids as ``Uuid.toString()``, tagged
fields always present) and helpers to compare decoded messages against them."""

from __future__ import annotations

import json
import re
from dataclasses import fields
from pathlib import Path
from typing import Any

import assignframe_codec as codec
from assignframe_codec.flexible_models import FlexibleFormat, model_plan
from assignframe_codec.registry import message_codec
from assignframe_codec.types import UNKNOWN_TAGS, Message
from codec_shared import hexify, load_jsonl, unhexify


def kip848_golden(kind: str | None = None) -> list[dict]:
    return [row for row in load_jsonl("kip848/codec.jsonl") if kind is None or row["kind"] == kind]


def kip848_bad(kind: str | None = None) -> list[dict]:
    return [row for row in load_jsonl("kip848/codec_bad.jsonl")
            if kind is None or row["kind"] == kind]


def admin_golden() -> list[dict]:
    """The cluster reader's bodies (golden/admin/codec.jsonl, and Kafka 4.3.1's
    DescribeShareGroupOffsets and DescribeConfigs: :func:`golden43`), all ``kind: api``."""
    return list(load_jsonl("admin/codec.jsonl")) + golden43()


def golden43() -> list[dict]:
    """DescribeShareGroupOffsets v0-1 and DescribeConfigs v1-4 as Kafka 4.3.1's own message
    classes write them (golden43/make_golden.sh; not yet in ../shared/golden)."""
    rows: list[dict] = []
    for name in ("describe_share_group_offsets.jsonl", "describe_configs.jsonl"):
        with open(Path(__file__).parent / "golden43" / name, encoding="utf-8") as lines:
            rows += [json.loads(line) for line in lines if line.strip()]
    return rows


def admin_bad() -> list[dict]:
    return list(load_jsonl("admin/codec_bad.jsonl"))


def row_id(row: dict) -> str:
    return f"{row['type']}-v{row.get('version')}-{row['case']}"


def split_unknown(value: Any, path: tuple = ()) -> tuple[Any, list[dict]]:
    """A ``to_dict`` view without its nested ``unknown_tagged_fields``, and those fields in the
    golden ``[{"path", "tag", "hex"}]`` form."""
    found: list[dict] = []
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key == UNKNOWN_TAGS:
                found += [{"path": list(path), "tag": tag, "hex": bytes(raw).hex()}
                          for tag, raw in item]
                continue
            out[key], nested = split_unknown(item, path + (key,))
            found += nested
        return out, found
    if isinstance(value, list):
        items = []
        for index, item in enumerate(value):
            plain, nested = split_unknown(item, path + (index,))
            items.append(plain)
            found += nested
        return items, found
    return value, found


def java_view(message: Message) -> tuple[dict, list[dict]]:
    """A decoded message as the golden ``value`` (bytes as hex) and its unknown tags."""
    value, unknown = split_unknown(message.to_dict())
    return hexify(value), unknown


def unhex_value(model: type[Message], value: dict) -> dict:
    """A golden ``value`` with its bytes fields (per the generated model) back as bytes."""
    out = dict(value)
    types = {item.name: str(item.type) for item in fields(model)}  # type: ignore[arg-type]
    for slot in model_plan(model):
        item = out.get(slot.name)
        if item is None:
            continue
        if slot.nested is not None:
            out[slot.name] = ([unhex_value(slot.nested, entry) for entry in item] if slot.array
                              else unhex_value(slot.nested, item))
        elif types[slot.name].startswith("bytes"):
            out[slot.name] = bytes.fromhex(item)
    return out


def with_unknown(value: dict, unknown: list[dict]) -> dict:
    """``value`` with the golden unknown tagged fields put back where their path says."""
    out = _deep_copy(value)
    for entry in unknown:
        target = out
        for step in entry["path"]:
            target = target[step]
        target.setdefault(UNKNOWN_TAGS, []).append((entry["tag"], bytes.fromhex(entry["hex"])))
    return out


def _deep_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _deep_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_deep_copy(item) for item in value]
    return value


# --------------------------------------------------------------------------- raw-uuid kinds
def _raw_uuids(kind: str) -> bool:
    """Kinds with hand-written models (Metadata) keep topic ids as 16 raw bytes; the generated
    models hold Kafka's uuid string, as Java's JSON view does."""
    found = message_codec(kind)
    return found is not None and not isinstance(found.fmt, FlexibleFormat)


def _uuids_as_hex(value: Any, uuid_hex: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {key: uuid_hex[item] if key == "topic_id" and isinstance(item, str)
                else _uuids_as_hex(item, uuid_hex) for key, item in value.items()}
    if isinstance(value, list):
        return [_uuids_as_hex(item, uuid_hex) for item in value]
    return value


def golden_value(row: dict) -> dict:
    """A golden ``value`` as this codec's ``to_dict`` shows it, bytes as hex."""
    if _raw_uuids(row["type"]):
        return _uuids_as_hex(row["value"], row.get("uuid_hex", {}))
    return row["value"]


def golden_input(row: dict) -> dict:
    """A golden ``value`` (plus its unknown tagged fields) as ``encode`` takes it."""
    model = message_codec(row["type"]).fmt.model
    if _raw_uuids(row["type"]):
        return unhexify(model, golden_value(row))
    return with_unknown(unhex_value(model, row["value"]), row.get("unknown_tagged_fields", []))


# --------------------------------------------------------------------------- Java's exceptions
# What Java threw, as the CodecError subclass we raise for the same bytes.
_JAVA_TO_OURS = (
    ("UnknownRecordTypeException", codec.UnknownKindError),
    ("UnknownRecordVersionException", codec.InvalidVersionError),
    ("Varint is too long", codec.MalformedError),
    ("was serialized as null", codec.MalformedError),
    ("BufferUnderflowException", codec.TruncatedError),
    ("Error reading byte array", codec.TruncatedError),
    ("Tried to allocate a collection", codec.TruncatedError),
    ("Could not read version from", codec.TruncatedError),
)

# Java's messages name a field as "non-nullable field groupId" / "string field memberId".
_JAVA_FIELD = re.compile(r"(?:non-nullable field|string field|write a non-default) (\w+)")


def expected_error(exception: dict) -> type[codec.CodecError]:
    """The CodecError subclass that stands for what Java threw (its class and message)."""
    text = " ".join(str(value) for value in exception.values())
    for marker, ours in _JAVA_TO_OURS:
        if marker in text:
            return ours
    return codec.CodecError


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def java_field(exception: dict) -> str | None:
    """The field Java's message names, in snake_case, if it names one."""
    text = " ".join(str(exception.get(key) or "") for key in ("message", "cause_message"))
    found = _JAVA_FIELD.search(text)
    return _snake(found.group(1)) if found else None
