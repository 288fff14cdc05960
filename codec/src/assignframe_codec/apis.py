"""The other request/response bodies ``assignframe.decode`` reads, declared like their schemas.

Metadata (partition counts; its request too, for the cluster reader), CreateTopics (requested
partition counts), LeaveGroup (who leaves), Heartbeat (errors, generations) and ApiVersions
(client software, KIP-511). Every field of every version is declared, so a body is walked
exactly as Java walks it; context parameters ``version`` and ``flexible`` as in :mod:`.group`.
Schemas: clients/src/main/resources/common/message/<Name>.json; the flexible thresholds come
from :mod:`.tables`. Metadata's topic ids are raw 16-byte ``bytes`` here (``assignframe decode``
reads them so), unlike the Kafka uuid strings of the generated kinds.
"""

from __future__ import annotations

from construct import Struct

from .api_types import NO_AUTHORIZED_OPERATIONS
from .primitives import (
    Array,
    Bool,
    Int16,
    Int32,
    NullableArray,
    NullableString,
    NullableStringSince,
    Since,
    String,
    TaggedFields,
    Uuid,
    ValidVersions,
)

__all__ = [
    "API_VERSIONS_REQUEST",
    "CREATE_TOPICS_REQUEST",
    "HEARTBEAT_REQUEST",
    "HEARTBEAT_RESPONSE",
    "LEAVE_GROUP_REQUEST",
    "LEAVE_GROUP_RESPONSE",
    "METADATA_REQUEST",
    "METADATA_RESPONSE",
]

# --------------------------------------------------------------------------- Metadata
METADATA_REQUEST_TOPIC = Struct(
    ValidVersions(0, 13, "MetadataRequestTopic"),
    "topic_id" / Since(10, Uuid, default=bytes(16), ignorable=True),    # 10+
    "name" / NullableStringSince(10),                                   # 0+, nullable 10+
    "tagged_fields" / TaggedFields,                                     # 9+
)

METADATA_REQUEST = Struct(
    "topics" / NullableArray(METADATA_REQUEST_TOPIC, since=1),          # 0+, nullable 1+
    "allow_auto_topic_creation" / Since(4, Bool, default=True),         # 4+
    "include_cluster_authorized_operations" / Since(8, Bool, last=10, default=False),  # 8-10
    "include_topic_authorized_operations" / Since(8, Bool, default=False),  # 8+
    "tagged_fields" / TaggedFields,                                     # 9+
)
METADATA_REQUEST.__doc__ = """MetadataRequest v0-13, flexible 9+, api key 3.

Follows clients/src/main/resources/common/message/MetadataRequest.json. ``topics``: at v0 an
empty array means every topic; from v1 null means every topic and empty means none.
"""

METADATA_RESPONSE_BROKER = Struct(
    ValidVersions(0, 13, "MetadataResponseBroker"),
    "node_id" / Int32,                                                  # 0+
    "host" / String,                                                    # 0+
    "port" / Int32,                                                     # 0+
    "rack" / Since(1, NullableString, ignorable=True),                  # 1+, nullable 1+
    "tagged_fields" / TaggedFields,                                     # 9+
)

METADATA_RESPONSE_PARTITION = Struct(
    ValidVersions(0, 13, "MetadataResponsePartition"),
    "error_code" / Int16,                                               # 0+
    "partition_index" / Int32,                                          # 0+
    "leader_id" / Int32,                                                # 0+
    "leader_epoch" / Since(7, Int32, default=-1, ignorable=True),       # 7+
    "replica_nodes" / Array(Int32),                                     # 0+
    "isr_nodes" / Array(Int32),                                         # 0+
    "offline_replicas" / Since(5, Array(Int32), default=(), ignorable=True),  # 5+
    "tagged_fields" / TaggedFields,                                     # 9+
)

METADATA_RESPONSE_TOPIC = Struct(
    ValidVersions(0, 13, "MetadataResponseTopic"),
    "error_code" / Int16,                                               # 0+
    "name" / NullableStringSince(12),                                   # 0+, nullable 12+
    "topic_id" / Since(10, Uuid, default=bytes(16), ignorable=True),    # 10+
    "is_internal" / Since(1, Bool, default=False, ignorable=True),      # 1+
    "partitions" / Array(METADATA_RESPONSE_PARTITION),                  # 0+
    "topic_authorized_operations" / Since(8, Int32, default=NO_AUTHORIZED_OPERATIONS),  # 8+
    "tagged_fields" / TaggedFields,                                     # 9+
)

METADATA_RESPONSE = Struct(
    "throttle_time_ms" / Since(3, Int32, default=0, ignorable=True),    # 3+
    "brokers" / Array(METADATA_RESPONSE_BROKER),                        # 0+
    "cluster_id" / Since(2, NullableString, ignorable=True),            # 2+, nullable 2+
    "controller_id" / Since(1, Int32, default=-1, ignorable=True),      # 1+
    "topics" / Array(METADATA_RESPONSE_TOPIC),                          # 0+
    "cluster_authorized_operations" / Since(8, Int32, last=10,          # 8-10
                                            default=NO_AUTHORIZED_OPERATIONS),
    "error_code" / Since(13, Int16, default=0, ignorable=True),         # 13+
    "tagged_fields" / TaggedFields,                                     # 9+
)
METADATA_RESPONSE.__doc__ = """MetadataResponse v0-13, flexible 9+, api key 3.

Follows clients/src/main/resources/common/message/MetadataResponse.json.
"""

# --------------------------------------------------------------------------- CreateTopics
CREATABLE_REPLICA_ASSIGNMENT = Struct(
    ValidVersions(0, 7, "CreatableReplicaAssignment"),
    "partition_index" / Int32,                                          # 0+
    "broker_ids" / Array(Int32),                                        # 0+
    "tagged_fields" / TaggedFields,                                     # 5+
)

CREATABLE_TOPIC_CONFIG = Struct(
    ValidVersions(0, 7, "CreatableTopicConfig"),
    "name" / String,                                                    # 0+
    "value" / NullableString,                                           # 0+, nullable 0+
    "tagged_fields" / TaggedFields,                                     # 5+
)

CREATABLE_TOPIC = Struct(
    ValidVersions(0, 7, "CreatableTopic"),
    "name" / String,                                                    # 0+ (mapKey)
    "num_partitions" / Int32,                                           # 0+, -1 = broker default
    "replication_factor" / Int16,                                       # 0+
    "assignments" / Array(CREATABLE_REPLICA_ASSIGNMENT),                # 0+
    "configs" / Array(CREATABLE_TOPIC_CONFIG),                          # 0+
    "tagged_fields" / TaggedFields,                                     # 5+
)

CREATE_TOPICS_REQUEST = Struct(
    "topics" / Array(CREATABLE_TOPIC),                                  # 0+
    "timeout_ms" / Int32,                                               # 0+
    "validate_only" / Since(1, Bool, default=False),                    # 1+
    "tagged_fields" / TaggedFields,                                     # 5+
)
CREATE_TOPICS_REQUEST.__doc__ = """CreateTopicsRequest v0-7, flexible 5+, api key 19.

Follows clients/src/main/resources/common/message/CreateTopicsRequest.json (Kafka 4 keeps
versions 2-7; versions 0 and 1 have the same layout, v0 without validate_only).
"""

# --------------------------------------------------------------------------- LeaveGroup
LEAVE_GROUP_REQUEST_MEMBER = Struct(
    ValidVersions(0, 5, "MemberIdentity"),
    "member_id" / String,                                               # 3+
    "group_instance_id" / NullableString,                               # 3+, nullable 3+
    "reason" / Since(5, NullableString, ignorable=True),                # 5+ (KIP-800)
    "tagged_fields" / TaggedFields,                                     # 4+
)

LEAVE_GROUP_REQUEST = Struct(
    "group_id" / String,                                                # 0+
    "member_id" / Since(0, String, last=2, default=""),                 # 0-2
    "members" / Since(3, Array(LEAVE_GROUP_REQUEST_MEMBER), default=()),  # 3+ (KIP-345)
    "tagged_fields" / TaggedFields,                                     # 4+
)
LEAVE_GROUP_REQUEST.__doc__ = """LeaveGroupRequest v0-5, flexible 4+, api key 13.

Follows clients/src/main/resources/common/message/LeaveGroupRequest.json.
"""

LEAVE_GROUP_RESPONSE_MEMBER = Struct(
    ValidVersions(0, 5, "MemberResponse"),
    "member_id" / String,                                               # 3+
    "group_instance_id" / NullableString,                               # 3+, nullable 3+
    "error_code" / Int16,                                               # 3+
    "tagged_fields" / TaggedFields,                                     # 4+
)

LEAVE_GROUP_RESPONSE = Struct(
    "throttle_time_ms" / Since(1, Int32, default=0, ignorable=True),    # 1+
    "error_code" / Int16,                                               # 0+
    "members" / Since(3, Array(LEAVE_GROUP_RESPONSE_MEMBER), default=()),  # 3+
    "tagged_fields" / TaggedFields,                                     # 4+
)
LEAVE_GROUP_RESPONSE.__doc__ = """LeaveGroupResponse v0-5, flexible 4+, api key 13.

Follows clients/src/main/resources/common/message/LeaveGroupResponse.json.
"""

# --------------------------------------------------------------------------- Heartbeat
HEARTBEAT_REQUEST = Struct(
    "group_id" / String,                                                # 0+
    "generation_id" / Int32,                                            # 0+
    "member_id" / String,                                               # 0+
    "group_instance_id" / Since(3, NullableString),                     # 3+, nullable 3+
    "tagged_fields" / TaggedFields,                                     # 4+
)
HEARTBEAT_REQUEST.__doc__ = """HeartbeatRequest v0-4, flexible 4+, api key 12.

Follows clients/src/main/resources/common/message/HeartbeatRequest.json.
"""

HEARTBEAT_RESPONSE = Struct(
    "throttle_time_ms" / Since(1, Int32, default=0, ignorable=True),    # 1+
    "error_code" / Int16,                                               # 0+
    "tagged_fields" / TaggedFields,                                     # 4+
)
HEARTBEAT_RESPONSE.__doc__ = """HeartbeatResponse v0-4, flexible 4+, api key 12.

Follows clients/src/main/resources/common/message/HeartbeatResponse.json.
"""

# --------------------------------------------------------------------------- ApiVersions
API_VERSIONS_REQUEST = Struct(
    "client_software_name" / Since(3, String, default="", ignorable=True),     # 3+ (KIP-511)
    "client_software_version" / Since(3, String, default="", ignorable=True),  # 3+
    "tagged_fields" / TaggedFields,                                     # 3+
)
API_VERSIONS_REQUEST.__doc__ = """ApiVersionsRequest v0-4, flexible 3+, api key 18.

Follows clients/src/main/resources/common/message/ApiVersionsRequest.json.
"""
