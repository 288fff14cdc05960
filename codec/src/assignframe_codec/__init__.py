"""assignframe-codec: byte-exact Kafka consumer-group wire formats, declared with construct.

Quick tour::

    import assignframe_codec as codec
    codec.KINDS                                   # every kind name
    sub = codec.decode_subscription(metadata)     # Java's view of a JoinGroup subscription
    codec.encode_assignment([("t", 0), ("t", 1)]) # Java's grouping, v3
    codec.decode("JoinGroupResponse", body, version=9).to_dict()

See docs/codec.md for every layout, the quirks and the error model.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .admin_messages import (
        CONFIG_RESOURCE_BROKER,
        CONFIG_RESOURCE_GROUP,
        CONFIG_RESOURCE_TOPIC,
        COORDINATOR_GROUP,
        COORDINATOR_SHARE,
        COORDINATOR_TRANSACTION,
        Coordinator,
        OffsetFetchGroup,
        api_versions_request,
        coordinators,
        describe_cluster_request,
        describe_configs_request,
        describe_groups_request,
        describe_share_group_offsets_request,
        find_coordinator_request,
        group_describe_request,
        list_groups_request,
        list_offsets_request,
        metadata_request,
        offset_fetch_groups,
        offset_fetch_request,
    )
    from .api_types import (
        ApiVersionsRequest,
        CreatableReplicaAssignment,
        CreatableTopic,
        CreatableTopicConfig,
        CreateTopicsRequest,
        HeartbeatRequest,
        HeartbeatResponse,
        LeaveGroupRequest,
        LeaveGroupRequestMember,
        LeaveGroupResponse,
        LeaveGroupResponseMember,
        MetadataRequest,
        MetadataRequestTopic,
        MetadataResponse,
        MetadataResponseBroker,
        MetadataResponsePartition,
        MetadataResponseTopic,
    )
    from .consumer import (
        decode_assignment,
        decode_subscription,
        encode_assignment,
        encode_subscription,
    )
    from .coordinator_records import (
        OFFSETS_TOPIC,
        RECORD_TYPES,
        CoordinatorRecord,
        decode_coordinator_record,
        encode_coordinator_record,
    )
    from .errors import (
        CodecError,
        EncodeError,
        InvalidVersionError,
        MalformedError,
        TruncatedError,
        UnknownKindError,
    )
    from .facade import decode, decode_record, encode, encode_record, version_prefix
    from .framing import (
        REQUEST_HEAD_SIZE,
        RESPONSE_HEAD_SIZE,
        decode_frame,
        decode_request_header,
        decode_response_header,
        encode_frame,
        frame_size,
        peek_request_head,
        peek_response_head,
    )
    from .registry import KINDS
    from .strings import java_string_key
    from .tables import (
        APIS,
        ERROR_NAMES,
        api_key,
        api_name,
        error_name,
        is_flexible,
        request_header_version,
        response_header_version,
    )
    from .types import (
        Assignment,
        CooperativeUserData,
        Frame,
        GroupMetadataKey,
        GroupMetadataValue,
        JoinGroupRequest,
        JoinGroupRequestProtocol,
        JoinGroupResponse,
        JoinGroupResponseMember,
        MemberData,
        MemberMetadata,
        OffsetCommitKey,
        OffsetCommitValue,
        RequestHeader,
        ResponseHeader,
        StickyUserData,
        Subscription,
        SyncGroupRequest,
        SyncGroupRequestAssignment,
        SyncGroupResponse,
        TopicPartitions,
    )
    from .userdata import (
        cooperative_member_data,
        decode_cooperative_user_data,
        decode_sticky_user_data,
        encode_cooperative_user_data,
        encode_sticky_user_data,
        sticky_member_data,
    )

# Each public name is imported from its module when first used (PEP 562): ``from assignframe_codec
# import CodecError`` loads the error classes, not every construct declaration.
_SOURCES: dict[str, tuple[str, ...]] = {
    "consumer": (
        "decode_assignment",
        "decode_subscription",
        "encode_assignment",
        "encode_subscription",
    ),
    "coordinator_records": (
        "OFFSETS_TOPIC",
        "RECORD_TYPES",
        "CoordinatorRecord",
        "decode_coordinator_record",
        "encode_coordinator_record",
    ),
    "strings": ("java_string_key",),
    "errors": (
        "CodecError",
        "EncodeError",
        "InvalidVersionError",
        "MalformedError",
        "TruncatedError",
        "UnknownKindError",
    ),
    "facade": (
        "decode",
        "decode_record",
        "encode",
        "encode_record",
        "version_prefix",
    ),
    "framing": (
        "decode_frame",
        "encode_frame",
        "REQUEST_HEAD_SIZE",
        "RESPONSE_HEAD_SIZE",
        "decode_request_header",
        "decode_response_header",
        "frame_size",
        "peek_request_head",
        "peek_response_head",
    ),
    "registry": (
        "KINDS",
    ),
    "types": (
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
    ),
    "userdata": (
        "cooperative_member_data",
        "decode_cooperative_user_data",
        "decode_sticky_user_data",
        "encode_cooperative_user_data",
        "encode_sticky_user_data",
        "sticky_member_data",
    ),
    "api_types": (
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
    ),
    "tables": (
        "APIS",
        "ERROR_NAMES",
        "api_key",
        "api_name",
        "error_name",
        "is_flexible",
        "request_header_version",
        "response_header_version",
    ),
    "admin_messages": (
        "CONFIG_RESOURCE_BROKER",
        "CONFIG_RESOURCE_GROUP",
        "CONFIG_RESOURCE_TOPIC",
        "COORDINATOR_GROUP",
        "COORDINATOR_SHARE",
        "COORDINATOR_TRANSACTION",
        "Coordinator",
        "OffsetFetchGroup",
        "api_versions_request",
        "coordinators",
        "describe_cluster_request",
        "describe_configs_request",
        "describe_groups_request",
        "describe_share_group_offsets_request",
        "find_coordinator_request",
        "group_describe_request",
        "list_groups_request",
        "list_offsets_request",
        "metadata_request",
        "offset_fetch_groups",
        "offset_fetch_request",
    ),
}
_MODULE_OF = {name: module for module, names in _SOURCES.items() for name in names}

__all__ = [
    "Assignment",
    "CodecError",
    "CooperativeUserData",
    "CoordinatorRecord",
    "EncodeError",
    "Frame",
    "GroupMetadataKey",
    "GroupMetadataValue",
    "InvalidVersionError",
    "JoinGroupRequest",
    "JoinGroupRequestProtocol",
    "JoinGroupResponse",
    "JoinGroupResponseMember",
    "KINDS",
    "MalformedError",
    "MemberData",
    "MemberMetadata",
    "OffsetCommitKey",
    "OffsetCommitValue",
    "OFFSETS_TOPIC",
    "RECORD_TYPES",
    "RequestHeader",
    "ResponseHeader",
    "StickyUserData",
    "Subscription",
    "SyncGroupRequest",
    "SyncGroupRequestAssignment",
    "SyncGroupResponse",
    "TopicPartitions",
    "TruncatedError",
    "UnknownKindError",
    "__version__",
    "cooperative_member_data",
    "decode",
    "decode_assignment",
    "decode_cooperative_user_data",
    "decode_coordinator_record",
    "decode_frame",
    "decode_record",
    "decode_sticky_user_data",
    "decode_subscription",
    "encode",
    "encode_assignment",
    "encode_cooperative_user_data",
    "encode_coordinator_record",
    "encode_frame",
    "encode_record",
    "encode_sticky_user_data",
    "encode_subscription",
    "java_string_key",
    "sticky_member_data",
]

# --- frames, protocol tables and the other bodies decode reads (issue 13) ---------------------

__all__ += [
    "APIS",
    "ApiVersionsRequest",
    "CreatableReplicaAssignment",
    "CreatableTopic",
    "CreatableTopicConfig",
    "CreateTopicsRequest",
    "ERROR_NAMES",
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
    "REQUEST_HEAD_SIZE",
    "RESPONSE_HEAD_SIZE",
    "api_key",
    "api_name",
    "decode_request_header",
    "decode_response_header",
    "error_name",
    "frame_size",
    "is_flexible",
    "peek_request_head",
    "peek_response_head",
    "request_header_version",
    "response_header_version",
    "version_prefix",
]

# --- the cluster reader's requests, built per version, and its batched responses (issue 21) --

__all__ += [
    "CONFIG_RESOURCE_BROKER",
    "CONFIG_RESOURCE_GROUP",
    "CONFIG_RESOURCE_TOPIC",
    "COORDINATOR_GROUP",
    "COORDINATOR_SHARE",
    "COORDINATOR_TRANSACTION",
    "Coordinator",
    "OffsetFetchGroup",
    "api_versions_request",
    "coordinators",
    "describe_cluster_request",
    "describe_configs_request",
    "describe_groups_request",
    "describe_share_group_offsets_request",
    "find_coordinator_request",
    "group_describe_request",
    "list_groups_request",
    "list_offsets_request",
    "metadata_request",
    "offset_fetch_groups",
    "offset_fetch_request",
]
__all__.sort()  # one sorted list, extended block by block


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value: Any = _version()
    elif name in _MODULE_OF:
        value = getattr(importlib.import_module(f".{_MODULE_OF[name]}", __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # the next lookup finds it without coming here
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("assignframe-codec")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"
