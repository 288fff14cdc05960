"""The ``__consumer_offsets`` records as the group coordinator stores them today.

A record key is an int16 big-endian **record type** (the schema's ``apiKey``) followed by the key
struct, always written at version 0 and never flexible. A record value is an int16 **value
version** followed by the value struct at that version; a null value is a tombstone. The record
type selects both halves (Java's ``GroupCoordinatorRecordSerde``): types 0-2 are the classic
offset-commit and group-metadata records, 3-8 and 16 consumer groups (KIP-848), 10-15 share
groups (KIP-932), 17 and 19-23 Streams groups (KIP-1071). Trailing bytes after either struct are
ignored, as Java does.

Follows group-coordinator/src/main/resources/common/message/*Key.json / *Value.json at Apache
Kafka trunk d79bd502, checked against ../shared/golden/kip848/codec.jsonl.

The classic facade kinds ``OffsetCommitKey``/``GroupMetadataKey``/... of :mod:`.records` keep
the older "key version 0/1/2" reading (``decode_record``); this module reads the same bytes by
record type and knows the tagged ``topic_id`` of OffsetCommitValue v4.
"""

from __future__ import annotations

import struct as _struct_module
from dataclasses import dataclass
from typing import Any

from construct import Struct

from . import kip848, records
from .engine import as_bytes
from .errors import (
    CodecError,
    InvalidVersionError,
    TruncatedError,
    UnknownKindError,
    reporting,
)
from .flexible import NullableStruct, Tag, TaggedSection, Uuid, message_struct, nested_struct
from .flexible_models import FlexibleFormat, as_model
from .primitives import (
    Array,
    Bytes,
    Int8,
    Int32,
    Int64,
    KafkaArray,
    NullableString,
    String,
    ValidVersions,
)
from .types import Message

__all__ = [
    "OFFSETS_TOPIC",
    "RECORD_TYPES",
    "CoordinatorRecord",
    "RecordType",
    "decode_coordinator_record",
    "encode_coordinator_record",
    "encode_half",
]

#: The internal topic the group coordinator writes these records to.
OFFSETS_TOPIC = "__consumer_offsets"

_ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA"
_INT16 = _struct_module.Struct(">h")


def _nested(name: str, *fields) -> Struct:
    return nested_struct(name, 0, *fields)


def _without_tags(declaration: Struct) -> tuple:
    return tuple(sub for sub in declaration.subcons
                 if getattr(sub, "name", None) != "tagged_fields")


# --------------------------------------------------------------------------- keys (version 0)
_GROUP_KEY = message_struct("group_id" / String)
_MEMBER_KEY = message_struct("group_id" / String, "member_id" / String)
_OFFSET_COMMIT_KEY = message_struct(*records.OFFSET_COMMIT_KEY.subcons)  # group, topic, partition
_GROUP_METADATA_KEY = message_struct(*records.GROUP_METADATA_KEY.subcons)  # group
_REGEX_KEY = message_struct("group_id" / String, "regular_expression" / String)

# --------------------------------------------------------------------------- values
_LEGACY_OFFSET_COMMIT_VALUE = message_struct(
    "offset" / Int64,
    "metadata" / String,
    "commit_timestamp" / Int64,
)

# OffsetCommitValue v0-4 (records.py) plus its tagged topic id (tag 0, v4+, not written when
# all zero).
_TOPIC_ID_TAG = Tag(0, "topic_id", Uuid, default=_ZERO_UUID, ignorable=True, first=4)
_OFFSET_COMMIT_VALUE = Struct(
    *_without_tags(records.OFFSET_COMMIT_VALUE),
    "tagged_fields" / TaggedSection(_TOPIC_ID_TAG),
)


_CONSUMER_GROUP_METADATA_VALUE = Struct(
    "epoch" / Int32,
    "tagged_fields" / TaggedSection(Tag(0, "metadata_hash", Int64, default=0)),  # KIP-1101
)
_SHARE_GROUP_METADATA_VALUE = message_struct("epoch" / Int32, "metadata_hash" / Int64)


def _assignment_metadata() -> Struct:
    return Struct("assignment_epoch" / Int32,
                  "tagged_fields" / TaggedSection(Tag(0, "assignment_timestamp", Int64, default=0)))


def _topic_partitions(*, epochs: bool = False) -> Struct:
    tags = (Tag(0, "assignment_epochs", KafkaArray(Int32, nullable_from=0), default=[]),)
    return Struct(ValidVersions(0, 0, "TopicPartitions"),
                  "topic_id" / Uuid,
                  "partitions" / Array(Int32),
                  "tagged_fields" / TaggedSection(*(tags if epochs else ())))


def _task_ids(*, epochs: bool = False) -> Struct:
    tags = (Tag(0, "assignment_epochs", KafkaArray(Int32, nullable_from=0), default=[]),)
    return Struct(ValidVersions(0, 0, "TaskIds"),
                  "subtopology_id" / String,
                  "partitions" / Array(Int32),
                  "tagged_fields" / TaggedSection(*(tags if epochs else ())))


_CLASSIC_MEMBER_METADATA = _nested(
    "ClassicMemberMetadata",
    "session_timeout_ms" / Int32,
    "supported_protocols" / Array(_nested("ClassicProtocol",
                                          "name" / String,
                                          "metadata" / Bytes)))

_CONSUMER_GROUP_MEMBER_METADATA_VALUE = Struct(
    "instance_id" / NullableString,
    "rack_id" / NullableString,
    "client_id" / String,
    "client_host" / String,
    "subscribed_topic_names" / Array(String),
    "subscribed_topic_regex" / NullableString,
    "rebalance_timeout_ms" / Int32,
    "server_assignor" / NullableString,
    # default null in the schema means "no default": the EMPTY struct; null is written.
    "tagged_fields" / TaggedSection(Tag(
        0, "classic_member_metadata", NullableStruct(_CLASSIC_MEMBER_METADATA, tagged=True),
        default={"session_timeout_ms": 0, "supported_protocols": []})),
)

_CONSUMER_GROUP_PARTITION_METADATA_VALUE = message_struct(
    "topics" / Array(_nested(
        "TopicMetadata",
        "topic_id" / Uuid,
        "topic_name" / String,
        "num_partitions" / Int32,
        "partition_metadata" / Array(_nested("PartitionMetadata",
                                             "partition" / Int32,
                                             "racks" / Array(String))))),
)

_CURRENT_MEMBER_ASSIGNMENT_HEAD = (
    "member_epoch" / Int32,
    "previous_member_epoch" / Int32,
    "state" / Int8,
)

_CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE = message_struct(
    *_CURRENT_MEMBER_ASSIGNMENT_HEAD,
    "assigned_partitions" / Array(_topic_partitions(epochs=True)),
    "partitions_pending_revocation" / Array(_topic_partitions(epochs=True)),
)

_SHARE_GROUP_MEMBER_METADATA_VALUE = message_struct(
    "rack_id" / NullableString,
    "client_id" / String,
    "client_host" / String,
    "subscribed_topic_names" / Array(String),
)

_SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE = message_struct(
    *_CURRENT_MEMBER_ASSIGNMENT_HEAD,
    "assigned_partitions" / Array(_topic_partitions()),
)


def _share_topics(*, partitions: bool) -> KafkaArray:
    fields = ["topic_id" / Uuid, "topic_name" / String]
    if partitions:
        fields.append("partitions" / Array(Int32))
    return Array(_nested("TopicPartitionsInfo" if partitions else "TopicInfo", *fields))


_SHARE_GROUP_STATE_PARTITION_METADATA_VALUE = message_struct(
    "initializing_topics" / _share_topics(partitions=True),
    "initialized_topics" / _share_topics(partitions=True),
    "deleting_topics" / _share_topics(partitions=False),
)

_CONSUMER_GROUP_REGULAR_EXPRESSION_VALUE = message_struct(
    "topics" / Array(String),
    "version" / Int64,
    "timestamp" / Int64,
)

_STREAMS_GROUP_METADATA_VALUE = Struct(
    "epoch" / Int32,
    "metadata_hash" / Int64,
    "tagged_fields" / TaggedSection(
        Tag(0, "validated_topology_epoch", Int32, default=-1),
        Tag(2, "stored_description_topology_epoch", Int32, default=-1),
        Tag(3, "failed_description_topology_epoch", Int32, default=-1)),
)

_STREAMS_GROUP_MEMBER_METADATA_VALUE = message_struct(
    "instance_id" / NullableString,
    "rack_id" / NullableString,
    "client_id" / String,
    "client_host" / String,
    "rebalance_timeout_ms" / Int32,
    "topology_epoch" / Int32,
    "process_id" / String,
    "user_endpoint" / NullableStruct(kip848.ENDPOINT),
    "client_tags" / Array(kip848.KEY_VALUE),
)

_TASK_KINDS = ("active_tasks", "standby_tasks", "warmup_tasks")

_STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE = message_struct(
    *(name / Array(_task_ids()) for name in _TASK_KINDS))

_STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE = message_struct(
    *_CURRENT_MEMBER_ASSIGNMENT_HEAD,
    *(name / Array(_task_ids(epochs=True)) for name in _TASK_KINDS),
    *(f"{name}_pending_revocation" / Array(_task_ids(epochs=True)) for name in _TASK_KINDS),
)

# StreamsGroupTopologyValue's subtopology table is the heartbeat request's, field for field.
_STREAMS_GROUP_TOPOLOGY_VALUE = message_struct(
    "epoch" / Int32,
    "subtopologies" / Array(kip848.SUBTOPOLOGY),
)


# --------------------------------------------------------------------------- the record types
@dataclass(frozen=True)
class RecordType:
    """One record type: its id, names and the declarations of both halves."""

    record_type: int
    name: str
    key: FlexibleFormat
    value: FlexibleFormat
    highest_value_version: int = 0
    flexible_from: int | None = 0

    @property
    def key_type(self) -> str:
        return self.key.name

    @property
    def value_type(self) -> str:
        return self.value.name

    def is_flexible(self, version: int) -> bool:
        return self.flexible_from is not None and version >= self.flexible_from


def _record(record_type, name, key, value, highest=0, flexible_from=0) -> RecordType:
    return RecordType(record_type, name, FlexibleFormat(f"{name}Key", key),
                      FlexibleFormat(f"{name}Value", value), highest, flexible_from)


_TOPIC_PARTITIONS_VALUE = message_struct("topic_partitions" / Array(_topic_partitions()))

RECORD_TYPES: dict[int, RecordType] = {record.record_type: record for record in (
    _record(0, "LegacyOffsetCommit", _OFFSET_COMMIT_KEY, _LEGACY_OFFSET_COMMIT_VALUE,
            flexible_from=None),
    _record(1, "OffsetCommit", _OFFSET_COMMIT_KEY, _OFFSET_COMMIT_VALUE, 4, 4),
    _record(2, "GroupMetadata", _GROUP_METADATA_KEY, records.GROUP_METADATA_VALUE, 4, 4),
    _record(3, "ConsumerGroupMetadata", _GROUP_KEY, _CONSUMER_GROUP_METADATA_VALUE),
    _record(4, "ConsumerGroupPartitionMetadata", _GROUP_KEY,
            _CONSUMER_GROUP_PARTITION_METADATA_VALUE),
    _record(5, "ConsumerGroupMemberMetadata", _MEMBER_KEY, _CONSUMER_GROUP_MEMBER_METADATA_VALUE),
    _record(6, "ConsumerGroupTargetAssignmentMetadata", _GROUP_KEY, _assignment_metadata()),
    _record(7, "ConsumerGroupTargetAssignmentMember", _MEMBER_KEY, _TOPIC_PARTITIONS_VALUE),
    _record(8, "ConsumerGroupCurrentMemberAssignment", _MEMBER_KEY,
            _CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE),
    _record(10, "ShareGroupMemberMetadata", _MEMBER_KEY, _SHARE_GROUP_MEMBER_METADATA_VALUE),
    _record(11, "ShareGroupMetadata", _GROUP_KEY, _SHARE_GROUP_METADATA_VALUE),
    _record(12, "ShareGroupTargetAssignmentMetadata", _GROUP_KEY, _assignment_metadata()),
    _record(13, "ShareGroupTargetAssignmentMember", _MEMBER_KEY, _TOPIC_PARTITIONS_VALUE),
    _record(14, "ShareGroupCurrentMemberAssignment", _MEMBER_KEY,
            _SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE),
    _record(15, "ShareGroupStatePartitionMetadata", _GROUP_KEY,
            _SHARE_GROUP_STATE_PARTITION_METADATA_VALUE),
    _record(16, "ConsumerGroupRegularExpression", _REGEX_KEY,
            _CONSUMER_GROUP_REGULAR_EXPRESSION_VALUE),
    _record(17, "StreamsGroupMetadata", _GROUP_KEY, _STREAMS_GROUP_METADATA_VALUE),
    _record(19, "StreamsGroupMemberMetadata", _MEMBER_KEY, _STREAMS_GROUP_MEMBER_METADATA_VALUE),
    _record(20, "StreamsGroupTargetAssignmentMetadata", _GROUP_KEY, _assignment_metadata()),
    _record(21, "StreamsGroupTargetAssignmentMember", _MEMBER_KEY,
            _STREAMS_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE),
    _record(22, "StreamsGroupCurrentMemberAssignment", _MEMBER_KEY,
            _STREAMS_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE),
    _record(23, "StreamsGroupTopology", _GROUP_KEY, _STREAMS_GROUP_TOPOLOGY_VALUE),
)}


@dataclass(frozen=True)
class CoordinatorRecord:
    """One ``__consumer_offsets`` record; ``value`` None (and ``value_version`` None) is a
    tombstone."""

    record_type: int
    key_type: str
    key: Message
    value_type: str
    value_version: int | None
    value: Message | None

    @property
    def tombstone(self) -> bool:
        return self.value is None


def _record_type(record_type: Any) -> RecordType:
    found = RECORD_TYPES.get(record_type) if isinstance(record_type, int) else None
    if found is None:
        raise UnknownKindError(f"unknown __consumer_offsets record type {record_type!r}")
    return found


def _prefix(data: bytes, half: str) -> int:
    if len(data) < 2:
        raise TruncatedError(f"could not read the int16 prefix of the record {half}", offset=0)
    return int(_INT16.unpack_from(data)[0])


def decode_coordinator_record(key: bytes, value: bytes | None) -> CoordinatorRecord:
    """Decode a stored record (key bytes, value bytes or None for a tombstone).

    Errors name the half (``kind`` = its key or value type once the record type is known) and
    the offset in that half's stored bytes, prefix included.
    """
    with reporting("CoordinatorRecord"):
        key = as_bytes(key)
        record = _record_type(_prefix(key, "key"))
        with reporting(record.key_type, 0):
            decoded_key = _decode_half(record.key, key, 0, False)
        if value is None:
            return CoordinatorRecord(record.record_type, record.key_type, decoded_key,
                                     record.value_type, None, None)
        with reporting(record.value_type):
            value = as_bytes(value)
            version = _prefix(value, "value")
            if not 0 <= version <= record.highest_value_version:
                raise InvalidVersionError(
                    f"{record.value_type} has versions 0-{record.highest_value_version},"
                    f" not {version}", version=version, offset=0)
            decoded_value = _decode_half(record.value, value, version,
                                         record.is_flexible(version))
        return CoordinatorRecord(record.record_type, record.key_type, decoded_key,
                                 record.value_type, version, decoded_value)


def _decode_half(fmt: FlexibleFormat, stored: bytes, version: int, flexible: bool) -> Any:
    try:
        return fmt.decode(stored[2:], version=version, flexible=flexible)
    except CodecError as exc:
        if exc.offset is not None:  # offsets count from the start of the stored bytes
            exc.offset += 2
        raise exc.fill(version=version) from None


def encode_coordinator_record(record_type: int, key: Any, value: Any = None,
                              value_version: int | None = None) -> tuple[bytes, bytes | None]:
    """The stored (key, value) bytes; ``value`` None writes a tombstone. Models or dicts."""
    with reporting("CoordinatorRecord"):
        record = _record_type(record_type)
        with reporting(record.key_type, 0):
            key_bytes = _INT16.pack(record.record_type) + encode_half(record.key, key, 0, False)
        if value is None:
            return key_bytes, None
        if value_version is None:
            value_version = getattr(value, "version", None)
        with reporting(record.value_type, value_version):
            if not isinstance(value_version, int) or \
                    not 0 <= value_version <= record.highest_value_version:
                raise InvalidVersionError(
                    f"{record.value_type} has versions 0-{record.highest_value_version},"
                    f" not {value_version}")
            body = encode_half(record.value, value, value_version,
                                record.is_flexible(value_version))
        return key_bytes, _INT16.pack(value_version) + body


def encode_half(fmt: FlexibleFormat, given: Any, version: int, flexible: bool) -> bytes:
    """One record half (a key or a value struct, no prefix) from a model or a dict."""
    return fmt.encode(as_model(fmt.model, given, version), version=version, flexible=flexible)
