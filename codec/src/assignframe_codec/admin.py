"""The bodies a read-only cluster reader sends and reads, declared like their schema tables:
ListGroups, DescribeGroups, FindCoordinator, OffsetFetch, ListOffsets, DescribeCluster,
DescribeShareGroupOffsets, DescribeConfigs and the ApiVersions response.
(MetadataRequest/Response and ApiVersionsRequest live in :mod:`.apis` with the other bodies
``assignframe decode`` reads.)

Every field of every version is declared, so a body is walked exactly as Java walks it; the
flexible threshold of each API comes from :mod:`.tables` and decides at run time whether strings,
arrays and bytes are compact and whether structs end with a tagged section. Models are generated
from these declarations (:mod:`.flexible_models`), as for the KIP-848 kinds.

Follows clients/src/main/resources/common/message/<Kind>.json of Apache Kafka 4.0 (trunk
1eb7644, 4.0.0-SNAPSHOT), checked byte for byte against ../shared/golden/admin/codec.jsonl;
DescribeShareGroupOffsets (KIP-932, v1 KIP-1226) follows Apache Kafka 4.3.1 (26b251a451) and is
checked against the 4.3.1 broker (tests/kafka43) and Java 4.3.1's own bytes
(codec/tests/golden43/describe_share_group_offsets.jsonl); DescribeConfigs v1-4 follows Apache
Kafka 4.3.1 too and is checked against Java 4.3.1's bytes (golden43/describe_configs.jsonl).
A field absent at a version reads as the schema default (not always zero: see the ``default=``
arguments), and writing a non-default value there is refused unless the schema marks it
``ignorable`` (then it is dropped, like Java).
"""

from __future__ import annotations

from construct import Struct

from . import tables
from .api_types import NO_AUTHORIZED_OPERATIONS
from .flexible import Tag, Uuid, message_struct, nested_struct
from .primitives import (
    Array,
    Bool,
    Bytes,
    Int8,
    Int16,
    Int32,
    Int64,
    NullableArray,
    NullableString,
    Since,
    String,
)

__all__ = ["DECLARATIONS"]

# --------------------------------------------------------------------------- ListGroups (16)
LIST_GROUPS_REQUEST = message_struct(
    "states_filter" / Since(4, Array(String), default=()),              # 4+ (KIP-518)
    "types_filter" / Since(5, Array(String), default=()),               # 5+ (KIP-848)
)

LIST_GROUPS_RESPONSE = message_struct(
    "throttle_time_ms" / Since(1, Int32, default=0, ignorable=True),    # 1+
    "error_code" / Int16,                                               # 0+
    "groups" / Array(nested_struct(                                     # 0+
        "ListedGroup", 5,
        "group_id" / String,                                            # 0+
        "protocol_type" / String,                                       # 0+
        "group_state" / Since(4, String, default="", ignorable=True),   # 4+
        "group_type" / Since(5, String, default="", ignorable=True),    # 5+
    )),
)

# --------------------------------------------------------------------------- DescribeGroups (15)
DESCRIBE_GROUPS_REQUEST = message_struct(
    "groups" / Array(String),                                           # 0+
    "include_authorized_operations" / Since(3, Bool, default=False),    # 3+
)

DESCRIBE_GROUPS_RESPONSE = message_struct(
    "throttle_time_ms" / Since(1, Int32, default=0, ignorable=True),    # 1+
    "groups" / Array(nested_struct(                                     # 0+
        "DescribedGroup", 5,
        "error_code" / Int16,                                           # 0+
        "group_id" / String,                                            # 0+
        "group_state" / String,                                         # 0+
        "protocol_type" / String,                                       # 0+
        "protocol_data" / String,                                       # 0+, Stable groups only
        "members" / Array(nested_struct(                                # 0+, empty when Dead
            "DescribedGroupMember", 5,
            "member_id" / String,                                       # 0+
            "group_instance_id" / Since(4, NullableString, ignorable=True),  # 4+, nullable
            "client_id" / String,                                       # 0+
            "client_host" / String,                                     # 0+
            "member_metadata" / Bytes,                                  # 0+, Stable only
            "member_assignment" / Bytes,                                # 0+, Stable only
        )),
        "authorized_operations" / Since(3, Int32, default=NO_AUTHORIZED_OPERATIONS),  # 3+
    )),
)

# --------------------------------------------------------------------------- FindCoordinator (10)
FIND_COORDINATOR_REQUEST = message_struct(
    "key" / Since(0, String, last=3, default=""),                       # 0-3
    "key_type" / Since(1, Int8, default=0),                             # 1+: 0 group 1 txn 2 share
    "coordinator_keys" / Since(4, Array(String), default=()),           # 4+ (KIP-699)
)

FIND_COORDINATOR_RESPONSE = message_struct(
    "throttle_time_ms" / Since(1, Int32, default=0, ignorable=True),    # 1+
    "error_code" / Since(0, Int16, last=3, default=0),                  # 0-3
    "error_message" / Since(1, NullableString, last=3, default="", ignorable=True),  # 1-3
    "node_id" / Since(0, Int32, last=3, default=0),                     # 0-3
    "host" / Since(0, String, last=3, default=""),                      # 0-3
    "port" / Since(0, Int32, last=3, default=0),                        # 0-3
    "coordinators" / Since(4, Array(nested_struct(                      # 4+ (KIP-699)
        "Coordinator", 6,
        "key" / String,
        "node_id" / Int32,
        "host" / String,
        "port" / Int32,
        "error_code" / Int16,
        "error_message" / NullableString,
    )), default=()),
)

# --------------------------------------------------------------------------- OffsetFetch (9)
OFFSET_FETCH_REQUEST = message_struct(
    "group_id" / Since(0, String, last=7, default=""),                  # 0-7
    "topics" / Since(0, NullableArray(nested_struct(                    # 0-7, nullable 2-7
        "OffsetFetchRequestTopic", 7,                                   #   (null = all topics)
        "name" / String,
        "partition_indexes" / Array(Int32),
    ), since=2), last=7, default=()),
    "groups" / Since(8, Array(nested_struct(                            # 8+ (KIP-709)
        "OffsetFetchRequestGroup", 9,
        "group_id" / String,
        "member_id" / Since(9, NullableString, ignorable=True),         # 9+ (KIP-848)
        "member_epoch" / Since(9, Int32, default=-1, ignorable=True),   # 9+
        "topics" / NullableArray(nested_struct(                         # null = all topics
            "OffsetFetchRequestTopics", 9,
            "name" / String,
            "partition_indexes" / Array(Int32),
        )),
    )), default=()),
    "require_stable" / Since(7, Bool, default=False),                   # 7+ (KIP-447)
)


def _offset_fetch_partition(name: str, highest: int, epoch_from: int) -> Struct:
    return nested_struct(
        name, highest,
        "partition_index" / Int32,
        "committed_offset" / Int64,
        "committed_leader_epoch" / Since(epoch_from, Int32, default=-1, ignorable=True),
        "metadata" / NullableString,
        "error_code" / Int16,
    )


OFFSET_FETCH_RESPONSE = message_struct(
    "throttle_time_ms" / Since(3, Int32, default=0, ignorable=True),    # 3+
    "topics" / Since(0, Array(nested_struct(                            # 0-7
        "OffsetFetchResponseTopic", 7,
        "name" / String,
        "partitions" / Array(_offset_fetch_partition("OffsetFetchResponsePartition", 7, 5)),
    )), last=7, default=()),
    "error_code" / Since(2, Int16, last=7, default=0, ignorable=True),  # 2-7
    "groups" / Since(8, Array(nested_struct(                            # 8+
        "OffsetFetchResponseGroup", 9,
        "group_id" / String,
        "topics" / Array(nested_struct(
            "OffsetFetchResponseTopics", 9,
            "name" / String,
            "partitions" / Array(_offset_fetch_partition("OffsetFetchResponsePartitions", 9, 8)),
        )),
        "error_code" / Int16,
    )), default=()),
)

# --------------------------------------------------------------------------- ListOffsets (2)
LIST_OFFSETS_REQUEST = message_struct(
    "replica_id" / Int32,                                               # 0+, -1 = a consumer
    "isolation_level" / Since(2, Int8, default=0),                      # 2+: 1 = read committed
    "topics" / Array(nested_struct(                                     # 0+
        "ListOffsetsTopic", 10,
        "name" / String,
        "partitions" / Array(nested_struct(
            "ListOffsetsPartition", 10,
            "partition_index" / Int32,                                  # 0+
            "current_leader_epoch" / Since(4, Int32, default=-1, ignorable=True),  # 4+
            "timestamp" / Int64,                                        # 0+: -1 latest, -2 earliest
            "max_num_offsets" / Since(0, Int32, last=0, default=1),     # 0 only
        )),
    )),
    "timeout_ms" / Since(10, Int32, default=0, ignorable=True),         # 10+ (KIP-1075)
)

LIST_OFFSETS_RESPONSE = message_struct(
    "throttle_time_ms" / Since(2, Int32, default=0, ignorable=True),    # 2+
    "topics" / Array(nested_struct(                                     # 0+
        "ListOffsetsTopicResponse", 10,
        "name" / String,
        "partitions" / Array(nested_struct(
            "ListOffsetsPartitionResponse", 10,
            "partition_index" / Int32,                                  # 0+
            "error_code" / Int16,                                       # 0+
            "old_style_offsets" / Since(0, Array(Int64), last=0, default=()),  # 0 only
            "timestamp" / Since(1, Int64, default=-1),                  # 1+
            "offset" / Since(1, Int64, default=-1),                     # 1+
            "leader_epoch" / Since(4, Int32, default=-1),               # 4+
        )),
    )),
)

# --------------------------------------------------------------------------- DescribeCluster (60)
DESCRIBE_CLUSTER_REQUEST = message_struct(
    "include_cluster_authorized_operations" / Bool,                     # 0+
    "endpoint_type" / Since(1, Int8, default=1),                        # 1+: 1 broker 2 controller
)

DESCRIBE_CLUSTER_RESPONSE = message_struct(
    "throttle_time_ms" / Int32,                                         # 0+
    "error_code" / Int16,                                               # 0+
    "error_message" / NullableString,                                   # 0+
    "endpoint_type" / Since(1, Int8, default=1),                        # 1+ (KIP-919)
    "cluster_id" / String,                                              # 0+
    "controller_id" / Int32,                                            # 0+, -1 = unknown
    "brokers" / Array(nested_struct(                                    # 0+
        "DescribeClusterBroker", 1,
        "broker_id" / Int32,
        "host" / String,
        "port" / Int32,
        "rack" / NullableString,
    )),
    "cluster_authorized_operations" / Int32,                            # 0+
)

# ------------------------------------------------------------- DescribeShareGroupOffsets (90)
DESCRIBE_SHARE_GROUP_OFFSETS_REQUEST = message_struct(
    "groups" / Array(nested_struct(                                     # 0+
        "DescribeShareGroupOffsetsRequestGroup", 1,
        "group_id" / String,
        "topics" / NullableArray(nested_struct(                         # 0+, null = all
            "DescribeShareGroupOffsetsRequestTopic", 1,
            "topic_name" / String,
            "partitions" / Array(Int32),
        )),
    )),
)

DESCRIBE_SHARE_GROUP_OFFSETS_RESPONSE = message_struct(
    "throttle_time_ms" / Int32,                                         # 0+
    "groups" / Array(nested_struct(                                     # 0+
        "DescribeShareGroupOffsetsResponseGroup", 1,
        "group_id" / String,
        "topics" / Array(nested_struct(
            "DescribeShareGroupOffsetsResponseTopic", 1,
            "topic_name" / String,
            "topic_id" / Uuid,
            "partitions" / Array(nested_struct(
                "DescribeShareGroupOffsetsResponsePartition", 1,
                "partition_index" / Int32,
                "start_offset" / Int64,                                 # the share-partition start
                "leader_epoch" / Int32,
                "lag" / Since(1, Int64, default=-1, ignorable=True),    # 1+ (KIP-1226)
                "error_code" / Int16,
                "error_message" / NullableString,
            )),
        )),
        "error_code" / Int16,
        "error_message" / NullableString,
    )),
)

# --------------------------------------------------------------------------- DescribeConfigs (32)
# Kafka 4.3.1 (26b251a451) schemas; v0 was removed in Kafka 4.0, v1 is the baseline.
DESCRIBE_CONFIGS_REQUEST = message_struct(
    "resources" / Array(nested_struct(                                  # 0+
        "DescribeConfigsResource", 4,
        "resource_type" / Int8,                                         # 2 topic 4 broker 32 group
        "resource_name" / String,
        "configuration_keys" / NullableArray(String),                   # null = every key
    )),
    "include_synonyms" / Since(1, Bool, default=False),                 # 1+
    "include_documentation" / Since(3, Bool, default=False),            # 3+
)

DESCRIBE_CONFIGS_RESPONSE = message_struct(
    "throttle_time_ms" / Int32,                                         # 0+
    "results" / Array(nested_struct(                                    # 0+
        "DescribeConfigsResult", 4,
        "error_code" / Int16,
        "error_message" / NullableString,
        "resource_type" / Int8,
        "resource_name" / String,
        "configs" / Array(nested_struct(
            "DescribeConfigsResourceResult", 4,
            "name" / String,
            "value" / NullableString,
            "read_only" / Bool,
            "config_source" / Since(1, Int8, default=-1, ignorable=True),   # 1+
            "is_sensitive" / Bool,
            "synonyms" / Since(1, Array(nested_struct(                  # 1+
                "DescribeConfigsSynonym", 4,
                "name" / String,
                "value" / NullableString,
                "source" / Int8,
            )), default=(), ignorable=True),
            "config_type" / Since(3, Int8, default=0, ignorable=True),  # 3+
            "documentation" / Since(3, NullableString, default="", ignorable=True),  # 3+
        )),
    )),
)

# --------------------------------------------------------------------------- ApiVersions (18)
API_VERSIONS_RESPONSE = message_struct(
    "error_code" / Int16,                                               # 0+
    "api_keys" / Array(nested_struct(                                   # 0+
        "ApiVersion", 4,
        "api_key" / Int16,
        "min_version" / Int16,
        "max_version" / Int16,
    )),
    "throttle_time_ms" / Since(1, Int32, default=0, ignorable=True),    # 1+
    tags=(                                                              # 3+, all ignorable
        Tag(0, "supported_features", Array(nested_struct(
            "SupportedFeatureKey", 4,
            "name" / String,
            "min_version" / Int16,
            "max_version" / Int16,
        )), default=[], ignorable=True, first=3),
        Tag(1, "finalized_features_epoch", Int64, default=-1, ignorable=True, first=3),
        Tag(2, "finalized_features", Array(nested_struct(
            "FinalizedFeatureKey", 4,
            "name" / String,
            "max_version_level" / Int16,
            "min_version_level" / Int16,
        )), default=[], ignorable=True, first=3),
        Tag(3, "zk_migration_ready", Bool, default=False, ignorable=True, first=3),
    ),
)

# kind -> (declaration, lowest version, highest version)
DECLARATIONS: dict[str, tuple[Struct, int, int]] = {
    "ListGroupsRequest": (LIST_GROUPS_REQUEST, 0, 5),
    "ListGroupsResponse": (LIST_GROUPS_RESPONSE, 0, 5),
    "DescribeGroupsRequest": (DESCRIBE_GROUPS_REQUEST, 0, 5),
    "DescribeGroupsResponse": (DESCRIBE_GROUPS_RESPONSE, 0, 5),
    "FindCoordinatorRequest": (FIND_COORDINATOR_REQUEST, 0, 6),
    "FindCoordinatorResponse": (FIND_COORDINATOR_RESPONSE, 0, 6),
    "OffsetFetchRequest": (OFFSET_FETCH_REQUEST, 0, 9),
    "OffsetFetchResponse": (OFFSET_FETCH_RESPONSE, 0, 9),
    "ListOffsetsRequest": (LIST_OFFSETS_REQUEST, 0, 10),
    "ListOffsetsResponse": (LIST_OFFSETS_RESPONSE, 0, 10),
    "DescribeClusterRequest": (DESCRIBE_CLUSTER_REQUEST, 0, 1),
    "DescribeClusterResponse": (DESCRIBE_CLUSTER_RESPONSE, 0, 1),
    "ApiVersionsResponse": (API_VERSIONS_RESPONSE, 0, 4),
    "DescribeShareGroupOffsetsRequest": (DESCRIBE_SHARE_GROUP_OFFSETS_REQUEST, 0, 1),
    "DescribeShareGroupOffsetsResponse": (DESCRIBE_SHARE_GROUP_OFFSETS_RESPONSE, 0, 1),
    "DescribeConfigsRequest": (DESCRIBE_CONFIGS_REQUEST, 1, 4),
    "DescribeConfigsResponse": (DESCRIBE_CONFIGS_RESPONSE, 1, 4),
}

for _kind, (_declared, _lowest, _highest) in DECLARATIONS.items():
    _key = tables.api_key(_kind.removesuffix("Request").removesuffix("Response"))
    _declared.__doc__ = (f"{_kind} v{_lowest}-{_highest}, flexible {tables.APIS[_key][1]}+, "
                         f"api key {_key}: follows "
                         f"clients/src/main/resources/common/message/{_kind}.json.")
