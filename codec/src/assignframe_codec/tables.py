"""Kafka's protocol tables: api keys and names, flexible versions, error codes.

One place for what every frame reader needs before it can read a body:

* ``APIS``: api key -> (name, first flexible version or None). Names and ``flexibleVersions`` follow
  each ``<Name>Request.json`` under clients/src/main/resources/common/message/ (KIP-482: a flexible
  body travels with request header v2 and response header v1); every API a broker listener of
  Apache Kafka 4.3.1 answers (commit 26b251a451: ``"listeners"`` include ``broker``), so frames of
  share consumers (ShareFetch, ShareAcknowledge, ...) are framed, not taken for corruption.
  ApiVersions responses keep response header v0 at every version (KIP-511), see
  :func:`response_header_version`.
* ``ERROR_NAMES``: error code -> name, as in the ``Errors`` enum of
  clients/src/main/java/org/apache/kafka/common/protocol/Errors.java (codes -1..116).
"""

from __future__ import annotations

__all__ = [
    "APIS",
    "API_VERSIONS_KEY",
    "ERROR_NAMES",
    "api_key",
    "api_name",
    "error_name",
    "is_flexible",
    "request_header_version",
    "response_header_version",
]

#: api key -> (name, first flexible version; None = never flexible)
APIS: dict[int, tuple[str, int | None]] = {
    0: ("Produce", 9),
    1: ("Fetch", 12),
    2: ("ListOffsets", 6),
    3: ("Metadata", 9),
    8: ("OffsetCommit", 8),
    9: ("OffsetFetch", 6),
    10: ("FindCoordinator", 3),
    11: ("JoinGroup", 6),
    12: ("Heartbeat", 4),
    13: ("LeaveGroup", 4),
    14: ("SyncGroup", 4),
    15: ("DescribeGroups", 5),
    16: ("ListGroups", 3),
    17: ("SaslHandshake", None),
    18: ("ApiVersions", 3),
    19: ("CreateTopics", 5),
    20: ("DeleteTopics", 4),
    21: ("DeleteRecords", 2),
    22: ("InitProducerId", 2),
    23: ("OffsetForLeaderEpoch", 4),
    24: ("AddPartitionsToTxn", 3),
    25: ("AddOffsetsToTxn", 3),
    26: ("EndTxn", 3),
    27: ("WriteTxnMarkers", 1),
    28: ("TxnOffsetCommit", 3),
    29: ("DescribeAcls", 2),
    30: ("CreateAcls", 2),
    31: ("DeleteAcls", 2),
    32: ("DescribeConfigs", 4),
    33: ("AlterConfigs", 2),
    34: ("AlterReplicaLogDirs", 2),
    35: ("DescribeLogDirs", 2),
    36: ("SaslAuthenticate", 2),
    37: ("CreatePartitions", 2),
    38: ("CreateDelegationToken", 2),
    39: ("RenewDelegationToken", 2),
    40: ("ExpireDelegationToken", 2),
    41: ("DescribeDelegationToken", 2),
    42: ("DeleteGroups", 2),
    43: ("ElectLeaders", 2),
    44: ("IncrementalAlterConfigs", 1),
    45: ("AlterPartitionReassignments", 0),
    46: ("ListPartitionReassignments", 0),
    47: ("OffsetDelete", None),
    48: ("DescribeClientQuotas", 1),
    49: ("AlterClientQuotas", 1),
    50: ("DescribeUserScramCredentials", 0),
    51: ("AlterUserScramCredentials", 0),
    55: ("DescribeQuorum", 0),
    57: ("UpdateFeatures", 0),
    60: ("DescribeCluster", 0),
    61: ("DescribeProducers", 0),
    64: ("UnregisterBroker", 0),
    65: ("DescribeTransactions", 0),
    66: ("ListTransactions", 0),
    68: ("ConsumerGroupHeartbeat", 0),
    69: ("ConsumerGroupDescribe", 0),
    71: ("GetTelemetrySubscriptions", 0),
    72: ("PushTelemetry", 0),
    74: ("ListConfigResources", 0),
    75: ("DescribeTopicPartitions", 0),
    76: ("ShareGroupHeartbeat", 0),
    77: ("ShareGroupDescribe", 0),
    78: ("ShareFetch", 0),
    79: ("ShareAcknowledge", 0),
    80: ("AddRaftVoter", 0),
    81: ("RemoveRaftVoter", 0),
    83: ("InitializeShareGroupState", 0),
    84: ("ReadShareGroupState", 0),
    85: ("WriteShareGroupState", 0),
    86: ("DeleteShareGroupState", 0),
    87: ("ReadShareGroupStateSummary", 0),
    88: ("StreamsGroupHeartbeat", 0),
    89: ("StreamsGroupDescribe", 0),
    90: ("DescribeShareGroupOffsets", 0),
    91: ("AlterShareGroupOffsets", 0),
    92: ("DeleteShareGroupOffsets", 0),
}

#: ApiVersions: its response header stays v0 whatever the version (KIP-511)
API_VERSIONS_KEY = 18

_KEYS_BY_NAME = {name: key for key, (name, _) in APIS.items()}

#: error code -> Errors enum name
ERROR_NAMES: dict[int, str] = {
    -1: "UNKNOWN_SERVER_ERROR",
    0: "NONE",
    1: "OFFSET_OUT_OF_RANGE",
    2: "CORRUPT_MESSAGE",
    3: "UNKNOWN_TOPIC_OR_PARTITION",
    4: "INVALID_FETCH_SIZE",
    5: "LEADER_NOT_AVAILABLE",
    6: "NOT_LEADER_OR_FOLLOWER",
    7: "REQUEST_TIMED_OUT",
    8: "BROKER_NOT_AVAILABLE",
    9: "REPLICA_NOT_AVAILABLE",
    10: "MESSAGE_TOO_LARGE",
    11: "STALE_CONTROLLER_EPOCH",
    12: "OFFSET_METADATA_TOO_LARGE",
    13: "NETWORK_EXCEPTION",
    14: "COORDINATOR_LOAD_IN_PROGRESS",
    15: "COORDINATOR_NOT_AVAILABLE",
    16: "NOT_COORDINATOR",
    17: "INVALID_TOPIC_EXCEPTION",
    18: "RECORD_LIST_TOO_LARGE",
    19: "NOT_ENOUGH_REPLICAS",
    20: "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
    21: "INVALID_REQUIRED_ACKS",
    22: "ILLEGAL_GENERATION",
    23: "INCONSISTENT_GROUP_PROTOCOL",
    24: "INVALID_GROUP_ID",
    25: "UNKNOWN_MEMBER_ID",
    26: "INVALID_SESSION_TIMEOUT",
    27: "REBALANCE_IN_PROGRESS",
    28: "INVALID_COMMIT_OFFSET_SIZE",
    29: "TOPIC_AUTHORIZATION_FAILED",
    30: "GROUP_AUTHORIZATION_FAILED",
    31: "CLUSTER_AUTHORIZATION_FAILED",
    32: "INVALID_TIMESTAMP",
    33: "UNSUPPORTED_SASL_MECHANISM",
    34: "ILLEGAL_SASL_STATE",
    35: "UNSUPPORTED_VERSION",
    36: "TOPIC_ALREADY_EXISTS",
    37: "INVALID_PARTITIONS",
    38: "INVALID_REPLICATION_FACTOR",
    39: "INVALID_REPLICA_ASSIGNMENT",
    40: "INVALID_CONFIG",
    41: "NOT_CONTROLLER",
    42: "INVALID_REQUEST",
    43: "UNSUPPORTED_FOR_MESSAGE_FORMAT",
    44: "POLICY_VIOLATION",
    45: "OUT_OF_ORDER_SEQUENCE_NUMBER",
    46: "DUPLICATE_SEQUENCE_NUMBER",
    47: "INVALID_PRODUCER_EPOCH",
    48: "INVALID_TXN_STATE",
    49: "INVALID_PRODUCER_ID_MAPPING",
    50: "INVALID_TRANSACTION_TIMEOUT",
    51: "CONCURRENT_TRANSACTIONS",
    52: "TRANSACTION_COORDINATOR_FENCED",
    53: "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
    54: "SECURITY_DISABLED",
    55: "OPERATION_NOT_ATTEMPTED",
    56: "KAFKA_STORAGE_ERROR",
    57: "LOG_DIR_NOT_FOUND",
    58: "SASL_AUTHENTICATION_FAILED",
    59: "UNKNOWN_PRODUCER_ID",
    60: "REASSIGNMENT_IN_PROGRESS",
    61: "DELEGATION_TOKEN_AUTH_DISABLED",
    62: "DELEGATION_TOKEN_NOT_FOUND",
    63: "DELEGATION_TOKEN_OWNER_MISMATCH",
    64: "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED",
    65: "DELEGATION_TOKEN_AUTHORIZATION_FAILED",
    66: "DELEGATION_TOKEN_EXPIRED",
    67: "INVALID_PRINCIPAL_TYPE",
    68: "NON_EMPTY_GROUP",
    69: "GROUP_ID_NOT_FOUND",
    70: "FETCH_SESSION_ID_NOT_FOUND",
    71: "INVALID_FETCH_SESSION_EPOCH",
    72: "LISTENER_NOT_FOUND",
    73: "TOPIC_DELETION_DISABLED",
    74: "FENCED_LEADER_EPOCH",
    75: "UNKNOWN_LEADER_EPOCH",
    76: "UNSUPPORTED_COMPRESSION_TYPE",
    77: "STALE_BROKER_EPOCH",
    78: "OFFSET_NOT_AVAILABLE",
    79: "MEMBER_ID_REQUIRED",
    80: "PREFERRED_LEADER_NOT_AVAILABLE",
    81: "GROUP_MAX_SIZE_REACHED",
    82: "FENCED_INSTANCE_ID",
    83: "ELIGIBLE_LEADERS_NOT_AVAILABLE",
    84: "ELECTION_NOT_NEEDED",
    85: "NO_REASSIGNMENT_IN_PROGRESS",
    86: "GROUP_SUBSCRIBED_TO_TOPIC",
    87: "INVALID_RECORD",
    88: "UNSTABLE_OFFSET_COMMIT",
    89: "THROTTLING_QUOTA_EXCEEDED",
    90: "PRODUCER_FENCED",
    91: "RESOURCE_NOT_FOUND",
    92: "DUPLICATE_RESOURCE",
    93: "UNACCEPTABLE_CREDENTIAL",
    94: "INCONSISTENT_VOTER_SET",
    95: "INVALID_UPDATE_VERSION",
    96: "FEATURE_UPDATE_FAILED",
    97: "PRINCIPAL_DESERIALIZATION_FAILURE",
    98: "SNAPSHOT_NOT_FOUND",
    99: "POSITION_OUT_OF_RANGE",
    100: "UNKNOWN_TOPIC_ID",
    101: "DUPLICATE_BROKER_REGISTRATION",
    102: "BROKER_ID_NOT_REGISTERED",
    103: "INCONSISTENT_TOPIC_ID",
    104: "INCONSISTENT_CLUSTER_ID",
    105: "TRANSACTIONAL_ID_NOT_FOUND",
    106: "FETCH_SESSION_TOPIC_ID_ERROR",
    107: "INELIGIBLE_REPLICA",
    108: "NEW_LEADER_ELECTED",
    109: "OFFSET_MOVED_TO_TIERED_STORAGE",
    110: "FENCED_MEMBER_EPOCH",
    111: "UNRELEASED_INSTANCE_ID",
    112: "UNSUPPORTED_ASSIGNOR",
    113: "STALE_MEMBER_EPOCH",
    114: "MISMATCHED_ENDPOINT_TYPE",
    115: "UNSUPPORTED_ENDPOINT_TYPE",
    116: "UNKNOWN_CONTROLLER_ID",
}


def api_name(key: int) -> str:
    """The API's name (``JoinGroup``); ``api<key>`` for keys this table does not know."""
    entry = APIS.get(key)
    return entry[0] if entry else f"api{key}"


def api_key(name: str) -> int:
    """The key of an API by name (``"JoinGroup"`` -> 11); KeyError for unknown names."""
    return _KEYS_BY_NAME[name]


def is_flexible(key: int, version: int) -> bool:
    """Does ``version`` of this API use compact types and tagged fields (KIP-482)?"""
    entry = APIS.get(key)
    return entry is not None and entry[1] is not None and version >= entry[1]


def request_header_version(key: int, version: int) -> int:
    """Request header v2 for flexible bodies, else v1 (v0 is only ControlledShutdown v0)."""
    return 2 if is_flexible(key, version) else 1


def response_header_version(key: int, version: int) -> int:
    """Response header v1 for flexible bodies, else v0; ApiVersions always v0."""
    return 1 if key != API_VERSIONS_KEY and is_flexible(key, version) else 0


def error_name(code: int) -> str:
    """The ``Errors`` name of a code; ``ERROR_<code>`` for codes this table does not know."""
    return ERROR_NAMES.get(code, f"ERROR_{code}")
