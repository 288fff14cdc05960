"""Where the shared golden data lives, and small helpers to compare against it.

The data is found through ``ASSIGNFRAME_SHARED`` or by walking up from this file to a directory
that has a ``shared/golden`` child (CI: ``<clone>/../shared``). Missing data is an error, never
a skip: a codec that is not checked against Java is not tested.
"""

from __future__ import annotations

import json
import os
from dataclasses import fields
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import assignframe_codec as codec
from assignframe_codec.types import UNKNOWN_TAGS, Message


@lru_cache(maxsize=1)
def shared_dir() -> Path:
    configured = os.environ.get("ASSIGNFRAME_SHARED")
    if configured:
        path = Path(configured)
        if not (path / "golden").is_dir():
            raise RuntimeError(f"ASSIGNFRAME_SHARED={configured} has no golden/ directory")
        return path
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared"
        if (candidate / "golden").is_dir():
            return candidate
    raise RuntimeError(
        "shared golden data not found: set ASSIGNFRAME_SHARED or put shared/ beside the clone"
    )


@cache
def load_jsonl(name: str) -> tuple[dict, ...]:
    with open(shared_dir() / "golden" / name, encoding="utf-8") as lines:
        return tuple(json.loads(line) for line in lines if line.strip())


def golden(type_name: str | None = None) -> list[dict]:
    rows = load_jsonl("codec.jsonl")
    return [row for row in rows if type_name is None or row["type"] == type_name]


def golden_bad() -> list[dict]:
    return list(load_jsonl("codec_bad.jsonl"))


def case_id(row: dict) -> str:
    return f"{row['type']}-v{row.get('version')}-{row.get('case', row.get('hex', '')[:16])}"


def hexify(value: Any) -> Any:
    """Bytes as lowercase hex, recursively, the way the golden files write them."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, dict):
        return {key: hexify(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [hexify(item) for item in value]
    return value


def unhexify(model: type[Message], value: dict) -> dict:
    """A golden ``value`` with its bytes fields (per the model's annotations) back as bytes."""
    out = dict(value)
    for item in fields(model):  # type: ignore[arg-type]
        if item.name not in out or out[item.name] is None or item.name == UNKNOWN_TAGS:
            continue
        element = model._elements.get(item.name)
        if element is not None:
            out[item.name] = [unhexify(element, nested) for nested in out[item.name]]
        elif str(item.type).startswith("bytes"):
            out[item.name] = bytes.fromhex(out[item.name])
    return out


MODELS: dict[str, type[Message]] = {
    "ConsumerProtocolSubscription": codec.Subscription,
    "ConsumerProtocolAssignment": codec.Assignment,
    "StickyAssignorUserData": codec.StickyUserData,
    "CooperativeStickyAssignorUserData": codec.CooperativeUserData,
    "JoinGroupRequest": codec.JoinGroupRequest,
    "JoinGroupResponse": codec.JoinGroupResponse,
    "SyncGroupRequest": codec.SyncGroupRequest,
    "SyncGroupResponse": codec.SyncGroupResponse,
    "GroupMetadataKey": codec.GroupMetadataKey,
    "GroupMetadataValue": codec.GroupMetadataValue,
    "OffsetCommitKey": codec.OffsetCommitKey,
    "OffsetCommitValue": codec.OffsetCommitValue,
}


def flat_pairs(groups: Any) -> list[list[Any]]:
    """TopicPartitions groups as the golden ``[[topic, partition], ...]`` lists."""
    return [[group.topic, partition] for group in groups for partition in group.partitions]


def java_subscription_view(subscription: codec.Subscription) -> dict:
    """A decoded Subscription in the shape of the golden ``decoded_subscription``."""
    return {
        "topics": list(subscription.topics),
        "user_data": hexify(subscription.user_data),
        "owned_partitions": flat_pairs(subscription.owned_partitions),
        "generation_id": None if subscription.generation_id < 0 else subscription.generation_id,
        "rack_id": subscription.rack_id,
    }


def java_assignment_view(assignment: codec.Assignment) -> dict:
    return {
        "partitions": flat_pairs(assignment.assigned_partitions),
        "user_data": hexify(assignment.user_data),
    }
