"""Read the bodies of the frames the timeline needs into plain field dicts.

JoinGroup and SyncGroup go through :mod:`assignframe_codec` (its ``to_dict()`` view: snake_case
fields, bytes as bytes). The codec does not declare Metadata, CreateTopics, LeaveGroup, Heartbeat
or ApiVersions; the few fields read from them here (partition counts, leaving members, heartbeat
errors, client software) follow the Kafka schema files under
``clients/src/main/resources/common/message/`` for the versions noted on each function.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import assignframe_codec

from .kafka import KafkaFrame, flexible
from .wire import Reader, WireError

__all__ = ["Message", "read_message"]


@dataclass(frozen=True)
class Message:
    """A frame and its decoded fields (``fields`` is empty when ``error`` says why)."""

    frame: KafkaFrame
    fields: dict[str, Any]
    error: str | None = None

    @property
    def kind(self) -> str:
        return f"{self.frame.api_name}{'Request' if self.frame.is_request else 'Response'}"


def _codec(kind: str) -> Callable[[KafkaFrame], dict[str, Any]]:
    def read(frame: KafkaFrame) -> dict[str, Any]:
        return dict(assignframe_codec.decode(kind, frame.body, frame.api_version).to_dict())

    return read


def _reader(frame: KafkaFrame) -> Reader:
    return Reader(frame.body, flexible=flexible(frame.api_key, frame.api_version))


def _metadata_partition(r: Reader, version: int) -> int:
    r.int16()  # error_code
    index = r.int32()
    r.int32()  # leader_id
    if version >= 7:
        r.int32()  # leader_epoch
    for _ in range(3 if version >= 5 else 2):  # replicas, isr, offline replicas (v5+)
        r.array(Reader.int32)
    r.tagged_fields()
    return index


def _metadata_topic(r: Reader, version: int) -> tuple[str | None, int, int]:
    error_code = r.int16()
    name = r.string()
    if version >= 10:
        r.uuid()
    if version >= 1:
        r.boolean()  # is_internal
    partitions = r.array(lambda rr: _metadata_partition(rr, version)) or []
    if version >= 8:
        r.int32()  # topic_authorized_operations
    r.tagged_fields()
    return name, error_code, len(partitions)


def _metadata_broker(r: Reader, version: int) -> None:
    r.int32(), r.string(), r.int32()  # node_id, host, port
    if version >= 1:
        r.string()  # rack
    r.tagged_fields()


def read_metadata_response(frame: KafkaFrame) -> dict[str, Any]:
    """MetadataResponse v0-12: topic -> partition count (topics answered without error)."""
    r, version = _reader(frame), frame.api_version
    if version >= 3:
        r.int32()  # throttle_time_ms
    r.array(lambda rr: _metadata_broker(rr, version))
    if version >= 2:
        r.string()  # cluster_id
    if version >= 1:
        r.int32()  # controller_id
    topics = r.array(lambda rr: _metadata_topic(rr, version)) or []
    counts = {name: count for name, error, count in topics if name is not None and error == 0}
    return {"partitions_per_topic": counts}


def _skip_assignment(r: Reader) -> None:
    r.int32(), r.array(Reader.int32)  # partition_index, broker_ids
    r.tagged_fields()


def _skip_config(r: Reader) -> None:
    r.string(), r.string()  # name, value
    r.tagged_fields()


def _create_topic(r: Reader) -> tuple[str | None, int]:
    name, num_partitions = r.string(), r.int32()
    r.int16()  # replication_factor
    r.array(_skip_assignment)
    r.array(_skip_config)
    r.tagged_fields()
    return name, num_partitions


def read_create_topics_request(frame: KafkaFrame) -> dict[str, Any]:
    """CreateTopicsRequest v0-7: topic -> requested partition count (-1 = broker default)."""
    topics = _reader(frame).array(_create_topic) or []
    return {"partitions_per_topic": {name: count for name, count in topics if name is not None}}


def read_leave_group_request(frame: KafkaFrame) -> dict[str, Any]:
    """LeaveGroupRequest v0-5: group id and the leaving members (one member id before v3)."""
    r, version = _reader(frame), frame.api_version
    group_id = r.string()
    if version < 3:
        return {
            "group_id": group_id,
            "members": [{"member_id": r.string(), "group_instance_id": None}],
        }

    def member(rr: Reader) -> dict[str, Any]:
        leaving = {"member_id": rr.string(), "group_instance_id": rr.string()}
        if version >= 5:
            leaving["reason"] = rr.string()
        rr.tagged_fields()
        return leaving

    return {"group_id": group_id, "members": r.array(member) or []}


def read_heartbeat_request(frame: KafkaFrame) -> dict[str, Any]:
    """HeartbeatRequest v0-4: group id, generation, member id."""
    r = _reader(frame)
    return {"group_id": r.string(), "generation_id": r.int32(), "member_id": r.string()}


def read_error_code_response(frame: KafkaFrame) -> dict[str, Any]:
    """Heartbeat/LeaveGroup responses: throttle_time_ms (v1+) then error_code."""
    r = _reader(frame)
    if frame.api_version >= 1:
        r.int32()
    return {"error_code": r.int16()}


def read_api_versions_request(frame: KafkaFrame) -> dict[str, Any]:
    """ApiVersionsRequest v3+: the client software name and version (KIP-511)."""
    if frame.api_version < 3:
        return {}
    r = _reader(frame)
    return {"client_software_name": r.string(), "client_software_version": r.string()}


_READERS: dict[tuple[int, bool], Callable[[KafkaFrame], dict[str, Any]]] = {
    (11, True): _codec("JoinGroupRequest"),
    (11, False): _codec("JoinGroupResponse"),
    (14, True): _codec("SyncGroupRequest"),
    (14, False): _codec("SyncGroupResponse"),
    (3, False): read_metadata_response,
    (19, True): read_create_topics_request,
    (13, True): read_leave_group_request,
    (13, False): read_error_code_response,
    (12, True): read_heartbeat_request,
    (12, False): read_error_code_response,
    (18, True): read_api_versions_request,
}


def read_message(frame: KafkaFrame) -> Message | None:
    """Decode one frame's body; None for frames the timeline does not use."""
    reader = _READERS.get((frame.api_key, frame.is_request))
    if reader is None:
        return None
    try:
        return Message(frame, reader(frame))
    except (WireError, assignframe_codec.CodecError, UnicodeDecodeError) as exc:
        return Message(frame, {}, f"{type(exc).__name__}: {exc}")
