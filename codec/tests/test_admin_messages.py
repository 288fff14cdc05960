"""The cluster reader's request builders and response views (admin_messages.py).

Builders are checked against two independent writers: kafka-python 3.0.12 (messages generated
from Kafka's schema files; every version it knows) and, for the group describes, the Java-made
requests of golden/kip848. The views are checked against Java's responses of every version in
golden/admin."""

from __future__ import annotations

import assignframe_codec as codec
import pytest
from java_views import admin_golden, kip848_golden, row_id
from kafka.protocol.admin import DescribeClusterRequest, DescribeGroupsRequest, ListGroupsRequest
from kafka.protocol.broker_version_data import (
    FindCoordinatorRequest,
    MetadataRequest,
    OffsetFetchRequest,
)
from kafka.protocol.consumer import ListOffsetsRequest
from kafka.protocol.metadata.api_versions import ApiVersionsRequest

GROUPS = ["orders-app", "billing-é"]


def _ours(kind: str, request) -> bytes:
    assert type(request).__name__ == kind and request.version is not None
    return codec.encode(kind, request)


# --------------------------------------------------------------------------- kafka-python agrees
@pytest.mark.parametrize("version", range(6))
def test_describe_groups_request(version):
    ours = codec.describe_groups_request(GROUPS, version, include_authorized_operations=True)
    theirs = DescribeGroupsRequest(groups=GROUPS, include_authorized_operations=version >= 3)
    assert _ours("DescribeGroupsRequest", ours) == theirs.encode(version=version)


@pytest.mark.parametrize("version", range(6))
def test_list_groups_request(version):
    states = ["Stable", "Reconciling"] if version >= 4 else []
    types = ["consumer", "classic"] if version >= 5 else []
    ours = codec.list_groups_request(version, states=states, types=types)
    theirs = ListGroupsRequest(states_filter=states, types_filter=types)
    assert _ours("ListGroupsRequest", ours) == theirs.encode(version=version)


@pytest.mark.parametrize("version", range(7))
def test_find_coordinator_request(version):
    keys = GROUPS if version >= 4 else GROUPS[:1]
    ours = codec.find_coordinator_request(keys, version)
    theirs = (FindCoordinatorRequest(coordinator_keys=keys, key_type=0) if version >= 4
              else FindCoordinatorRequest(key=keys[0], key_type=0))
    assert _ours("FindCoordinatorRequest", ours) == theirs.encode(version=version)


@pytest.mark.parametrize("version", range(1, 10))  # kafka-python starts at v1, as Kafka 4.0
def test_offset_fetch_request(version):
    wanted = {"orders": [0, 2], "payments": [1]}
    topic, group = OffsetFetchRequest.OffsetFetchRequestTopic, \
        OffsetFetchRequest.OffsetFetchRequestGroup
    if version >= 8:
        ours = codec.offset_fetch_request({GROUPS[0]: wanted, GROUPS[1]: None}, version,
                                          require_stable=True)
        theirs = OffsetFetchRequest(require_stable=True, groups=[
            group(group_id=GROUPS[0], member_id=None, member_epoch=-1, topics=[
                group.OffsetFetchRequestTopics(name=name, partition_indexes=partitions)
                for name, partitions in wanted.items()]),
            group(group_id=GROUPS[1], member_id=None, member_epoch=-1, topics=None)])
    else:
        ours = codec.offset_fetch_request({GROUPS[0]: wanted}, version,
                                          require_stable=version >= 7)
        theirs = OffsetFetchRequest(group_id=GROUPS[0], require_stable=version >= 7, topics=[
            topic(name=name, partition_indexes=partitions) for name, partitions in wanted.items()])
    assert _ours("OffsetFetchRequest", ours) == theirs.encode(version=version)


@pytest.mark.parametrize("version", range(2, 8))
def test_offset_fetch_request_for_every_committed_topic(version):
    ours = codec.offset_fetch_request({GROUPS[0]: None}, version)
    theirs = OffsetFetchRequest(group_id=GROUPS[0], topics=None, require_stable=False)
    assert _ours("OffsetFetchRequest", ours) == theirs.encode(version=version)


@pytest.mark.parametrize("version", range(1, 11))
def test_list_offsets_request(version):
    wanted = {"orders": {0: -1, 3: -1}, "payments": {1: -2}}
    isolation = 1 if version >= 2 else 0
    ours = codec.list_offsets_request(wanted, version, isolation_level=isolation,
                                      timeout_ms=5000)
    topic = ListOffsetsRequest.ListOffsetsTopic
    theirs = ListOffsetsRequest(replica_id=-1, isolation_level=isolation, timeout_ms=5000, topics=[
        topic(name=name, partitions=[
            topic.ListOffsetsPartition(partition_index=p, current_leader_epoch=-1, timestamp=t)
            for p, t in partitions.items()]) for name, partitions in wanted.items()])
    assert _ours("ListOffsetsRequest", ours) == theirs.encode(version=version)


@pytest.mark.parametrize("version", range(14))
@pytest.mark.parametrize("topics", [["orders", "payments"], None], ids=["named", "all"])
def test_metadata_request(version, topics):
    ours = codec.metadata_request(topics, version)
    named = None if topics is None else [
        MetadataRequest.MetadataRequestTopic(name=name) for name in topics]
    theirs = MetadataRequest(topics=named, allow_auto_topic_creation=version < 4,
                             include_cluster_authorized_operations=False,
                             include_topic_authorized_operations=False)
    assert _ours("MetadataRequest", ours) == theirs.encode(version=version)


@pytest.mark.parametrize("version", range(2))
def test_describe_cluster_request(version):
    ours = codec.describe_cluster_request(version, include_cluster_authorized_operations=True)
    theirs = DescribeClusterRequest(include_cluster_authorized_operations=True, endpoint_type=1)
    assert _ours("DescribeClusterRequest", ours) == theirs.encode(version=version)


@pytest.mark.parametrize("version", range(5))
def test_api_versions_request(version):
    ours = codec.api_versions_request(version, client_software_name="assignframe",
                                      client_software_version="0.1.0")
    theirs = ApiVersionsRequest(client_software_name="assignframe",
                                client_software_version="0.1.0")
    assert _ours("ApiVersionsRequest", ours) == theirs.encode(version=version)


# --------------------------------------------------------------------------- Java agrees
DESCRIBES = [row for row in kip848_golden("api") if row["type"].endswith("DescribeRequest")
             and "unknown_tagged_fields" not in row]


@pytest.mark.parametrize("row", DESCRIBES, ids=row_id)
def test_group_describe_requests_are_javas_bytes(row):
    value = row["value"]
    ours = codec.group_describe_request(
        row["type"], value["group_ids"], row["version"],
        include_authorized_operations=value["include_authorized_operations"],
        include_topology_description=value.get("include_topology_description", False))
    assert _ours(row["type"], ours).hex() == row["hex"]


# --------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("build, message", [
    (lambda: codec.find_coordinator_request(GROUPS, 3), "one key, not 2"),
    (lambda: codec.find_coordinator_request([], 2), "one key, not 0"),
    (lambda: codec.find_coordinator_request(["t"], 0, key_type=codec.COORDINATOR_TRANSACTION),
     "group coordinators only"),
    (lambda: codec.offset_fetch_request({"g": None}, 1), "every topic of 'g'"),
    (lambda: codec.offset_fetch_request({"g": None, "h": None}, 7), "one group, not 2"),
    (lambda: codec.metadata_request([], 0), "cannot ask for none"),
    (lambda: codec.list_groups_request(3, states=["Stable"]), "no states_filter"),
    (lambda: codec.list_groups_request(4, types=["consumer"]), "no types_filter"),
    (lambda: codec.list_offsets_request({"t": {0: -1}}, 1, isolation_level=1), "isolation"),
])
def test_a_request_the_version_cannot_carry_is_refused(build, message):
    with pytest.raises(codec.EncodeError) as caught:
        build()
    assert message in caught.value.reason and caught.value.version is not None


def test_group_describe_request_names_one_of_the_three_describes():
    with pytest.raises(codec.UnknownKindError):
        codec.group_describe_request("DescribeGroupsRequest", GROUPS, 5)


def test_a_version_the_codec_does_not_know_is_refused():
    with pytest.raises(codec.InvalidVersionError) as caught:
        codec.describe_groups_request(GROUPS, 6)
    assert caught.value.kind == "DescribeGroupsRequest"


def test_requests_are_frozen_typed_values_that_frame():
    request = codec.find_coordinator_request(GROUPS, 6)
    assert request.coordinator_keys == tuple(GROUPS)
    frame = codec.encode_frame("FindCoordinatorRequest",
                               {"correlation_id": 3, "client_id": "assignframe"}, request)
    decoded = codec.decode_frame(frame)
    assert (decoded.kind, decoded.version, decoded.body) == ("FindCoordinatorRequest", 6,
                                                             request)


# --------------------------------------------------------------------------- response views
COORDINATORS = [row for row in admin_golden() if row["type"] == "FindCoordinatorResponse"]
OFFSETS = [row for row in admin_golden() if row["type"] == "OffsetFetchResponse"]


def _decoded(row):
    return codec.decode(row["type"], bytes.fromhex(row["hex"]), row["version"])


@pytest.mark.parametrize("row", COORDINATORS, ids=row_id)
def test_coordinators_of_every_version(row):
    value, version = row["value"], row["version"]
    if version >= 4:
        expected = [(c["key"], c["node_id"], c["host"], c["port"], c["error_code"],
                     c["error_message"]) for c in value["coordinators"]]
    else:
        expected = [("orders-app", value["node_id"], value["host"], value["port"],
                     value["error_code"], value.get("error_message"))]
    found = codec.coordinators(_decoded(row), ["orders-app"])
    assert [(c.key, c.node_id, c.host, c.port, c.error_code, c.error_message)
            for c in found] == expected


@pytest.mark.parametrize("row", OFFSETS, ids=row_id)
def test_offset_fetch_groups_of_every_version(row):
    value, version = row["value"], row["version"]
    found = codec.offset_fetch_groups(_decoded(row), "orders-app")
    if version >= 8:
        expected = [(g["group_id"], g["error_code"], g["topics"]) for g in value["groups"]]
    else:
        expected = [("orders-app", value.get("error_code", 0), value["topics"])]
    assert [(g.group_id, g.error_code, [t.to_dict(version) for t in g.topics])
            for g in found] == expected


# --------------------------------------------------------------------------- DescribeConfigs
#: Kafka 4.3.1's own DescribeConfigsRequest bytes (golden43/describe_configs.jsonl)
CONFIGS_JAVA = {(row["version"], row["case"]): row["hex"] for row in admin_golden()
                if row["type"] == "DescribeConfigsRequest"}


@pytest.mark.parametrize("version", range(1, 5))
def test_describe_configs_request_is_javas(version):
    keys = ["group.consumer.heartbeat.interval.ms", "group.consumer.session.timeout.ms"]
    resources = [(codec.CONFIG_RESOURCE_BROKER, "1", keys),
                 (codec.CONFIG_RESOURCE_GROUP, "orders-g", None),  # null: every key
                 (codec.CONFIG_RESOURCE_TOPIC, "ç漢𝄞", [])]
    full = codec.describe_configs_request(resources, version, include_synonyms=True,
                                          include_documentation=version >= 3)
    assert _ours("DescribeConfigsRequest", full).hex() == CONFIGS_JAVA[(version, "full_01")]
    empty = codec.describe_configs_request([], version)
    assert _ours("DescribeConfigsRequest", empty).hex() == CONFIGS_JAVA[(version, "min_00")]


@pytest.mark.parametrize("version", [1, 2])
def test_describe_configs_request_has_no_documentation_below_v3(version):
    with pytest.raises(codec.EncodeError, match="include_documentation"):
        codec.describe_configs_request([], version, include_documentation=True)
