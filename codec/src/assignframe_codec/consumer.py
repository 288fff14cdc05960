"""The embedded consumer protocol: JoinGroup metadata (subscription) and SyncGroup assignment.

On the wire both start with an int16 version. Like Java's ``ConsumerProtocol``: versions above 3
are read with the v3 layout (trailing bytes ignored), negative versions are refused, and writing
a version above 3 writes v3. Java's serializers also sort and group, which
``encode_subscription``/``encode_assignment`` reproduce exactly.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from construct import Struct

from . import fastpath
from .engine import Format, as_bytes, from_value, to_model
from .errors import InvalidVersionError, TruncatedError, reporting
from .primitives import Array, Int32, NullableBytes, NullableString, Since, String
from .strings import java_string_key
from .types import Assignment, Subscription, TopicPartitions

__all__ = [
    "ASSIGNMENT_FORMAT",
    "CONSUMER_PROTOCOL_ASSIGNMENT",
    "CONSUMER_PROTOCOL_SUBSCRIPTION",
    "HIGHEST_VERSION",
    "SUBSCRIPTION_FORMAT",
    "TOPIC_PARTITION",
    "decode_assignment",
    "decode_assignment_fast",
    "decode_assignment_wire",
    "decode_subscription",
    "decode_subscription_fast",
    "decode_subscription_wire",
    "encode_assignment",
    "encode_assignment_value",
    "encode_subscription",
    "encode_subscription_value",
    "group_in_order",
    "java_string_key",
    "topic_partition_pairs",
    "topic_runs",
]

HIGHEST_VERSION = 3
_VERSION_PREFIX = struct.Struct(">h")

TOPIC_PARTITION = Struct(
    "topic" / String,                                                   # 1+ (mapKey)
    "partitions" / Array(Int32),                                        # 1+
)

CONSUMER_PROTOCOL_SUBSCRIPTION = Struct(
    "topics" / Array(String),                                           # 0+
    "user_data" / NullableBytes,                                        # 0+, nullable 0+
    "owned_partitions" / Since(1, Array(TOPIC_PARTITION), default=(), ignorable=True),
    "generation_id" / Since(2, Int32, default=-1, ignorable=True),      # 2+
    "rack_id" / Since(3, NullableString, ignorable=True),               # 3+, nullable 3+
)
CONSUMER_PROTOCOL_SUBSCRIPTION.__doc__ = """ConsumerProtocolSubscription v0-3, never flexible.

Follows clients/src/main/resources/common/message/ConsumerProtocolSubscription.json;
on the wire it follows an int16 version prefix.
"""

CONSUMER_PROTOCOL_ASSIGNMENT = Struct(
    "assigned_partitions" / Array(TOPIC_PARTITION),                     # 0+
    "user_data" / NullableBytes,                                        # 0+, nullable 0+
)
CONSUMER_PROTOCOL_ASSIGNMENT.__doc__ = """ConsumerProtocolAssignment v0-3, never flexible.

Follows clients/src/main/resources/common/message/ConsumerProtocolAssignment.json;
on the wire it follows an int16 version prefix.
"""

SUBSCRIPTION_FORMAT = Format(
    "ConsumerProtocolSubscription", CONSUMER_PROTOCOL_SUBSCRIPTION, Subscription
)
ASSIGNMENT_FORMAT = Format("ConsumerProtocolAssignment", CONSUMER_PROTOCOL_ASSIGNMENT, Assignment)

# The struct fast path, planned from the same declarations (see fastpath.py).
_FAST_SUBSCRIPTION = fastpath.Layout(CONSUMER_PROTOCOL_SUBSCRIPTION, range(HIGHEST_VERSION + 1))
_FAST_ASSIGNMENT = fastpath.Layout(CONSUMER_PROTOCOL_ASSIGNMENT, range(HIGHEST_VERSION + 1))


def decode_subscription_fast(data: bytes) -> Subscription:
    """The fast path alone: a Subscription, or :class:`fastpath.NotFast`."""
    return fastpath.decode_prefixed(_FAST_SUBSCRIPTION, data, Subscription, HIGHEST_VERSION)


def decode_assignment_fast(data: bytes) -> Assignment:
    """The fast path alone: an Assignment, or :class:`fastpath.NotFast`."""
    return fastpath.decode_prefixed(_FAST_ASSIGNMENT, data, Assignment, HIGHEST_VERSION)


# --------------------------------------------------------------------------- version prefix
def read_version_prefix(data: bytes, what: str) -> int:
    if len(data) < 2:
        raise TruncatedError("buffer underflow while parsing consumer protocol's header",
                             offset=0)
    (version,) = _VERSION_PREFIX.unpack_from(data)
    if version < 0:
        raise InvalidVersionError(f"unsupported {what} version: {version}", offset=0)
    return version


def writable_version(version: int) -> int:
    """Java writes versions above the highest it knows as the highest; negatives fail."""
    if not isinstance(version, int) or version < 0:
        raise InvalidVersionError(f"unsupported consumer protocol version: {version}")
    return min(version, HIGHEST_VERSION)


def decode_by_declaration(fmt: Format, data: Any, what: str):
    """The construct path (also the fast path's judge): prefix, clamp, compiled parse."""
    data = as_bytes(data)
    version = read_version_prefix(data, what)
    with reporting(version=version):
        container, _ = fmt.parse(data, version=min(version, HIGHEST_VERSION), flexible=False,
                                 start=2)
        return to_model(fmt.model, container, version=version)


def _encode_value(fmt: Format[Any], value: Any, version: int | None) -> bytes:
    message = from_value(fmt.model, value, version)
    if version is None:
        version = message.version
    wire_version = writable_version(version)
    body = fmt.encode(message, version=wire_version, flexible=False)
    return _VERSION_PREFIX.pack(wire_version) + body


# --------------------------------------------------------------------------- subscription
def decode_subscription_wire(data: bytes) -> Subscription:
    """The struct exactly as written (``rack_id`` "" stays "", any generation kept)."""
    try:  # decode_subscription_fast, one call fewer: this runs for every member
        return fastpath.decode_prefixed(_FAST_SUBSCRIPTION, data, Subscription, HIGHEST_VERSION)
    except fastpath.NotFast:  # the declaration decides, and explains failures
        pass
    # Error reporting costs a context manager per call: only the declaration's path needs it.
    with reporting("ConsumerProtocolSubscription"):
        return decode_by_declaration(SUBSCRIPTION_FORMAT, data, "subscription")


def decode_subscription(data: bytes) -> Subscription:
    """What ``ConsumerProtocol.deserializeSubscription`` returns: an empty ``rack_id`` reads
    as None and a negative ``generation_id`` as -1 (absent)."""
    subscription = decode_subscription_wire(data)
    if subscription.generation_id < -1 or subscription.rack_id == "":
        subscription = replace(subscription, generation_id=max(subscription.generation_id, -1),
                               rack_id=subscription.rack_id or None)
    return subscription


def encode_subscription_value(value: Subscription | dict, version: int | None = None) -> bytes:
    """Write a subscription as given (no sorting); ``version`` defaults to ``value.version``."""
    with reporting("ConsumerProtocolSubscription", version):
        return _encode_value(SUBSCRIPTION_FORMAT, value, version)


def encode_subscription(
    topics: Iterable[str],
    *,
    user_data: bytes | None = None,
    owned_partitions: Iterable[Any] = (),
    generation_id: int | None = -1,
    rack_id: str | None = None,
    version: int = HIGHEST_VERSION,
) -> bytes:
    """Like Java's ``ConsumerProtocol.serializeSubscription``: topics sorted, owned partitions
    sorted by (topic, partition) and then grouped; a negative generation is written as -1."""
    with reporting("ConsumerProtocolSubscription", version):
        wire_version = writable_version(version)
        pairs = sorted(topic_partition_pairs(owned_partitions),
                       key=lambda pair: (java_string_key(pair[0]), pair[1]))
        topics = tuple(sorted(topics, key=java_string_key))
        generation_id = -1 if generation_id is None or generation_id < 0 else generation_id
        runs = topic_runs(pairs, merge=False)
        values = {"topics": topics, "user_data": user_data, "owned_partitions": runs,
                  "generation_id": generation_id, "rack_id": rack_id}
        try:
            return fastpath.encode(_FAST_SUBSCRIPTION, values, wire_version,
                                   _VERSION_PREFIX.pack(wire_version))
        except fastpath.NotFast:  # the declaration decides, and explains failures
            pass
        subscription = Subscription(
            version=wire_version,
            topics=topics,
            user_data=user_data,
            owned_partitions=tuple(TopicPartitions(t, tuple(ps)) for t, ps in runs),
            generation_id=generation_id,
            rack_id=rack_id,
        )
        return _encode_value(SUBSCRIPTION_FORMAT, subscription, None)


# --------------------------------------------------------------------------- assignment
def decode_assignment(data: bytes) -> Assignment:
    """What ``ConsumerProtocol.deserializeAssignment`` reads: the struct exactly as written (a
    repeated topic stays a separate group)."""
    try:  # decode_assignment_fast, one call fewer: this runs for every member
        return fastpath.decode_prefixed(_FAST_ASSIGNMENT, data, Assignment, HIGHEST_VERSION)
    except fastpath.NotFast:  # the declaration decides, and explains failures
        pass
    with reporting("ConsumerProtocolAssignment"):
        return decode_by_declaration(ASSIGNMENT_FORMAT, data, "assignment")


#: Java reads an assignment exactly as written, so the "wire" reading is the same function.
decode_assignment_wire = decode_assignment


def encode_assignment_value(value: Assignment | dict, version: int | None = None) -> bytes:
    """Write an assignment as given; ``version`` defaults to ``value.version``."""
    with reporting("ConsumerProtocolAssignment", version):
        return _encode_value(ASSIGNMENT_FORMAT, value, version)


def encode_assignment(
    partitions: Iterable[Any], *, user_data: bytes | None = None, version: int = HIGHEST_VERSION
) -> bytes:
    """Like Java's ``ConsumerProtocol.serializeAssignment``: topics in first-appearance order,
    partition order kept, a topic that reappears merged into its earlier group."""
    with reporting("ConsumerProtocolAssignment", version):
        wire_version = writable_version(version)
        runs = topic_runs(topic_partition_pairs(partitions), merge=True)
        try:
            return fastpath.encode(_FAST_ASSIGNMENT, {"assigned_partitions": runs,
                                                      "user_data": user_data},
                                   wire_version, _VERSION_PREFIX.pack(wire_version))
        except fastpath.NotFast:  # the declaration decides, and explains failures
            pass
        assignment = Assignment(
            version=wire_version,
            assigned_partitions=tuple(TopicPartitions(t, tuple(ps)) for t, ps in runs),
            user_data=user_data,
        )
        return _encode_value(ASSIGNMENT_FORMAT, assignment, None)


def topic_partition_pairs(items: Iterable[Any]) -> list[tuple[str, int]]:
    """(topic, partition) pairs from pairs or TopicPartitions groups."""
    pairs: list[tuple[str, int]] = []
    for item in items:
        if isinstance(item, TopicPartitions):
            pairs.extend((item.topic, partition) for partition in item.partitions)
        else:
            topic, partition = item
            pairs.append((topic, partition))
    return pairs


def group_in_order(pairs: Iterable[tuple[str, int]], *, merge: bool) -> tuple[TopicPartitions, ...]:
    """Group pairs by topic in first-appearance order.

    ``merge=True`` folds a reappearing topic into its earlier group (Java's map-keyed
    collections); ``merge=False`` only joins consecutive pairs (input already sorted).
    """
    return tuple(
        TopicPartitions(topic, tuple(partitions)) for topic, partitions in topic_runs(pairs, merge)
    )


def topic_runs(pairs: Iterable[tuple[str, int]], merge: bool) -> list[tuple[str, list[int]]]:
    """The (topic, partitions) runs ``group_in_order`` builds, as plain lists."""
    groups: dict[str, list[int]] = {}
    ordered: list[tuple[str, list[int]]] = []
    for topic, partition in pairs:
        if merge:
            current = groups.get(topic)
        else:
            current = ordered[-1][1] if ordered and ordered[-1][0] == topic else None
        if current is None:
            current = groups[topic] = []
            ordered.append((topic, current))
        current.append(partition)
    return ordered
