"""Typed, frozen results of decoding: one dataclass per schema struct.

Field names are the schema's names in snake_case; defaults are the schema's defaults, which is
also what a field absent at the decoded version holds. ``to_dict()`` leaves such fields out;
which versions hold which field is read from the construct declaration (``_windows`` is bound
by :mod:`assignframe_codec.registry`), so versions are declared in one place only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

__all__ = [
    "Assignment",
    "CooperativeUserData",
    "Frame",
    "GroupMetadataKey",
    "GroupMetadataValue",
    "JoinGroupRequest",
    "JoinGroupRequestProtocol",
    "JoinGroupResponse",
    "JoinGroupResponseMember",
    "MemberData",
    "MemberMetadata",
    "Message",
    "OffsetCommitKey",
    "OffsetCommitValue",
    "RequestHeader",
    "ResponseHeader",
    "StickyUserData",
    "Subscription",
    "SyncGroupRequest",
    "SyncGroupRequestAssignment",
    "SyncGroupResponse",
    "TopicPartitions",
]

TaggedFieldList = tuple[tuple[int, bytes], ...]
UNKNOWN_TAGS = "unknown_tagged_fields"


class Message:
    """Base of the typed structs: version-aware ``to_dict`` with Kafka's snake_case names."""

    __slots__ = ()  # lets a subclass declare slots (TopicPartitions); the others keep a __dict__

    _windows: ClassVar[Mapping[str, tuple[int, int | None]]] = {}
    _elements: ClassVar[Mapping[str, type[Message]]] = {}

    def to_dict(self, version: int | None = None) -> dict[str, Any]:
        """Fields present at ``version`` (default: this object's), bytes as bytes.

        Unknown tagged fields appear under ``unknown_tagged_fields`` only when there are some.
        """
        if version is None:
            version = getattr(self, "version", None)
        out: dict[str, Any] = {}
        for item in fields(self):  # type: ignore[arg-type]
            name, value = item.name, getattr(self, item.name)
            if name == "version" or not self._present(name, version):
                continue
            if name == UNKNOWN_TAGS and not value:
                continue
            out[name] = _plain(value, version)
        return out

    def _present(self, name: str, version: int | None) -> bool:
        window = self._windows.get(name)
        if window is None or version is None:
            return True
        first, last = window
        return first <= version and (last is None or version <= last)


def _plain(value: Any, version: int | None) -> Any:
    if isinstance(value, Message):
        return value.to_dict(version)
    if isinstance(value, tuple):
        return [_plain(item, version) for item in value]
    return value


# --------------------------------------------------------------------------- consumer protocol
@dataclass(frozen=True, slots=True)
class TopicPartitions(Message):
    """One topic and some of its partitions, as grouped on the wire.

    Slotted: a leader may hold millions (sticky user data), at ~48 bytes each without a dict.
    """

    topic: str
    partitions: tuple[int, ...]


@dataclass(frozen=True)
class Subscription(Message):
    """ConsumerProtocolSubscription; ``generation_id`` -1 and ``rack_id`` None mean absent."""

    version: int
    topics: tuple[str, ...]
    user_data: bytes | None
    owned_partitions: tuple[TopicPartitions, ...] = ()
    generation_id: int = -1
    rack_id: str | None = None

    _elements: ClassVar[Mapping[str, type[Message]]] = {"owned_partitions": TopicPartitions}


@dataclass(frozen=True)
class Assignment(Message):
    """ConsumerProtocolAssignment."""

    version: int
    assigned_partitions: tuple[TopicPartitions, ...]
    user_data: bytes | None

    _elements: ClassVar[Mapping[str, type[Message]]] = {"assigned_partitions": TopicPartitions}


# --------------------------------------------------------------------------- assignor user data
@dataclass(frozen=True)
class StickyUserData(Message):
    """StickyAssignor user data; ``layout`` "V1" carries a generation, "V0" does not."""

    layout: str
    previous_assignment: tuple[TopicPartitions, ...]
    generation: int | None

    _elements: ClassVar[Mapping[str, type[Message]]] = {"previous_assignment": TopicPartitions}

    def to_dict(self, version: int | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"previous_assignment": _plain(self.previous_assignment, None)}
        if self.layout == "V1":
            out["generation"] = self.generation
        return out


@dataclass(frozen=True)
class CooperativeUserData(Message):
    """Cooperative-sticky user data: Java's bare int32 generation ("java-generation") or the
    full sticky V1 layout that librdkafka and franz-go write ("sticky-v1")."""

    layout: str
    generation: int
    previous_assignment: tuple[TopicPartitions, ...] | None = None

    _elements: ClassVar[Mapping[str, type[Message]]] = {"previous_assignment": TopicPartitions}

    def to_dict(self, version: int | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"generation": self.generation}
        if self.previous_assignment is not None:
            out["previous_assignment"] = _plain(self.previous_assignment, None)
        return out


@dataclass(frozen=True)
class MemberData(Message):
    """What Java's ``memberData(subscription)`` reads from user data alone (flat partitions)."""

    partitions: tuple[tuple[str, int], ...]
    generation: int | None


# --------------------------------------------------------------------------- JoinGroup / SyncGroup
@dataclass(frozen=True, kw_only=True)
class JoinGroupRequestProtocol(Message):
    name: str
    metadata: bytes
    unknown_tagged_fields: TaggedFieldList = ()


@dataclass(frozen=True, kw_only=True)
class JoinGroupRequest(Message):
    version: int
    group_id: str
    session_timeout_ms: int
    rebalance_timeout_ms: int = -1
    member_id: str
    group_instance_id: str | None = None
    protocol_type: str
    protocols: tuple[JoinGroupRequestProtocol, ...]
    reason: str | None = None
    unknown_tagged_fields: TaggedFieldList = ()

    _elements: ClassVar[Mapping[str, type[Message]]] = {"protocols": JoinGroupRequestProtocol}


@dataclass(frozen=True, kw_only=True)
class JoinGroupResponseMember(Message):
    member_id: str
    group_instance_id: str | None = None
    metadata: bytes
    unknown_tagged_fields: TaggedFieldList = ()


@dataclass(frozen=True, kw_only=True)
class JoinGroupResponse(Message):
    version: int
    throttle_time_ms: int = 0
    error_code: int
    generation_id: int = -1
    protocol_type: str | None = None
    protocol_name: str | None
    leader: str
    skip_assignment: bool = False
    member_id: str
    members: tuple[JoinGroupResponseMember, ...]
    unknown_tagged_fields: TaggedFieldList = ()

    _elements: ClassVar[Mapping[str, type[Message]]] = {"members": JoinGroupResponseMember}


@dataclass(frozen=True, kw_only=True)
class SyncGroupRequestAssignment(Message):
    member_id: str
    assignment: bytes
    unknown_tagged_fields: TaggedFieldList = ()


@dataclass(frozen=True, kw_only=True)
class SyncGroupRequest(Message):
    version: int
    group_id: str
    generation_id: int
    member_id: str
    group_instance_id: str | None = None
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignments: tuple[SyncGroupRequestAssignment, ...]
    unknown_tagged_fields: TaggedFieldList = ()

    _elements: ClassVar[Mapping[str, type[Message]]] = {"assignments": SyncGroupRequestAssignment}


@dataclass(frozen=True, kw_only=True)
class SyncGroupResponse(Message):
    version: int
    throttle_time_ms: int = 0
    error_code: int
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignment: bytes
    unknown_tagged_fields: TaggedFieldList = ()


# --------------------------------------------------------------------------- __consumer_offsets
@dataclass(frozen=True, kw_only=True)
class GroupMetadataKey(Message):
    version: int
    group: str


@dataclass(frozen=True, kw_only=True)
class MemberMetadata(Message):
    member_id: str
    group_instance_id: str | None = None
    client_id: str
    client_host: str
    rebalance_timeout: int = 0
    session_timeout: int
    subscription: bytes
    assignment: bytes
    unknown_tagged_fields: TaggedFieldList = ()


@dataclass(frozen=True, kw_only=True)
class GroupMetadataValue(Message):
    version: int
    protocol_type: str
    generation: int
    protocol: str | None
    leader: str | None
    current_state_timestamp: int = -1
    members: tuple[MemberMetadata, ...]
    unknown_tagged_fields: TaggedFieldList = ()

    _elements: ClassVar[Mapping[str, type[Message]]] = {"members": MemberMetadata}


@dataclass(frozen=True, kw_only=True)
class OffsetCommitKey(Message):
    version: int
    group: str
    topic: str
    partition: int


@dataclass(frozen=True, kw_only=True)
class OffsetCommitValue(Message):
    version: int
    offset: int
    leader_epoch: int = -1
    metadata: str
    commit_timestamp: int
    expire_timestamp: int = -1
    unknown_tagged_fields: TaggedFieldList = ()


# --------------------------------------------------------------------------- framing
@dataclass(frozen=True, kw_only=True)
class RequestHeader(Message):
    """Request header v1 (non-flexible bodies) or v2 (flexible bodies)."""

    version: int
    request_api_key: int
    request_api_version: int
    correlation_id: int
    client_id: str | None = None
    unknown_tagged_fields: TaggedFieldList = ()


@dataclass(frozen=True, kw_only=True)
class ResponseHeader(Message):
    """Response header v0 (non-flexible bodies) or v1 (flexible bodies)."""

    version: int
    correlation_id: int
    unknown_tagged_fields: TaggedFieldList = ()


@dataclass(frozen=True)
class Frame:
    """One size-delimited wire frame: header and typed body of ``kind`` at ``version``."""

    kind: str
    version: int
    header: RequestHeader | ResponseHeader
    body: Any = field(repr=True)
