"""The KIP-848 golden data (../shared/golden/kip848) and helpers to compare against it."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from assignframe_codec.flexible_models import model_plan
from assignframe_codec.types import UNKNOWN_TAGS, Message
from codec_shared import hexify, load_jsonl


def kip848_golden(kind: str | None = None) -> list[dict]:
    return [row for row in load_jsonl("kip848/codec.jsonl") if kind is None or row["kind"] == kind]


def kip848_bad(kind: str | None = None) -> list[dict]:
    return [row for row in load_jsonl("kip848/codec_bad.jsonl")
            if kind is None or row["kind"] == kind]


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
