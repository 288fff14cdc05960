"""Typed results of the request/response bodies that ``assignframe.decode`` reads.

The same conventions as :mod:`.types` (schema names in snake_case, schema defaults, frozen,
``to_dict()`` leaves out fields absent at the decoded version); declared in :mod:`.apis`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from .types import Message, TaggedFieldList

__all__ = [
    "ApiVersionsRequest",
    "CreatableReplicaAssignment",
    "CreatableTopic",
    "CreatableTopicConfig",
    "CreateTopicsRequest",
    "HeartbeatRequest",
    "HeartbeatResponse",
    "LeaveGroupRequest",
    "LeaveGroupRequestMember",
    "LeaveGroupResponse",
    "LeaveGroupResponseMember",
    "MetadataRequest",
    "MetadataRequestTopic",
    "MetadataResponse",
    "MetadataResponseBroker",
    "MetadataResponsePartition",
    "MetadataResponseTopic",
]

NO_AUTHORIZED_OPERATIONS = -(2 ** 31)  # INT32_MIN: "not requested"
ZERO_UUID = bytes(16)


# --------------------------------------------------------------------------- Metadata
@dataclass(frozen=True, kw_only=True)
class MetadataRequestTopic(Message):
    topic_id: bytes = ZERO_UUID
    name: str | None
    unknown_tagged_fields: TaggedFieldList = ()


@dataclass(frozen=True, kw_only=True)
class MetadataRequest(Message):
    """``topics`` None: every topic (v1+); at v0 an empty tuple asks for every topic."""

    version: int
    topics: tuple[MetadataRequestTopic, ...] | None
    allow_auto_topic_creation: bool = True
    include_cluster_authorized_operations: bool = False
    include_topic_authorized_operations: bool = False
    unknown_tagged_fields: TaggedFieldList = ()

    _elements: ClassVar[Mapping[str, type[Message]]] = {"topics": MetadataRequestTopic}


@dataclass(frozen=True, kw_only=True)
class MetadataResponseBroker(Message):
    node_id: int
    host: str
    port: int
    rack: str | None = None
    unknown_tagged_fields: TaggedFieldList = ()


@dataclass(frozen=True, kw_only=True)
class MetadataResponsePartition(Message):
    error_code: int
    partition_index: int
    leader_id: int
    leader_epoch: int = -1
    replica_nodes: tuple[int, ...]
    isr_nodes: tuple[int, ...]
    offline_replicas: tuple[int, ...] = ()
    unknown_tagged_fields: TaggedFieldList = ()


@dataclass(frozen=True, kw_only=True)
class MetadataResponseTopic(Message):
    error_code: int
    name: str | None
    topic_id: bytes = ZERO_UUID
    is_internal: bool = False
    partitions: tuple[MetadataResponsePartition, ...]
    topic_authorized_operations: int = NO_AUTHORIZED_OPERATIONS
    unknown_tagged_fields: TaggedFieldList = ()

    _elements: ClassVar[Mapping[str, type[Message]]] = {"partitions": MetadataResponsePartition}


@dataclass(frozen=True, kw_only=True)
class MetadataResponse(Message):
    version: int
    throttle_time_ms: int = 0
    brokers: tuple[MetadataResponseBroker, ...]
    cluster_id: str | None = None
    controller_id: int = -1
    topics: tuple[MetadataResponseTopic, ...]
    cluster_authorized_operations: int = NO_AUTHORIZED_OPERATIONS
    error_code: int = 0
    unknown_tagged_fields: TaggedFieldList = ()

    _elements: ClassVar[Mapping[str, type[Message]]] = {
        "brokers": MetadataResponseBroker, "topics": MetadataResponseTopic}


# --------------------------------------------------------------------------- CreateTopics
@dataclass(frozen=True, kw_only=True)
class CreatableReplicaAssignment(Message):
    partition_index: int
    broker_ids: tuple[int, ...]
    unknown_tagged_fields: TaggedFieldList = ()


@dataclass(frozen=True, kw_only=True)
class CreatableTopicConfig(Message):
    name: str
    value: str | None
    unknown_tagged_fields: TaggedFieldList = ()


@dataclass(frozen=True, kw_only=True)
class CreatableTopic(Message):
    name: str
    num_partitions: int
    replication_factor: int
    assignments: tuple[CreatableReplicaAssignment, ...]
    configs: tuple[CreatableTopicConfig, ...]
    unknown_tagged_fields: TaggedFieldList = ()

    _elements: ClassVar[Mapping[str, type[Message]]] = {
        "assignments": CreatableReplicaAssignment, "configs": CreatableTopicConfig}


@dataclass(frozen=True, kw_only=True)
class CreateTopicsRequest(Message):
    version: int
    topics: tuple[CreatableTopic, ...]
    timeout_ms: int = 60000
    validate_only: bool = False
    unknown_tagged_fields: TaggedFieldList = ()

    _elements: ClassVar[Mapping[str, type[Message]]] = {"topics": CreatableTopic}


# --------------------------------------------------------------------------- LeaveGroup
@dataclass(frozen=True, kw_only=True)
class LeaveGroupRequestMember(Message):
    """``MemberIdentity`` in LeaveGroupRequest.json."""

    member_id: str
    group_instance_id: str | None = None
    reason: str | None = None
    unknown_tagged_fields: TaggedFieldList = ()


@dataclass(frozen=True, kw_only=True)
class LeaveGroupRequest(Message):
    version: int
    group_id: str
    member_id: str = ""
    members: tuple[LeaveGroupRequestMember, ...] = ()
    unknown_tagged_fields: TaggedFieldList = ()

    _elements: ClassVar[Mapping[str, type[Message]]] = {"members": LeaveGroupRequestMember}


@dataclass(frozen=True, kw_only=True)
class LeaveGroupResponseMember(Message):
    """``MemberResponse`` in LeaveGroupResponse.json."""

    member_id: str
    group_instance_id: str | None
    error_code: int
    unknown_tagged_fields: TaggedFieldList = ()


@dataclass(frozen=True, kw_only=True)
class LeaveGroupResponse(Message):
    version: int
    throttle_time_ms: int = 0
    error_code: int
    members: tuple[LeaveGroupResponseMember, ...] = ()
    unknown_tagged_fields: TaggedFieldList = ()

    _elements: ClassVar[Mapping[str, type[Message]]] = {"members": LeaveGroupResponseMember}


# --------------------------------------------------------------------------- Heartbeat
@dataclass(frozen=True, kw_only=True)
class HeartbeatRequest(Message):
    version: int
    group_id: str
    generation_id: int
    member_id: str
    group_instance_id: str | None = None
    unknown_tagged_fields: TaggedFieldList = ()


@dataclass(frozen=True, kw_only=True)
class HeartbeatResponse(Message):
    version: int
    throttle_time_ms: int = 0
    error_code: int
    unknown_tagged_fields: TaggedFieldList = ()


# --------------------------------------------------------------------------- ApiVersions
@dataclass(frozen=True, kw_only=True)
class ApiVersionsRequest(Message):
    version: int
    client_software_name: str = ""
    client_software_version: str = ""
    unknown_tagged_fields: TaggedFieldList = ()
