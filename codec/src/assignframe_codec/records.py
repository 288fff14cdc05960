"""Classic-group records of the ``__consumer_offsets`` topic, declared like their schemas.

As stored, a record key and a record value each start with an int16 version (the key's version
says which record it is: 0-1 offset commit, 2 group metadata); ``decode_record``/``encode_record``
in the facade handle that prefix, the declarations below are the structs after it.
Values are flexible from version 4 (KIP-915).
"""

from __future__ import annotations

from construct import Struct

from .primitives import (
    Array,
    Bytes,
    Int32,
    Int64,
    NullableString,
    Since,
    String,
    TaggedFields,
    ValidVersions,
)

__all__ = [
    "GROUP_METADATA_KEY",
    "GROUP_METADATA_VALUE",
    "MEMBER_METADATA",
    "OFFSET_COMMIT_KEY",
    "OFFSET_COMMIT_VALUE",
]

GROUP_METADATA_KEY = Struct(
    "group" / String,                                                   # 2
)
GROUP_METADATA_KEY.__doc__ = """GroupMetadataKey v2.

Follows group-coordinator/src/main/resources/common/message/GroupMetadataKey.json.
"""

MEMBER_METADATA = Struct(
    ValidVersions(0, 4, "MemberMetadata"),
    "member_id" / String,                                               # 0+
    "group_instance_id" / Since(3, NullableString, ignorable=True),     # 3+, nullable 3+
    "client_id" / String,                                               # 0+
    "client_host" / String,                                             # 0+
    "rebalance_timeout" / Since(1, Int32, default=0, ignorable=True),   # 1+
    "session_timeout" / Int32,                                          # 0+
    "subscription" / Bytes,                                             # 0+
    "assignment" / Bytes,                                               # 0+
    "tagged_fields" / TaggedFields,                                     # 4+
)

GROUP_METADATA_VALUE = Struct(
    "protocol_type" / String,                                           # 0+
    "generation" / Int32,                                               # 0+
    "protocol" / NullableString,                                        # 0+, nullable 0+
    "leader" / NullableString,                                          # 0+, nullable 0+
    "current_state_timestamp" / Since(2, Int64, default=-1, ignorable=True),
    "members" / Array(MEMBER_METADATA),                                 # 0+
    "tagged_fields" / TaggedFields,                                     # 4+
)
GROUP_METADATA_VALUE.__doc__ = """GroupMetadataValue v0-4, flexible 4+ (members: MemberMetadata).

Follows group-coordinator/src/main/resources/common/message/GroupMetadataValue.json.
"""

OFFSET_COMMIT_KEY = Struct(
    "group" / String,                                                   # 0-1
    "topic" / String,                                                   # 0-1
    "partition" / Int32,                                                # 0-1
)
OFFSET_COMMIT_KEY.__doc__ = """OffsetCommitKey v0-1.

Follows group-coordinator/src/main/resources/common/message/OffsetCommitKey.json.
"""

OFFSET_COMMIT_VALUE = Struct(
    "offset" / Int64,                                                   # 0+
    "leader_epoch" / Since(3, Int32, default=-1, ignorable=True),       # 3+
    "metadata" / String,                                                # 0+
    "commit_timestamp" / Int64,                                         # 0+
    "expire_timestamp" / Since(1, Int64, last=1, default=-1, ignorable=True),  # 1 only
    "tagged_fields" / TaggedFields,                                     # 4+
)
OFFSET_COMMIT_VALUE.__doc__ = """OffsetCommitValue v0-4, flexible 4+.

Follows group-coordinator/src/main/resources/common/message/OffsetCommitValue.json.
"""
