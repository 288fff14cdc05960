"""User data of the sticky assignors (no version prefix: the layout is recognised).

* StickyAssignor V1 = previous assignment + generation; V0 = previous assignment only. Java
  reads V1 and falls back to V0 when that fails; trailing bytes are ignored.
* CooperativeStickyAssignor (Java) = a bare int32 generation. librdkafka and franz-go instead
  send the full sticky V1 layout as their cooperative-sticky user data;
  :func:`decode_cooperative_user_data` recognises both and says which it found.
* :func:`sticky_member_data` / :func:`cooperative_member_data` mirror what Java's
  ``memberData()`` makes of the user data alone, including its silent fallbacks.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import Any

from construct import Struct

from . import fastpath
from .consumer import group_in_order, topic_partition_pairs, topic_runs
from .engine import Format, as_bytes, from_value
from .errors import CodecError, EncodeError, InvalidVersionError, reporting
from .primitives import Array, Int32, String
from .types import CooperativeUserData, MemberData, StickyUserData, TopicPartitions

__all__ = [
    "FORMATS",
    "COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0",
    "STICKY_ASSIGNOR_USER_DATA_V0",
    "STICKY_ASSIGNOR_USER_DATA_V1",
    "cooperative_member_data",
    "decode_cooperative_user_data",
    "decode_cooperative_user_data_fast",
    "decode_sticky_user_data",
    "decode_sticky_user_data_fast",
    "encode_cooperative_user_data",
    "encode_cooperative_value",
    "encode_sticky_user_data",
    "encode_sticky_value",
    "sticky_member_data",
]

STICKY_TOPIC_ASSIGNMENT = Struct(
    "topic" / String,
    "partitions" / Array(Int32),
)

STICKY_ASSIGNOR_USER_DATA_V0 = Struct(
    "previous_assignment" / Array(STICKY_TOPIC_ASSIGNMENT),
)
STICKY_ASSIGNOR_USER_DATA_V0.__doc__ = """StickyAssignor user data V0 (no version prefix).

Follows STICKY_ASSIGNOR_USER_DATA_V0 in
clients/src/main/java/org/apache/kafka/clients/consumer/StickyAssignor.java (classic types).
"""

STICKY_ASSIGNOR_USER_DATA_V1 = Struct(
    "previous_assignment" / Array(STICKY_TOPIC_ASSIGNMENT),
    "generation" / Int32,
)
STICKY_ASSIGNOR_USER_DATA_V1.__doc__ = """StickyAssignor user data V1 (no version prefix).

Follows STICKY_ASSIGNOR_USER_DATA_V1 in
clients/src/main/java/org/apache/kafka/clients/consumer/StickyAssignor.java (classic types).
"""

COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0 = Struct(
    "generation" / Int32,
)
COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0.__doc__ = """CooperativeStickyAssignor user data V0.

Follows COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0 in
clients/src/main/java/org/apache/kafka/clients/consumer/CooperativeStickyAssignor.java.
"""

_STICKY_V0 = Format("StickyAssignorUserData", STICKY_ASSIGNOR_USER_DATA_V0, StickyUserData)
_STICKY_V1 = Format("StickyAssignorUserData", STICKY_ASSIGNOR_USER_DATA_V1, StickyUserData)
_COOPERATIVE = Format(
    "CooperativeStickyAssignorUserData", COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0,
    CooperativeUserData,
)
FORMATS: dict[tuple[str, int], Format[Any]] = {
    ("StickyAssignorUserData", 0): _STICKY_V0,
    ("StickyAssignorUserData", 1): _STICKY_V1,
    ("CooperativeStickyAssignorUserData", 0): _COOPERATIVE,
}
_INT32 = struct.Struct(">i")
LAYOUTS = {"V0": 0, "V1": 1}

# The struct fast path, planned from the same declarations (see fastpath.py).
_FAST_STICKY = {
    1: fastpath.Layout(STICKY_ASSIGNOR_USER_DATA_V1, (1,)),
    0: fastpath.Layout(STICKY_ASSIGNOR_USER_DATA_V0, (0,)),
}
_FAST_COOPERATIVE = fastpath.Layout(COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0, (0,))
# what the bytes do not say: the layout's name (and V0's missing generation)
_V1 = {"layout": "V1"}
_V0 = {"layout": "V0", "generation": None}
_JAVA_GENERATION = {"layout": "java-generation", "previous_assignment": None}
_STICKY_V1_LAYOUT = {"layout": "sticky-v1"}


def decode_sticky_user_data_fast(data: bytes, version: int | None) -> StickyUserData:
    """The fast path alone, for the unambiguous cases: bytes that are exactly V1 (groups, then a
    generation) or exactly V0 (groups only). Java tries V1 first, so exact V1 bytes are V1 and
    exact V0 bytes are V0; trailing bytes and everything else raise NotFast."""
    if version != 0:
        try:
            return fastpath.decode_exact(_FAST_STICKY[1], data, 1, StickyUserData, _V1)
        except fastpath.NotFast:
            if version == 1:
                raise
    return fastpath.decode_exact(_FAST_STICKY[0], data, 0, StickyUserData, _V0)


def decode_cooperative_user_data_fast(data: bytes) -> CooperativeUserData:
    """The fast path alone: exactly 4 bytes (Java's generation) or exactly a sticky V1 blob."""
    if type(data) is bytes and len(data) == 4:
        return fastpath.decode_exact(_FAST_COOPERATIVE, data, 0, CooperativeUserData,
                                     _JAVA_GENERATION)
    return fastpath.decode_exact(_FAST_STICKY[1], data, 1, CooperativeUserData, _STICKY_V1_LAYOUT)


# --------------------------------------------------------------------------- sticky
def decode_sticky_user_data(data: bytes, version: int | None = None) -> StickyUserData:
    """V1, else V0 (Java's fallback); ``version`` 0/1 forces one layout."""
    if version in (None, 0, 1):
        try:
            return decode_sticky_user_data_fast(data, version)
        except fastpath.NotFast:  # the declarations decide, and explain failures
            pass
    with reporting("StickyAssignorUserData", version):
        data = as_bytes(data)
        if version == 0:
            return _STICKY_V0.decode(data, version=0, flexible=False, layout="V0",
                                     generation=None)
        if version not in (None, 1):
            raise InvalidVersionError(f"sticky user data has layouts 0 and 1, not {version}")
        try:
            return _STICKY_V1.decode(data, version=1, flexible=False, layout="V1")
        except CodecError as v1_failure:
            if version == 1:
                raise
            try:
                return _STICKY_V0.decode(data, version=0, flexible=False, layout="V0",
                                         generation=None)
            except CodecError:
                raise v1_failure.fill(version=1) from None


def encode_sticky_user_data(previous_assignment: Iterable[Any], generation: int | None) -> bytes:
    """V1 when ``generation`` is given, else V0; topics grouped in first-appearance order.

    ``previous_assignment`` holds ``(topic, partition)`` pairs, TopicPartitions groups, or any
    objects with ``.topic`` and ``.partition`` attributes (e.g. ``assignframe.TopicPartition``;
    duck-typed, so the codec does not depend on the core).
    """
    pairs = topic_partition_pairs(map(_as_pair_or_group, previous_assignment))
    runs = topic_runs(pairs, merge=True)
    layout = 0 if generation is None else 1
    try:
        return fastpath.encode(_FAST_STICKY[layout],
                               {"previous_assignment": runs, "generation": generation}, layout)
    except fastpath.NotFast:  # the declaration decides, and explains failures
        pass
    value = StickyUserData(
        layout="V0" if generation is None else "V1",
        previous_assignment=group_in_order(pairs, merge=True),
        generation=generation,
    )
    return encode_sticky_value(value)


def _as_pair_or_group(item: Any) -> Any:
    if hasattr(item, "partition") and hasattr(item, "topic"):
        return (item.topic, item.partition)
    return item


def encode_sticky_value(value: StickyUserData | dict, version: int | None = None) -> bytes:
    """Write the groups as given; ``version`` 1/0 picks V1/V0 (default: the value's layout)."""
    with reporting("StickyAssignorUserData", version):
        if isinstance(value, dict):
            value = {"layout": "V1" if version != 0 else "V0", "generation": None, **value}
        message = from_value(StickyUserData, value)
        layout = message.layout if version is None else _layout_name(version)
        if layout == "V1" and message.generation is None:
            raise EncodeError("missing value for field 'generation' (V1 layout)")
        fmt = _STICKY_V1 if layout == "V1" else _STICKY_V0
        return fmt.encode(message, version=LAYOUTS[layout], flexible=False)


def _layout_name(version: int) -> str:
    for name, number in LAYOUTS.items():
        if number == version:
            return name
    raise InvalidVersionError(f"StickyAssignor user data has layouts 0 and 1, not {version}")


def sticky_member_data(user_data: bytes | None) -> MemberData:
    """``StickyAssignor.memberData`` from user data: null/empty -> no generation; unreadable ->
    generation -1 and nothing owned (Java ignores it); else the V1/V0 content, flattened."""
    if not user_data:
        return MemberData((), None)
    try:
        decoded = decode_sticky_user_data(user_data)
    except CodecError:
        return MemberData((), -1)
    return MemberData(_flatten(decoded.previous_assignment), decoded.generation)


def _flatten(groups: tuple[TopicPartitions, ...]) -> tuple[tuple[str, int], ...]:
    return tuple((group.topic, partition) for group in groups for partition in group.partitions)


# --------------------------------------------------------------------------- cooperative
def decode_cooperative_user_data(data: bytes) -> CooperativeUserData:
    """"sticky-v1" when the bytes are exactly a sticky V1 blob (and not just 4 bytes), else
    Java's "java-generation" (first int32, trailing bytes ignored as Java does)."""
    try:
        return decode_cooperative_user_data_fast(data)
    except fastpath.NotFast:  # the declarations decide, and explain failures
        pass
    with reporting("CooperativeStickyAssignorUserData", 0):
        data = as_bytes(data)
        if len(data) != 4:
            try:
                container, end = _STICKY_V1.parse(data, version=1, flexible=False)
            except CodecError:
                end = -1
            if end == len(data):
                sticky = _STICKY_V1.decode(data, version=1, flexible=False, layout="V1")
                return CooperativeUserData("sticky-v1", container["generation"],
                                           sticky.previous_assignment)
        return _COOPERATIVE.decode(data, version=0, flexible=False, layout="java-generation",
                                   previous_assignment=None)


def encode_cooperative_user_data(generation: int) -> bytes:
    """Java's layout: the int32 generation (-1 before the first assignment)."""
    try:
        return fastpath.encode(_FAST_COOPERATIVE, {"generation": generation}, 0)
    except fastpath.NotFast:  # the declaration decides, and explains failures
        pass
    return encode_cooperative_value({"generation": generation})


def encode_cooperative_value(
    value: CooperativeUserData | dict, version: int | None = None
) -> bytes:
    """Either layout: with ``previous_assignment`` (or layout "sticky-v1") the sticky V1 blob."""
    with reporting("CooperativeStickyAssignorUserData", version):
        if version not in (None, 0):
            raise InvalidVersionError(f"cooperative-sticky user data has version 0, not {version}")
        if isinstance(value, dict):
            layout = "java-generation" if value.get("previous_assignment") is None else "sticky-v1"
            value = {"layout": layout, **value}
        message = from_value(CooperativeUserData, value)
        if message.layout == "sticky-v1":
            return encode_sticky_value(StickyUserData(
                "V1", message.previous_assignment or (), message.generation))
        if message.layout != "java-generation":
            raise EncodeError(f"unknown cooperative user data layout {message.layout!r}")
        return _COOPERATIVE.encode(message, version=0, flexible=False)


def cooperative_member_data(user_data: bytes | None) -> MemberData:
    """``CooperativeStickyAssignor.memberData`` from user data alone (no generation in the
    subscription): null -> none; fewer than 4 bytes -> -1; else the first int32, whatever the
    layout (so Java reads a librdkafka sticky-V1 blob's topic count as the generation)."""
    if user_data is None:
        return MemberData((), None)
    if len(user_data) < 4:
        return MemberData((), -1)
    return MemberData((), _INT32.unpack_from(bytes(user_data[:4]))[0])
