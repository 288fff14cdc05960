"""JoinGroup and SyncGroup request/response bodies, declared like their schema tables.

Context parameters: ``version`` and ``flexible`` (JoinGroup v6+, SyncGroup v4+ use compact
strings/arrays/bytes and end every struct with a tagged-field section).
"""

from __future__ import annotations

from construct import Struct

from .primitives import (
    Array,
    Bool,
    Bytes,
    Int16,
    Int32,
    NullableString,
    NullableStringSince,
    Since,
    String,
    TaggedFields,
    ValidVersions,
)

__all__ = [
    "JOIN_GROUP_REQUEST",
    "JOIN_GROUP_REQUEST_PROTOCOL",
    "JOIN_GROUP_RESPONSE",
    "JOIN_GROUP_RESPONSE_MEMBER",
    "SYNC_GROUP_REQUEST",
    "SYNC_GROUP_REQUEST_ASSIGNMENT",
    "SYNC_GROUP_RESPONSE",
]

JOIN_GROUP_REQUEST_PROTOCOL = Struct(
    ValidVersions(0, 9, "JoinGroupRequestProtocol"),
    "name" / String,                                                    # 0+ (mapKey)
    "metadata" / Bytes,                                                 # 0+
    "tagged_fields" / TaggedFields,                                     # 6+
)

JOIN_GROUP_REQUEST = Struct(
    "group_id" / String,                                                # 0+
    "session_timeout_ms" / Int32,                                       # 0+
    "rebalance_timeout_ms" / Since(1, Int32, default=-1, ignorable=True),
    "member_id" / String,                                               # 0+
    "group_instance_id" / Since(5, NullableString),                     # 5+, nullable 5+
    "protocol_type" / String,                                           # 0+
    "protocols" / Array(JOIN_GROUP_REQUEST_PROTOCOL),                   # 0+
    "reason" / Since(8, NullableString, ignorable=True),                # 8+ (KIP-800)
    "tagged_fields" / TaggedFields,                                     # 6+
)
JOIN_GROUP_REQUEST.__doc__ = """JoinGroupRequest v0-9, flexible 6+, api key 11.

Follows clients/src/main/resources/common/message/JoinGroupRequest.json.
"""

JOIN_GROUP_RESPONSE_MEMBER = Struct(
    ValidVersions(0, 9, "JoinGroupResponseMember"),
    "member_id" / String,                                               # 0+
    "group_instance_id" / Since(5, NullableString, ignorable=True),     # 5+, nullable 5+
    "metadata" / Bytes,                                                 # 0+
    "tagged_fields" / TaggedFields,                                     # 6+
)

JOIN_GROUP_RESPONSE = Struct(
    "throttle_time_ms" / Since(2, Int32, default=0, ignorable=True),    # 2+
    "error_code" / Int16,                                               # 0+
    "generation_id" / Int32,                                            # 0+, default -1
    "protocol_type" / Since(7, NullableString, ignorable=True),         # 7+, nullable 7+
    "protocol_name" / NullableStringSince(7),                           # 0+, nullable 7+
    "leader" / String,                                                  # 0+
    "skip_assignment" / Since(9, Bool, default=False),                  # 9+ (KIP-814)
    "member_id" / String,                                               # 0+
    "members" / Array(JOIN_GROUP_RESPONSE_MEMBER),                      # 0+
    "tagged_fields" / TaggedFields,                                     # 6+
)
JOIN_GROUP_RESPONSE.__doc__ = """JoinGroupResponse v0-9, flexible 6+, api key 11.

Follows clients/src/main/resources/common/message/JoinGroupResponse.json.
"""

SYNC_GROUP_REQUEST_ASSIGNMENT = Struct(
    ValidVersions(0, 5, "SyncGroupRequestAssignment"),
    "member_id" / String,                                               # 0+
    "assignment" / Bytes,                                               # 0+
    "tagged_fields" / TaggedFields,                                     # 4+
)

SYNC_GROUP_REQUEST = Struct(
    "group_id" / String,                                                # 0+
    "generation_id" / Int32,                                            # 0+
    "member_id" / String,                                               # 0+
    "group_instance_id" / Since(3, NullableString),                     # 3+, nullable 3+
    "protocol_type" / Since(5, NullableString, ignorable=True),         # 5+, nullable 5+
    "protocol_name" / Since(5, NullableString, ignorable=True),         # 5+, nullable 5+
    "assignments" / Array(SYNC_GROUP_REQUEST_ASSIGNMENT),               # 0+
    "tagged_fields" / TaggedFields,                                     # 4+
)
SYNC_GROUP_REQUEST.__doc__ = """SyncGroupRequest v0-5, flexible 4+, api key 14.

Follows clients/src/main/resources/common/message/SyncGroupRequest.json.
"""

SYNC_GROUP_RESPONSE = Struct(
    "throttle_time_ms" / Since(1, Int32, default=0, ignorable=True),    # 1+
    "error_code" / Int16,                                               # 0+
    "protocol_type" / Since(5, NullableString, ignorable=True),         # 5+, nullable 5+
    "protocol_name" / Since(5, NullableString, ignorable=True),         # 5+, nullable 5+
    "assignment" / Bytes,                                               # 0+
    "tagged_fields" / TaggedFields,                                     # 4+
)
SYNC_GROUP_RESPONSE.__doc__ = """SyncGroupResponse v0-5, flexible 4+, api key 14.

Follows clients/src/main/resources/common/message/SyncGroupResponse.json.
"""
