"""Requests a read-only cluster reader sends, built for a negotiated version, and the two
responses whose layout changes with the version, read one way.

Each builder takes what a caller knows (group ids, topics, partitions) and returns the typed
request at ``version``, ready for ``encode(kind, request)`` / ``encode_frame``; it hides the
layout switches of the schemas:

* FindCoordinator v0-3 carries one ``key``, v4+ a batch of ``coordinator_keys`` (KIP-699);
* OffsetFetch v0-7 carries one group (``topics`` null = every topic from v2), v8+ a batch;
* Metadata v0 asks for every topic with an empty list, v1+ with null;
* DescribeConfigs asks for documentation from v3 only.

A request a version cannot carry (two coordinator keys at v3, every topic at OffsetFetch v1) is
an :class:`~.errors.EncodeError` naming the version, never a silently different request.
Responses are decoded with ``decode(kind, body, version)``; :func:`coordinators` and
:func:`offset_fetch_groups` read FindCoordinator and OffsetFetch responses of any version as
the batched form.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .engine import from_value
from .errors import EncodeError, UnknownKindError, reporting
from .flexible_models import FlexibleFormat, as_model
from .registry import message_codec
from .types import Message

__all__ = [
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

#: FindCoordinator key types (``CoordinatorType`` in Java)
COORDINATOR_GROUP, COORDINATOR_TRANSACTION, COORDINATOR_SHARE = 0, 1, 2

#: DescribeConfigs resource types (``ConfigResource.Type`` in Java); a broker's name is its id
#: (empty: the cluster-wide dynamic defaults), a group's its id (KIP-848 group configs)
CONFIG_RESOURCE_TOPIC, CONFIG_RESOURCE_BROKER, CONFIG_RESOURCE_GROUP = 2, 4, 32

_GROUP_DESCRIBES = ("ConsumerGroupDescribeRequest", "ShareGroupDescribeRequest",
                    "StreamsGroupDescribeRequest")

#: ListOffsets replica id of a consumer (not a follower)
_CONSUMER_REPLICA_ID = -1


def _request(kind: str, version: int, value: dict[str, Any]) -> Any:
    """``value`` (to_dict shape) as the typed ``kind`` at ``version``, the version checked."""
    codec = message_codec(kind)
    assert codec is not None, kind
    with reporting(kind, version):
        codec._check(version, codec.lowest, codec.highest)
        if isinstance(codec.fmt, FlexibleFormat):  # generated model: lists become tuples
            return as_model(codec.fmt.model, value, version)
        return from_value(codec.fmt.model, value, version)


def _refuse(kind: str, version: int, reason: str) -> EncodeError:
    return EncodeError(f"{kind} v{version} {reason}", kind=kind, version=version)


# --------------------------------------------------------------------------- requests
def api_versions_request(version: int, *, client_software_name: str = "",
                         client_software_version: str = "") -> Message:
    """ApiVersionsRequest; the client software (KIP-511) is sent from v3 and dropped below."""
    return _request("ApiVersionsRequest", version, {
        "client_software_name": client_software_name if version >= 3 else "",
        "client_software_version": client_software_version if version >= 3 else ""})


def describe_cluster_request(version: int, *,
                             include_cluster_authorized_operations: bool = False) -> Message:
    """DescribeClusterRequest for the brokers (endpoint type 1, the default)."""
    return _request("DescribeClusterRequest", version, {
        "include_cluster_authorized_operations": include_cluster_authorized_operations})


def describe_configs_request(resources: Sequence[tuple[int, str, Sequence[str] | None]],
                             version: int, *, include_synonyms: bool = False,
                             include_documentation: bool = False) -> Message:
    """DescribeConfigsRequest for ``(resource type, resource name, keys)`` triples (keys None:
    every key of the resource); documentation is asked from v3."""
    if include_documentation and version < 3:
        raise _refuse("DescribeConfigsRequest", version, "has no include_documentation (v3+)")
    value: dict[str, Any] = {
        "resources": [{"resource_type": kind, "resource_name": name,
                       "configuration_keys": None if keys is None else list(keys)}
                      for kind, name, keys in resources],
        "include_synonyms": include_synonyms}
    if version >= 3:
        value["include_documentation"] = include_documentation
    return _request("DescribeConfigsRequest", version, value)


def metadata_request(topics: Iterable[str] | None, version: int, *,
                     allow_auto_topic_creation: bool = False,
                     include_topic_authorized_operations: bool = False) -> Message:
    """MetadataRequest for ``topics`` (None: every topic). A reader never creates topics:
    ``allow_auto_topic_creation`` is false from v4, where the field exists (below v4 the broker
    decides by its own setting)."""
    kind = "MetadataRequest"
    named: list[dict[str, str]] | None
    if topics is None:
        named = [] if version == 0 else None
    else:
        named = [{"name": topic} for topic in topics]
        if not named and version == 0:
            raise _refuse(kind, version, "asks for every topic with an empty list: "
                          "it cannot ask for none")
    value: dict[str, Any] = {"topics": named}
    if version >= 4:
        value["allow_auto_topic_creation"] = allow_auto_topic_creation
    if version >= 8:
        value["include_topic_authorized_operations"] = include_topic_authorized_operations
    return _request(kind, version, value)


def list_groups_request(version: int, *, states: Sequence[str] = (),
                        types: Sequence[str] = ()) -> Message:
    """ListGroupsRequest; state filters exist from v4, type filters (``classic``,
    ``consumer``, ``share``, ``streams``) from v5: asking for one below is refused."""
    value: dict[str, Any] = {}
    for name, given, first in (("states_filter", states, 4), ("types_filter", types, 5)):
        if given and version < first:
            raise _refuse("ListGroupsRequest", version, f"has no {name} (v{first}+)")
        if version >= first:
            value[name] = list(given)
    return _request("ListGroupsRequest", version, value)


def describe_groups_request(group_ids: Sequence[str], version: int, *,
                            include_authorized_operations: bool = False) -> Message:
    """DescribeGroupsRequest (classic groups); authorized operations are asked from v3."""
    value: dict[str, Any] = {"groups": list(group_ids)}
    if version >= 3:
        value["include_authorized_operations"] = include_authorized_operations
    return _request("DescribeGroupsRequest", version, value)


def group_describe_request(kind: str, group_ids: Sequence[str], version: int, *,
                           include_authorized_operations: bool = False,
                           include_topology_description: bool = False) -> Message:
    """ConsumerGroupDescribeRequest, ShareGroupDescribeRequest or StreamsGroupDescribeRequest
    (``kind``); Streams describes its topology when asked, from v1."""
    if kind not in _GROUP_DESCRIBES:
        raise UnknownKindError(f"{kind!r} is not one of {', '.join(_GROUP_DESCRIBES)}", kind=kind)
    value: dict[str, Any] = {"group_ids": list(group_ids),
                             "include_authorized_operations": include_authorized_operations}
    if kind == "StreamsGroupDescribeRequest" and version >= 1:
        value["include_topology_description"] = include_topology_description
    return _request(kind, version, value)


def describe_share_group_offsets_request(group_ids: Sequence[str], version: int) -> Message:
    """DescribeShareGroupOffsetsRequest for every topic-partition of each group (topics null);
    the answer carries each share-partition's start offset, and its lag from v1 (KIP-1226)."""
    return _request("DescribeShareGroupOffsetsRequest", version,
                    {"groups": [{"group_id": g, "topics": None} for g in group_ids]})


def find_coordinator_request(keys: Sequence[str], version: int, *,
                             key_type: int = COORDINATOR_GROUP) -> Message:
    """FindCoordinatorRequest for ``keys`` (group ids by default): one key up to v3, a batch
    from v4. Key types other than groups need v1+ (share groups v6+)."""
    kind = "FindCoordinatorRequest"
    if version <= 3:
        if len(keys) != 1:
            raise _refuse(kind, version, f"carries one key, not {len(keys)} (batches are v4+)")
        value: dict[str, Any] = {"key": keys[0]}
    else:
        value = {"coordinator_keys": list(keys)}
    if key_type != COORDINATOR_GROUP and version == 0:
        raise _refuse(kind, version, f"finds group coordinators only, not key type {key_type}")
    if version >= 1:
        value["key_type"] = key_type
    return _request(kind, version, value)


def offset_fetch_request(groups: Mapping[str, Mapping[str, Sequence[int]] | None],
                         version: int, *, require_stable: bool = False) -> Message:
    """OffsetFetchRequest for each group's ``{topic: partitions}`` (None: every committed
    topic, v2+). One group up to v7, a batch from v8; ``require_stable`` (v7+) makes the broker
    answer UNSTABLE_OFFSET_COMMIT for partitions with pending transactional commits."""
    kind = "OffsetFetchRequest"
    for group_id, topics in groups.items():
        if topics is None and version < 2:
            raise _refuse(kind, version, f"cannot ask for every topic of {group_id!r} (v2+)")
    value: dict[str, Any] = {}
    if version <= 7:
        if len(groups) != 1:
            raise _refuse(kind, version, f"carries one group, not {len(groups)} (batches are v8+)")
        (group_id, topics), = groups.items()
        value.update(group_id=group_id, topics=_offset_fetch_topics(topics))
    else:
        value["groups"] = [{"group_id": group_id, "topics": _offset_fetch_topics(topics)}
                           for group_id, topics in groups.items()]
    if version >= 7:
        value["require_stable"] = require_stable
    return _request(kind, version, value)


def _offset_fetch_topics(topics: Mapping[str, Sequence[int]] | None) -> list[dict] | None:
    if topics is None:
        return None
    return [{"name": topic, "partition_indexes": list(partitions)}
            for topic, partitions in topics.items()]


def list_offsets_request(timestamps: Mapping[str, Mapping[int, int]], version: int, *,
                         isolation_level: int = 0, timeout_ms: int = 30_000) -> Message:
    """ListOffsetsRequest as a consumer for ``{topic: {partition: timestamp}}`` (-1 latest,
    -2 earliest); ``isolation_level`` 1 (read committed, v2+) gives the last stable offset;
    ``timeout_ms`` (v10+) bounds the broker's wait for offsets in remote storage."""
    if isolation_level and version < 2:
        raise _refuse("ListOffsetsRequest", version, "has no isolation level (v2+)")
    value: dict[str, Any] = {"replica_id": _CONSUMER_REPLICA_ID, "topics": [
        {"name": topic, "partitions": [{"partition_index": partition, "timestamp": timestamp}
                                       for partition, timestamp in partitions.items()]}
        for topic, partitions in timestamps.items()]}
    if version >= 2:
        value["isolation_level"] = isolation_level
    if version >= 10:
        value["timeout_ms"] = timeout_ms
    return _request("ListOffsetsRequest", version, value)


# --------------------------------------------------------------------------- responses
@dataclass(frozen=True)
class Coordinator:
    """One coordinator of a FindCoordinatorResponse, whatever its version."""

    key: str
    node_id: int
    host: str
    port: int
    error_code: int
    error_message: str | None


def coordinators(response: Any, keys: Sequence[str] = ()) -> tuple[Coordinator, ...]:
    """The coordinators a FindCoordinatorResponse names. Up to v3 the response holds one
    coordinator and not its key: pass the request's ``keys`` (one) to fill it in."""
    if response.version >= 4:
        return tuple(Coordinator(c.key, c.node_id, c.host, c.port, c.error_code,
                                 c.error_message) for c in response.coordinators)
    key = keys[0] if len(keys) == 1 else ""
    return (Coordinator(key, response.node_id, response.host, response.port,
                        response.error_code, response.error_message if response.version >= 1
                        else None),)


@dataclass(frozen=True)
class OffsetFetchGroup:
    """One group of an OffsetFetchResponse: its error and its topics, each with ``name`` and
    ``partitions`` (``partition_index``, ``committed_offset``, ``committed_leader_epoch``,
    ``metadata``, ``error_code``), as the response models hold them."""

    group_id: str
    error_code: int
    topics: tuple[Any, ...]


def offset_fetch_groups(response: Any, group_id: str = "") -> tuple[OffsetFetchGroup, ...]:
    """The groups of an OffsetFetchResponse. Up to v7 it answers the one group asked for and
    does not name it: pass ``group_id``. v0-1 have no group error code (0)."""
    if response.version >= 8:
        return tuple(OffsetFetchGroup(group.group_id, group.error_code, group.topics)
                     for group in response.groups)
    return (OffsetFetchGroup(group_id, response.error_code, response.topics),)
