"""Between the model and the wire: ConsumerProtocol bytes via ``assignframe_codec``.

The only module of the core that builds or reads codec values, so the codec's types never leak
into strategies.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable
from typing import Any

import assignframe_codec as codec

from ..model import Member, MemberAssignment, SubscriptionMetadata, TopicPartition, trusted

__all__ = [
    "WIRE_VERSION",
    "decode_member_assignment",
    "decode_subscription",
    "encode_member_assignment",
    "encode_subscription_metadata",
    "encode_v0_subscription",
    "flatten_partitions",
    "member_from_metadata",
    "member_from_subscription",
    "reads_back_as_is",
    "received_assignment",
    "wire_order",
]

#: ConsumerProtocol version the runner writes (Java's current one).
WIRE_VERSION = 3


def encode_subscription_metadata(metadata: SubscriptionMetadata) -> bytes:
    """JoinGroup protocol metadata bytes for one member (version-prefixed, Java's field order)."""
    return codec.encode_subscription(
        metadata.topics,
        user_data=metadata.user_data,
        owned_partitions=_pair_tuples(metadata.owned_partitions),
        generation_id=metadata.generation,
        rack_id=metadata.rack,
        version=WIRE_VERSION,
    )


def encode_v0_subscription(topics: Iterable[str], user_data: bytes | None) -> bytes:
    """A v0 subscription (topics, user data): what a client that decodes only v0 fields
    (kafka-python 2.x, aiokafka) still knows of a member's subscription."""
    return codec.encode_subscription(tuple(topics), user_data=user_data, version=0)


def decode_subscription(data: bytes) -> codec.Subscription:
    """The codec's reading of JoinGroup metadata bytes; equal ``bytes`` are decoded once."""
    if type(data) is bytes:
        return _decode_subscription_bytes(data)
    return codec.decode_subscription(data)  # a bytearray, a memoryview: not hashable as is


# The codec's functions are pure and their results frozen, so equal bytes are decoded once
# (bounded: memory stays flat over a fleet). Members of a group often send identical
# subscriptions (EAGER strategies without user data): 671 distinct among the 6,093 members of
# 500 generated groups (audit.synthetic). A function of its own, so that importing this module
# does not load the codec's declarations (start-up: tests/test_startup.py).
@functools.lru_cache(2048)
def _decode_subscription_bytes(data: bytes) -> codec.Subscription:
    return codec.decode_subscription(data)


def member_from_subscription(
    member_id: str,
    subscription: codec.Subscription,
    group_instance_id: str | None,
    decoded_user_data: Any,
) -> Member:
    """The leader's view of one member: its decoded bytes plus what the join itself carried."""
    topics = subscription.topics
    return trusted(
        Member,
        member_id=member_id,
        topics=topics if type(topics) is tuple else tuple(topics),
        owned_partitions=flatten_partitions(subscription.owned_partitions),
        generation=subscription.generation_id,
        group_instance_id=group_instance_id,
        rack=subscription.rack_id,
        user_data=subscription.user_data,
        decoded_user_data=decoded_user_data,
        subscription_version=subscription.version,
    )


def reads_back_as_is(user_data: object) -> bool:
    """True when ``user_data`` is what decoding its encoding gives back (``bytes`` or None), so
    :func:`member_from_metadata` and :func:`received_assignment` may stand in for the codec.
    Anything else (a bytearray, a wrong type) is the codec's to convert or refuse."""
    return user_data is None or type(user_data) is bytes


def member_from_metadata(
    member_id: str,
    metadata: SubscriptionMetadata,
    group_instance_id: str | None,
    decoded_user_data: Any,
) -> Member:
    """What :func:`member_from_subscription` gives for the bytes ``metadata`` encodes to, without
    the bytes: topics and owned partitions in Java's order (``encode_subscription`` sorts them),
    a negative generation as -1, version :data:`WIRE_VERSION`. Only for user data that
    :func:`reads_back_as_is`.
    """
    user_data = metadata.user_data
    return trusted(  # topics and partitions from a SubscriptionMetadata: already normalised
        Member,
        member_id=member_id,
        topics=_java_sorted_topics(metadata.topics),
        owned_partitions=_java_sorted_partitions(metadata.owned_partitions),
        generation=metadata.generation if metadata.generation >= 0 else -1,
        group_instance_id=group_instance_id,
        rack=metadata.rack,
        user_data=user_data,
        decoded_user_data=decoded_user_data,
        subscription_version=WIRE_VERSION,
    )


def received_assignment(assignment: MemberAssignment) -> MemberAssignment:
    """What :func:`decode_member_assignment` gives for the bytes of ``assignment``, without the
    bytes: partitions grouped by topic in order of first appearance, partition order kept
    (``encode_member_assignment``). Only for user data that :func:`reads_back_as_is`.
    """
    partitions = wire_order(assignment.partitions)
    if partitions is assignment.partitions:
        return assignment
    return trusted(MemberAssignment, partitions=partitions, user_data=assignment.user_data)


def wire_order(partitions: tuple[TopicPartition, ...]) -> tuple[TopicPartition, ...]:
    """Partitions as a member reads them from its SyncGroup bytes: grouped by topic in order of
    first appearance, partition order kept (the same tuple when that changes nothing)."""
    if len(partitions) < 2:
        return partitions
    seen: set[str] = set()
    last = None
    for topic, _ in partitions:  # usually already grouped: one pass, no copy
        if topic != last:
            if topic in seen:
                break
            seen.add(topic)
            last = topic
    else:
        return partitions
    runs: dict[str, list[TopicPartition]] = {}
    for tp in partitions:
        runs.setdefault(tp.topic, []).append(tp)
    return tuple(itertools.chain.from_iterable(runs.values()))


def _java_partition_key(tp: TopicPartition) -> tuple[bytes, int]:
    return codec.java_string_key(tp.topic), tp.partition


# Java orders strings by UTF-16 code unit, Python by code point: the two differ only beyond
# ASCII, so ASCII names (nearly all topics) sort by the C-level tuple order, no key built.
def _java_sorted_topics(topics: tuple[str, ...]) -> tuple[str, ...]:
    if len(topics) < 2:
        return topics
    if "".join(topics).isascii():
        return tuple(sorted(topics))
    return tuple(sorted(topics, key=codec.java_string_key))


def _java_sorted_partitions(partitions: tuple[TopicPartition, ...]) -> tuple[TopicPartition, ...]:
    if len(partitions) < 2:
        return partitions
    if "".join({tp.topic for tp in partitions}).isascii():
        return tuple(sorted(partitions))
    return tuple(sorted(partitions, key=_java_partition_key))


def encode_member_assignment(assignment: MemberAssignment) -> bytes:
    """SyncGroup assignment bytes for one member (partition order kept, Java's topic grouping)."""
    return codec.encode_assignment(
        _pair_tuples(assignment.partitions), user_data=assignment.user_data, version=WIRE_VERSION
    )


def decode_member_assignment(data: bytes) -> MemberAssignment:
    """What a member reads back from its SyncGroup bytes; equal ``bytes`` are decoded once."""
    if type(data) is bytes:
        return _decode_member_assignment_bytes(data)
    return _read_member_assignment(data)  # a bytearray, a memoryview: not hashable as is


def _read_member_assignment(data: bytes) -> MemberAssignment:
    return member_assignment(codec.decode_assignment(data))


# As subscriptions (decode_subscription): follow-up rounds resend most assignments, and 500
# generated groups hold 3,544 distinct assignments among 6,093 members.
_decode_member_assignment_bytes = functools.lru_cache(2048)(_read_member_assignment)


def member_assignment(decoded: codec.Assignment) -> MemberAssignment:
    """The model's assignment of a decoded ConsumerProtocolAssignment."""
    return trusted(
        MemberAssignment,
        partitions=flatten_partitions(decoded.assigned_partitions),
        user_data=decoded.user_data,
    )


def _pair_tuples(partitions: Iterable[TopicPartition]) -> list[tuple[str, int]]:
    return [(tp.topic, tp.partition) for tp in partitions]


def flatten_partitions(groups: Iterable[codec.TopicPartitions]) -> tuple[TopicPartition, ...]:
    """The model's partitions from the codec's per-topic groups, in the bytes' order."""
    return tuple(TopicPartition(group.topic, p) for group in groups for p in group.partitions)
