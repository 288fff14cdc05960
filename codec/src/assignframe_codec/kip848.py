"""The consumer rebalance protocol (KIP-848) and its share (KIP-932) and Streams (KIP-1071)
siblings on the wire: heartbeat and describe request/response bodies, declared like their
schema tables. All of them are flexible from their first version.

Follows clients/src/main/resources/common/message/{ConsumerGroup,ShareGroup,StreamsGroup}
{Heartbeat,Describe}{Request,Response}.json at Apache Kafka trunk d79bd502 (4.5.0-SNAPSHOT),
checked byte for byte against ../shared/golden/kip848/codec.jsonl.
"""

from __future__ import annotations

from construct import Struct

from . import tables
from .flexible import NullableStruct, Uint16, Uuid, message_struct, nested_struct
from .primitives import (
    Array,
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    NullableArray,
    NullableString,
    Since,
    String,
)

__all__ = ["API_KEYS", "DECLARATIONS"]


# --------------------------------------------------------------------------- ConsumerGroup (68, 69)
def _topic_partitions(highest: int) -> Struct:
    return nested_struct("TopicPartitions", highest,
                         "topic_id" / Uuid,
                         "partitions" / Array(Int32))


CONSUMER_GROUP_HEARTBEAT_REQUEST = message_struct(
    "group_id" / String,
    "member_id" / String,
    "member_epoch" / Int32,
    "instance_id" / NullableString,
    "rack_id" / NullableString,
    "rebalance_timeout_ms" / Int32,
    "subscribed_topic_names" / NullableArray(String),
    "subscribed_topic_regex" / Since(1, NullableString),
    "server_assignor" / NullableString,
    "topic_partitions" / NullableArray(_topic_partitions(1)),
)

CONSUMER_GROUP_HEARTBEAT_RESPONSE = message_struct(
    "throttle_time_ms" / Int32,
    "error_code" / Int16,
    "error_message" / NullableString,
    "member_id" / NullableString,
    "member_epoch" / Int32,
    "heartbeat_interval_ms" / Int32,
    "assignment" / NullableStruct(nested_struct(
        "Assignment", 1,
        "topic_partitions" / Array(_topic_partitions(1)))),
)

_DESCRIBE_REQUEST = (
    "group_ids" / Array(String),
    "include_authorized_operations" / Bool,
)
CONSUMER_GROUP_DESCRIBE_REQUEST = message_struct(*_DESCRIBE_REQUEST)


def _named_assignment(highest: int) -> Struct:
    return nested_struct("Assignment", highest,
                         "topic_partitions" / Array(nested_struct(
                             "TopicPartitions", highest,
                             "topic_id" / Uuid,
                             "topic_name" / String,
                             "partitions" / Array(Int32))))


CONSUMER_GROUP_DESCRIBE_RESPONSE = message_struct(
    "throttle_time_ms" / Int32,
    "groups" / Array(nested_struct(
        "DescribedGroup", 1,
        "error_code" / Int16,
        "error_message" / NullableString,
        "group_id" / String,
        "group_state" / String,
        "group_epoch" / Int32,
        "assignment_epoch" / Int32,
        "assignor_name" / String,
        "members" / Array(nested_struct(
            "Member", 1,
            "member_id" / String,
            "instance_id" / NullableString,
            "rack_id" / NullableString,
            "member_epoch" / Int32,
            "client_id" / String,
            "client_host" / String,
            "subscribed_topic_names" / Array(String),
            "subscribed_topic_regex" / NullableString,
            "assignment" / _named_assignment(1),
            "target_assignment" / _named_assignment(1),
            "member_type" / Since(1, Int8, default=-1, ignorable=True),  # KIP-1099
        )),
        "authorized_operations" / Int32,
    )),
)

# --------------------------------------------------------------------------- ShareGroup (76, 77)
SHARE_GROUP_HEARTBEAT_REQUEST = message_struct(
    "group_id" / String,
    "member_id" / String,
    "member_epoch" / Int32,
    "rack_id" / NullableString,
    "subscribed_topic_names" / NullableArray(String),
)

SHARE_GROUP_HEARTBEAT_RESPONSE = CONSUMER_GROUP_HEARTBEAT_RESPONSE  # same table, v1 only

SHARE_GROUP_DESCRIBE_REQUEST = message_struct(*_DESCRIBE_REQUEST)

SHARE_GROUP_DESCRIBE_RESPONSE = message_struct(
    "throttle_time_ms" / Int32,
    "groups" / Array(nested_struct(
        "DescribedGroup", 1,
        "error_code" / Int16,
        "error_message" / NullableString,
        "group_id" / String,
        "group_state" / String,
        "group_epoch" / Int32,
        "assignment_epoch" / Int32,
        "assignor_name" / String,
        "members" / Array(nested_struct(
            "Member", 1,
            "member_id" / String,
            "rack_id" / NullableString,
            "member_epoch" / Int32,
            "client_id" / String,
            "client_host" / String,
            "subscribed_topic_names" / Array(String),
            "assignment" / _named_assignment(1),
        )),
        "authorized_operations" / Int32,
    )),
)

# --------------------------------------------------------------------------- StreamsGroup (88, 89)
KEY_VALUE = nested_struct("KeyValue", 1, "key" / String, "value" / String)
ENDPOINT = nested_struct("Endpoint", 1, "host" / String, "port" / Uint16)
TASK_IDS = nested_struct("TaskIds", 1, "subtopology_id" / String, "partitions" / Array(Int32))
TASK_OFFSET = nested_struct("TaskOffset", 1,
                            "subtopology_id" / String,
                            "partition" / Int32,
                            "offset" / Int64)
TOPIC_INFO = nested_struct("TopicInfo", 1,
                           "name" / String,
                           "partitions" / Int32,
                           "replication_factor" / Int16,
                           "topic_configs" / Array(KEY_VALUE))
COPARTITION_GROUP = nested_struct("CopartitionGroup", 1,
                                  "source_topics" / Array(Int16),
                                  "source_topic_regex" / Array(Int16),
                                  "repartition_source_topics" / Array(Int16))
SUBTOPOLOGY = nested_struct("Subtopology", 1,
                            "subtopology_id" / String,
                            "source_topics" / Array(String),
                            "source_topic_regex" / Array(String),
                            "state_changelog_topics" / Array(TOPIC_INFO),
                            "repartition_sink_topics" / Array(String),
                            "repartition_source_topics" / Array(TOPIC_INFO),
                            "copartition_groups" / Array(COPARTITION_GROUP))

STREAMS_GROUP_HEARTBEAT_REQUEST = message_struct(
    "group_id" / String,
    "member_id" / String,
    "member_epoch" / Int32,
    "endpoint_information_epoch" / Int32,
    "instance_id" / NullableString,
    "rack_id" / NullableString,
    "rebalance_timeout_ms" / Int32,
    "topology" / NullableStruct(nested_struct("Topology", 1,
                                              "epoch" / Int32,
                                              "subtopologies" / Array(SUBTOPOLOGY))),
    "active_tasks" / NullableArray(TASK_IDS),
    "standby_tasks" / NullableArray(TASK_IDS),
    "warmup_tasks" / NullableArray(TASK_IDS),
    "process_id" / NullableString,
    "user_endpoint" / NullableStruct(ENDPOINT),
    "client_tags" / NullableArray(KEY_VALUE),
    "task_offsets" / NullableArray(TASK_OFFSET),
    "task_end_offsets" / NullableArray(TASK_OFFSET),
    "shutdown_application" / Bool,
)

TOPIC_PARTITION = nested_struct("TopicPartition", 1, "topic" / String, "partitions" / Array(Int32))

STREAMS_GROUP_HEARTBEAT_RESPONSE = message_struct(
    "throttle_time_ms" / Int32,
    "error_code" / Int16,
    "error_message" / NullableString,
    "member_id" / String,
    "member_epoch" / Int32,
    "heartbeat_interval_ms" / Int32,
    # v1 widened the lag to int64; Java drops the other one silently when writing either version
    # (checked for acceptable_recovery_lag by the golden v1->v0 downgrade case).
    "acceptable_recovery_lag_legacy" / Since(0, Int32, last=0, default=0, ignorable=True),
    "task_offset_interval_ms" / Int32,
    "acceptable_recovery_lag" / Since(1, Int64, default=0, ignorable=True),
    "status" / NullableArray(nested_struct("Status", 1,
                                           "status_code" / Int8,
                                           "status_detail" / String)),
    "active_tasks" / NullableArray(TASK_IDS),
    "standby_tasks" / NullableArray(TASK_IDS),
    "warmup_tasks" / NullableArray(TASK_IDS),
    "topology_description_required" / Since(1, Bool, default=False),
    "endpoint_information_epoch" / Int32,
    "partitions_by_user_endpoint" / NullableArray(nested_struct(
        "EndpointToPartitions", 1,
        "user_endpoint" / ENDPOINT,
        "active_partitions" / Array(TOPIC_PARTITION),
        "standby_partitions" / Array(TOPIC_PARTITION))),
)

STREAMS_GROUP_DESCRIBE_REQUEST = message_struct(
    *_DESCRIBE_REQUEST,
    "include_topology_description" / Since(1, Bool, default=False),
)

_TASKS_ASSIGNMENT = nested_struct("Assignment", 1,
                                  "active_tasks" / Array(TASK_IDS),
                                  "standby_tasks" / Array(TASK_IDS),
                                  "warmup_tasks" / Array(TASK_IDS))
_NODE = nested_struct("Node", 1,
                      "name" / String,
                      "node_type" / Int8,
                      "source_topics" / Array(String),
                      "sink_topic" / NullableString,
                      "stores" / Array(String),
                      "successors" / Array(String))
_TOPOLOGY_DESCRIPTION = nested_struct(
    "TopologyDescription", 1,
    "subtopologies" / Array(nested_struct("SubtopologyDescription", 1,
                                          "subtopology_id" / String,
                                          "nodes" / Array(_NODE))),
    "global_stores" / Array(nested_struct("GlobalStore", 1,
                                          "source" / _NODE,
                                          "processor" / _NODE)))

STREAMS_GROUP_DESCRIBE_RESPONSE = message_struct(
    "throttle_time_ms" / Int32,
    "groups" / Array(nested_struct(
        "DescribedGroup", 1,
        "error_code" / Int16,
        "error_message" / NullableString,
        "group_id" / String,
        "group_state" / String,
        "group_epoch" / Int32,
        "assignment_epoch" / Int32,
        "topology" / NullableStruct(nested_struct(
            "Topology", 1,
            "epoch" / Int32,
            "subtopologies" / NullableArray(nested_struct(
                "Subtopology", 1,
                "subtopology_id" / String,
                "source_topics" / Array(String),
                "repartition_sink_topics" / Array(String),
                "state_changelog_topics" / Array(TOPIC_INFO),
                "repartition_source_topics" / Array(TOPIC_INFO))))),
        "members" / Array(nested_struct(
            "Member", 1,
            "member_id" / String,
            "member_epoch" / Int32,
            "instance_id" / NullableString,
            "rack_id" / NullableString,
            "client_id" / String,
            "client_host" / String,
            "topology_epoch" / Int32,
            "process_id" / String,
            "user_endpoint" / NullableStruct(ENDPOINT),
            "client_tags" / Array(KEY_VALUE),
            "task_offsets" / Array(TASK_OFFSET),
            "task_end_offsets" / Array(TASK_OFFSET),
            "assignment" / _TASKS_ASSIGNMENT,
            "target_assignment" / _TASKS_ASSIGNMENT,
            "is_classic" / Bool)),
        "authorized_operations" / Int32,
        "topology_description" / Since(1, NullableStruct(_TOPOLOGY_DESCRIPTION)),
        "topology_description_status" / Since(1, Int8, default=0),  # 0 = NOT_REQUESTED
        "assignor_name" / Since(1, NullableString),
    )),
)

# kind -> (declaration, lowest version, highest version)
DECLARATIONS: dict[str, tuple[Struct, int, int]] = {
    "ConsumerGroupHeartbeatRequest": (CONSUMER_GROUP_HEARTBEAT_REQUEST, 0, 1),
    "ConsumerGroupHeartbeatResponse": (CONSUMER_GROUP_HEARTBEAT_RESPONSE, 0, 1),
    "ConsumerGroupDescribeRequest": (CONSUMER_GROUP_DESCRIBE_REQUEST, 0, 1),
    "ConsumerGroupDescribeResponse": (CONSUMER_GROUP_DESCRIBE_RESPONSE, 0, 1),
    "ShareGroupHeartbeatRequest": (SHARE_GROUP_HEARTBEAT_REQUEST, 1, 1),
    "ShareGroupHeartbeatResponse": (SHARE_GROUP_HEARTBEAT_RESPONSE, 1, 1),
    "ShareGroupDescribeRequest": (SHARE_GROUP_DESCRIBE_REQUEST, 1, 1),
    "ShareGroupDescribeResponse": (SHARE_GROUP_DESCRIBE_RESPONSE, 1, 1),
    "StreamsGroupHeartbeatRequest": (STREAMS_GROUP_HEARTBEAT_REQUEST, 0, 1),
    "StreamsGroupHeartbeatResponse": (STREAMS_GROUP_HEARTBEAT_RESPONSE, 0, 1),
    "StreamsGroupDescribeRequest": (STREAMS_GROUP_DESCRIBE_REQUEST, 0, 1),
    "StreamsGroupDescribeResponse": (STREAMS_GROUP_DESCRIBE_RESPONSE, 0, 1),
}

#: API name -> key, from the codec's one table of api keys (:mod:`.tables`).
API_KEYS = {
    name: tables.api_key(name)
    for name in {kind.removesuffix("Request").removesuffix("Response") for kind in DECLARATIONS}
}

for _kind, (_declared, _lowest, _highest) in DECLARATIONS.items():
    _line = (f"{_kind} v{_lowest}-{_highest}, flexible 0+, api key "
             f"{API_KEYS[_kind.removesuffix('Request').removesuffix('Response')]}: follows "
             f"clients/src/main/resources/common/message/{_kind}.json.")
    # ShareGroupHeartbeatResponse shares the consumer table, so its docstring names both.
    _declared.__doc__ = f"{vars(_declared)['__doc__']}\n{_line}" if "__doc__" in vars(
        _declared) else _line
