"""ConsumerProtocol payloads inside JoinGroup/SyncGroup, as JSON-ready dicts.

Subscriptions and assignments are read by :mod:`assignframe_codec`; the user data inside a
subscription is read according to the protocol (assignor) name the group chose:

=========================  ============================================================
protocol                   user data read as
=========================  ============================================================
``sticky``                 StickyAssignor V1 (previous assignment + generation), else V0;
                           else kafka-python's layout: int16 version (0/1), then V0/V1
``cooperative-sticky``     4 bytes: Java's int32 generation; longer: librdkafka's layout,
                           which is the sticky V1 layout (previous assignment + generation)
anything else              not decoded (hex only)
=========================  ============================================================

Empty and null user data both decode to ``None`` (the hex field keeps them apart).
"""

from __future__ import annotations

from typing import Any

import assignframe_codec as codec

__all__ = ["hex_or_none", "read_assignment", "read_subscription", "read_user_data"]


def hex_or_none(data: bytes | None) -> str | None:
    return None if data is None else bytes(data).hex()


def _pairs(groups: Any) -> list[list[Any]]:
    return [[group.topic, partition] for group in groups or () for partition in group.partitions]


_COOPERATIVE_LAYOUTS = {
    "java-generation": "cooperative-sticky generation (Java)",
    "sticky-v1": "cooperative-sticky in the sticky V1 layout (librdkafka)",
}


def read_user_data(protocol: str | None, user_data: bytes | None) -> dict[str, Any] | None:
    """A subscription's user data read for the group's protocol; None when there is nothing to read.

    :raises assignframe_codec.CodecError: the bytes are not what the protocol says
    """
    if not user_data or protocol not in ("sticky", "cooperative-sticky"):
        return None
    if protocol == "cooperative-sticky":
        cooperative = codec.decode_cooperative_user_data(user_data)
        previous = cooperative.previous_assignment
        result: dict[str, Any] = {
            "layout": _COOPERATIVE_LAYOUTS.get(cooperative.layout, cooperative.layout),
            "generation": cooperative.generation,
        }
        if previous is not None:
            result["previous_assignment"] = _pairs(previous)
        return result
    layout_prefix = "sticky"
    try:
        sticky = codec.decode_sticky_user_data(user_data)
    except codec.CodecError:
        # kafka-python (3.0.x) writes an int16 version before the V0/V1 struct; Java cannot read it
        version = int.from_bytes(user_data[:2], "big") if len(user_data) >= 2 else -1
        if version not in (0, 1):
            raise
        sticky = codec.decode_sticky_user_data(user_data[2:], version)
        layout_prefix = "kafka-python sticky (int16 version prefix)"
    return {
        "layout": f"{layout_prefix} {sticky.layout}",
        "previous_assignment": _pairs(sticky.previous_assignment),
        "generation": sticky.generation,
    }


def read_subscription(metadata: bytes | None, protocol: str | None) -> dict[str, Any]:
    """A member's JoinGroup metadata: hex, and the decoded subscription (or the error)."""
    result: dict[str, Any] = {"hex": hex_or_none(metadata)}
    if metadata is None:
        result["error"] = "no metadata"
        return result
    try:
        subscription = codec.decode_subscription(metadata)
    except codec.CodecError as exc:
        result["error"] = f"CodecError: {exc}"
        return result
    result.update(
        version=subscription.version,
        topics=list(subscription.topics),
        owned_partitions=_pairs(subscription.owned_partitions),
        generation_id=subscription.generation_id,
        rack_id=subscription.rack_id,
        user_data=hex_or_none(subscription.user_data),
    )
    try:
        result["user_data_decoded"] = read_user_data(protocol, subscription.user_data)
    except codec.CodecError as exc:
        result["user_data_decoded"] = None
        result["user_data_error"] = f"CodecError: {exc}"
    return result


def read_assignment(data: bytes | None) -> dict[str, Any]:
    """A member's SyncGroup assignment: hex, and the decoded partitions (or the error)."""
    result: dict[str, Any] = {"hex": hex_or_none(data)}
    if data is None:
        result["error"] = "no assignment bytes"
        return result
    if not data:
        # an empty assignment (no partitions) is legal: Java writes nothing for some members
        result.update(version=None, partitions=[], user_data=None)
        return result
    try:
        assignment = codec.decode_assignment(data)
    except codec.CodecError as exc:
        result["error"] = f"CodecError: {exc}"
        return result
    result.update(
        version=assignment.version,
        partitions=_pairs(assignment.assigned_partitions),
        user_data=hex_or_none(assignment.user_data),
    )
    return result
