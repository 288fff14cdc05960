"""ConsumerProtocol payloads inside JoinGroup/SyncGroup: decoded once, shown as JSON-ready dicts.

Subscriptions and assignments are read by :mod:`assignframe_codec`. The user data inside a
subscription belongs to the strategy the group chose: it is read by that strategy's own
``decode_user_data`` hook when the strategy is installed (and shown through its
``describe_user_data``), else shown as hex with the note "no installed strategy reads it". No
strategy's layout is known here.

Empty and null user data both read as ``None`` (the hex field keeps them apart).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import assignframe_codec as codec

from ...errors import AssignframeError
from ...plugins.manager import PluginManager, get_plugin_manager
from ...snapshot.schema import hex_or_none

__all__ = [
    "Payload",
    "assignment_payload",
    "foreign_payload",
    "read_assignment",
    "read_subscription",
    "read_user_data",
    "subscription_payload",
]

NO_READER = "no installed strategy reads it"


def _group_pairs(groups: Any) -> list[list[Any]]:
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


@dataclass(frozen=True)
class Payload:
    """One ConsumerProtocol payload as captured, held once: its bytes and what they decode to.

    :attr:`view` is its JSON form (hex, then the decoded fields or the error), made from these
    when first asked; user data is read by the group's strategy (:func:`read_user_data`) then.

    :param kind: ``subscription`` (JoinGroup metadata) or ``assignment`` (SyncGroup)
    :param raw: the bytes (None: the message carried none)
    :param decoded: ``codec.Subscription``/``codec.Assignment`` (None: no bytes, empty
        bytes, or they do not decode)
    :param error: why nothing decoded, when that is an error
    :param protocol: the group's strategy (reads a subscription's user data)
    :param member_id: whose payload it is (for the strategy's user-data hook)
    """

    kind: str
    raw: bytes | None
    decoded: Any = None
    error: str | None = None
    protocol: str | None = None
    member_id: str = ""

    @functools.cached_property
    def view(self) -> dict[str, Any]:
        result: dict[str, Any] = {"hex": hex_or_none(self.raw)}
        if self.error is not None:
            result["error"] = self.error
        elif self.kind == ASSIGNMENT:
            _assignment_view(result, self.decoded)
        else:
            _subscription_view(result, self.decoded, self.protocol, self.member_id)
        return result


SUBSCRIPTION, ASSIGNMENT = "subscription", "assignment"


def subscription_payload(
    metadata: bytes | None, protocol: str | None, member_id: str = ""
) -> Payload:
    """A member's JoinGroup metadata, decoded once."""
    raw = None if metadata is None else bytes(metadata)
    if raw is None:
        return Payload(SUBSCRIPTION, None, error="no metadata")
    try:
        decoded = codec.decode_subscription(raw)
    except codec.CodecError as exc:
        return Payload(SUBSCRIPTION, raw, error=f"CodecError: {exc}")
    return Payload(SUBSCRIPTION, raw, decoded, protocol=protocol, member_id=member_id)


def foreign_payload(metadata: bytes | None, protocol_type: str) -> Payload:
    """JoinGroup metadata of a group whose protocol type is not ``consumer``: not read."""
    raw = None if metadata is None else bytes(metadata)
    return Payload(SUBSCRIPTION, raw,
                   error=f"protocol type {protocol_type!r} is not ConsumerProtocol")


def assignment_payload(data: bytes | None) -> Payload:
    """A member's SyncGroup assignment, decoded once. Empty bytes are a legal assignment of no
    partitions (Java writes nothing for some members)."""
    raw = None if data is None else bytes(data)
    if raw is None:
        return Payload(ASSIGNMENT, None, error="no assignment bytes")
    if not raw:
        return Payload(ASSIGNMENT, raw)
    try:
        decoded = codec.decode_assignment(raw)
    except codec.CodecError as exc:
        return Payload(ASSIGNMENT, raw, error=f"CodecError: {exc}")
    return Payload(ASSIGNMENT, raw, decoded)


def read_subscription(
    metadata: bytes | None, protocol: str | None, member_id: str = ""
) -> dict[str, Any]:
    """A member's JoinGroup metadata: hex, and the decoded subscription (or the error)."""
    return subscription_payload(metadata, protocol, member_id).view


def read_assignment(data: bytes | None) -> dict[str, Any]:
    """A member's SyncGroup assignment: hex, and the decoded partitions (or the error)."""
    return assignment_payload(data).view


def _subscription_view(
    result: dict[str, Any], subscription: Any, protocol: str | None, member_id: str
) -> None:
    result.update(
        version=subscription.version,
        topics=list(subscription.topics),
        owned_partitions=_group_pairs(subscription.owned_partitions),
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


def _assignment_view(result: dict[str, Any], assignment: Any) -> None:
    if assignment is None:  # empty bytes: no partitions
        result.update(version=None, partitions=[], user_data=None)
        return
    result.update(
        version=assignment.version,
        partitions=_group_pairs(assignment.assigned_partitions),
        user_data=hex_or_none(assignment.user_data),
    )
