"""Read the bodies of the frames the timeline needs into plain field dicts.

Every body is decoded by :mod:`assignframe_codec` (its declarations follow the Kafka schema files);
this module only picks what the timeline uses: JoinGroup/SyncGroup as their ``to_dict()`` view
(snake_case fields, bytes as bytes), partition counts from Metadata responses and CreateTopics
requests, leaving members, heartbeat errors and the client software (ApiVersions, KIP-511);
ConsumerGroupHeartbeat and ConsumerGroupDescribe (KIP-848), ShareGroupHeartbeat and
ShareGroupDescribe (KIP-932), StreamsGroupHeartbeat and StreamsGroupDescribe (KIP-1071) as their
``to_dict()`` view.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import assignframe_codec as codec

from .frames import KafkaFrame

__all__ = ["Message", "read_message"]


@dataclass(frozen=True)
class Message:
    """A frame and its decoded fields (``fields`` is empty when ``error`` says why)."""

    frame: KafkaFrame
    fields: dict[str, Any]
    error: str | None = None

    @property
    def kind(self) -> str:
        return self.frame.kind


def _decoded(kind: str, frame: KafkaFrame) -> Any:
    return codec.decode(kind, frame.body, frame.api_version)


def _codec(kind: str) -> Callable[[KafkaFrame], dict[str, Any]]:
    def read(frame: KafkaFrame) -> dict[str, Any]:
        return dict(_decoded(kind, frame).to_dict())

    return read


def read_metadata_response(frame: KafkaFrame) -> dict[str, Any]:
    """topic -> partition count (topics answered without error)."""
    topics = _decoded("MetadataResponse", frame).topics
    counts = {t.name: len(t.partitions) for t in topics if t.name is not None and not t.error_code}
    # v10+ carries topic ids: the consumer rebalance protocol (KIP-848) names topics only by id
    ids = {kafka_uuid(t.topic_id): t.name for t in topics
           if t.name is not None and getattr(t, "topic_id", None) is not None}
    return {"partitions_per_topic": counts, "topic_names": ids}


def kafka_uuid(raw: bytes) -> str:
    """Metadata's raw 16-byte topic id as Kafka prints it (``Uuid.toString``: URL-safe base64,
    unpadded), the form the codec gives the KIP-848 APIs' topic ids."""
    return base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode("ascii")


def read_create_topics_request(frame: KafkaFrame) -> dict[str, Any]:
    """topic -> requested partition count (-1 = broker default)."""
    topics = _decoded("CreateTopicsRequest", frame).topics
    return {"partitions_per_topic": {topic.name: topic.num_partitions for topic in topics}}


def read_leave_group_request(frame: KafkaFrame) -> dict[str, Any]:
    """Group id and the leaving members (one member id before v3)."""
    request = _decoded("LeaveGroupRequest", frame)
    if frame.api_version < 3:
        members = [{"member_id": request.member_id, "group_instance_id": None}]
    else:
        members = [_leaving(member, frame.api_version) for member in request.members]
    return {"group_id": request.group_id, "members": members}


def _leaving(member: Any, version: int) -> dict[str, Any]:
    leaving = {"member_id": member.member_id, "group_instance_id": member.group_instance_id}
    if version >= 5:
        leaving["reason"] = member.reason
    return leaving


def read_heartbeat_request(frame: KafkaFrame) -> dict[str, Any]:
    """Group id, generation, member id."""
    request = _decoded("HeartbeatRequest", frame)
    return {"group_id": request.group_id, "generation_id": request.generation_id,
            "member_id": request.member_id}


def _error_code(kind: str) -> Callable[[KafkaFrame], dict[str, Any]]:
    def read(frame: KafkaFrame) -> dict[str, Any]:
        return {"error_code": _decoded(kind, frame).error_code}

    return read


def read_api_versions_request(frame: KafkaFrame) -> dict[str, Any]:
    """The client software name and version (v3+, KIP-511)."""
    if frame.api_version < 3:
        return {}
    request = _decoded("ApiVersionsRequest", frame)
    return {"client_software_name": request.client_software_name,
            "client_software_version": request.client_software_version}


#: by kind (api name + Request/Response), as the codec names its declarations
_READERS: dict[str, Callable[[KafkaFrame], dict[str, Any]]] = {
    "JoinGroupRequest": _codec("JoinGroupRequest"),
    "JoinGroupResponse": _codec("JoinGroupResponse"),
    "SyncGroupRequest": _codec("SyncGroupRequest"),
    "SyncGroupResponse": _codec("SyncGroupResponse"),
    "MetadataResponse": read_metadata_response,
    "CreateTopicsRequest": read_create_topics_request,
    "LeaveGroupRequest": read_leave_group_request,
    "LeaveGroupResponse": _error_code("LeaveGroupResponse"),
    "HeartbeatRequest": read_heartbeat_request,
    "HeartbeatResponse": _error_code("HeartbeatResponse"),
    "ApiVersionsRequest": read_api_versions_request,
    "ConsumerGroupHeartbeatRequest": _codec("ConsumerGroupHeartbeatRequest"),
    "ConsumerGroupHeartbeatResponse": _codec("ConsumerGroupHeartbeatResponse"),
    "ConsumerGroupDescribeResponse": _codec("ConsumerGroupDescribeResponse"),
    "ShareGroupHeartbeatRequest": _codec("ShareGroupHeartbeatRequest"),
    "ShareGroupHeartbeatResponse": _codec("ShareGroupHeartbeatResponse"),
    "ShareGroupDescribeResponse": _codec("ShareGroupDescribeResponse"),
    "StreamsGroupHeartbeatRequest": _codec("StreamsGroupHeartbeatRequest"),
    "StreamsGroupHeartbeatResponse": _codec("StreamsGroupHeartbeatResponse"),
    "StreamsGroupDescribeResponse": _codec("StreamsGroupDescribeResponse"),
}


def read_message(frame: KafkaFrame) -> Message | None:
    """Decode one frame's body; None for frames the timeline does not use."""
    reader = _READERS.get(frame.kind)
    if reader is None:
        return None
    try:
        return Message(frame, reader(frame))
    except codec.CodecError as exc:
        return Message(frame, {}, f"{type(exc).__name__}: {exc}")
