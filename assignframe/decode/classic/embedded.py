"""ConsumerProtocol payloads inside JoinGroup/SyncGroup, as JSON-ready dicts.

Subscriptions and assignments are read by :mod:`assignframe_codec`. The user data inside a
subscription belongs to the strategy the group chose: it is read by that strategy's own
``decode_user_data`` hook when the strategy is installed (and shown through its
``describe_user_data``), else shown as hex with the note "no installed strategy reads it". No
strategy's layout is known here.

Empty and null user data both read as ``None`` (the hex field keeps them apart).
"""

from __future__ import annotations

from typing import Any

import assignframe_codec as codec

from ...errors import AssignframeError
from ...plugins.manager import PluginManager, get_plugin_manager
from ...snapshot.schema import hex_or_none

__all__ = [
    "read_assignment",
    "read_assignment_typed",
    "read_subscription",
    "read_subscription_typed",
    "read_user_data",
]

NO_READER = "no installed strategy reads it"


def _pairs(groups: Any) -> list[list[Any]]:
    return [[group.topic, partition] for group in groups or () for partition in group.partitions]


def read_user_data(
    protocol: str | None,
    user_data: bytes | None,
    version: int = 3,
    member_id: str = "",
    manager: PluginManager | None = None,
) -> dict[str, Any] | None:
    """A subscription's user data read by the strategy named ``protocol``; None when empty.

    :returns: ``{"strategy", "value"}``, or ``{"strategy", "note"}`` when no installed strategy
        has that name
    :raises assignframe.UserDataError: the strategy cannot read the bytes
    """
    if not user_data:
        return None
    manager = manager or get_plugin_manager()
    if protocol is None or protocol not in manager.strategy_names():
        return {"strategy": protocol, "note": NO_READER}
    strategy = manager.strategy(protocol)
    decoded = manager.decode_user_data(strategy, member_id, user_data, version)
    return {"strategy": protocol, "value": strategy.describe_user_data(decoded)}


def read_subscription(
    metadata: bytes | None, protocol: str | None, member_id: str = ""
) -> dict[str, Any]:
    """A member's JoinGroup metadata: hex, and the decoded subscription (or the error)."""
    return read_subscription_typed(metadata, protocol, member_id)[0]


def read_subscription_typed(
    metadata: bytes | None, protocol: str | None, member_id: str = ""
) -> tuple[dict[str, Any], codec.Subscription | None]:
    """:func:`read_subscription`, and the decoded subscription it shows (None when there is
    none or it does not decode): the typed snapshot is built from it, not from the bytes again."""
    result: dict[str, Any] = {"hex": hex_or_none(metadata)}
    if metadata is None:
        result["error"] = "no metadata"
        return result, None
    try:
        subscription = codec.decode_subscription(metadata)
    except codec.CodecError as exc:
        result["error"] = f"CodecError: {exc}"
        return result, None
    result.update(
        version=subscription.version,
        topics=list(subscription.topics),
        owned_partitions=_pairs(subscription.owned_partitions),
        generation_id=subscription.generation_id,
        rack_id=subscription.rack_id,
        user_data=hex_or_none(subscription.user_data),
    )
    try:
        result["user_data_decoded"] = read_user_data(
            protocol, subscription.user_data, subscription.version, member_id
        )
    except AssignframeError as exc:
        result["user_data_decoded"] = None
        result["user_data_error"] = f"{type(exc).__name__}: {exc}"
    return result, subscription


def read_assignment(data: bytes | None) -> dict[str, Any]:
    """A member's SyncGroup assignment: hex, and the decoded partitions (or the error)."""
    return read_assignment_typed(data)[0]


def read_assignment_typed(data: bytes | None) -> tuple[dict[str, Any], codec.Assignment | None]:
    """:func:`read_assignment`, and the decoded assignment it shows (None when there are no
    bytes, they are empty, or they do not decode): the typed snapshot is built from it, not from
    the bytes again."""
    result: dict[str, Any] = {"hex": hex_or_none(data)}
    if data is None:
        result["error"] = "no assignment bytes"
        return result, None
    if not data:
        # an empty assignment (no partitions) is legal: Java writes nothing for some members
        result.update(version=None, partitions=[], user_data=None)
        return result, None
    try:
        assignment = codec.decode_assignment(data)
    except codec.CodecError as exc:
        result["error"] = f"CodecError: {exc}"
        return result, None
    result.update(
        version=assignment.version,
        partitions=_pairs(assignment.assigned_partitions),
        user_data=hex_or_none(assignment.user_data),
    )
    return result, assignment
