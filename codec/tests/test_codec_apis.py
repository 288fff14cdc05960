"""The bodies decode reads beyond JoinGroup/SyncGroup, the headers and the protocol tables,
checked against an independent writer: kafka-python 3.0.12, whose messages are generated from
Kafka's own schema JSON files. Every version each kind declares; interpreted and compiled."""

from __future__ import annotations

import assignframe_codec as codec
import kafka.errors
import pytest
from assignframe_codec import tables
from assignframe_codec.framing import (
    decode_request_header,
    decode_response_header,
    peek_request_head,
    peek_response_head,
)
from assignframe_codec.registry import CODECS, declaration
from kafka.protocol.admin.topics import CreateTopicsRequest
from kafka.protocol.api_header import ResponseHeader
from kafka.protocol.consumer.group import (
    HeartbeatRequest,
    HeartbeatResponse,
    LeaveGroupRequest,
    LeaveGroupResponse,
)
from kafka.protocol.metadata import MetadataResponse
from kafka.protocol.metadata.api_versions import ApiVersionsRequest

#: kinds with no Java golden vector (kafka-python is their reference), and two that golden/admin
#: now also holds (MetadataResponse, ApiVersionsRequest), kept here as a second writer
KAFKA_PYTHON_CHECKED = (
    "ApiVersionsRequest", "CreateTopicsRequest", "HeartbeatRequest", "HeartbeatResponse",
    "LeaveGroupRequest", "LeaveGroupResponse", "MetadataResponse",
)


def _metadata():
    topic, partition = MetadataResponse.MetadataResponseTopic, \
        MetadataResponse.MetadataResponseTopic.MetadataResponsePartition
    return MetadataResponse(
        throttle_time_ms=5, cluster_id="cluster", controller_id=2, authorized_operations=None,
        brokers=[MetadataResponse.MetadataResponseBroker(node_id=1, host="b1", port=9092,
                                                         rack="r1")],
        topics=[
            topic(error_code=0, name="orders", is_internal=False, authorized_operations=None,
                  partitions=[partition(error_code=0, partition_index=i, leader_id=1,
                                        leader_epoch=4, replica_nodes=[1, 2], isr_nodes=[1],
                                        offline_replicas=[2]) for i in range(3)]),
            topic(error_code=3, name="missing", is_internal=True, authorized_operations=None,
                  partitions=[]),
        ])


def _create_topics():
    topic = CreateTopicsRequest.CreatableTopic
    return CreateTopicsRequest(timeout_ms=30000, validate_only=False, topics=[
        topic(name="fresh", num_partitions=6, replication_factor=3, assignments=[],
              configs=[topic.CreatableTopicConfig(name="cleanup.policy", value="compact"),
                       topic.CreatableTopicConfig(name="unset", value=None)]),
        topic(name="placed", num_partitions=-1, replication_factor=-1, configs=[],
              assignments=[topic.CreatableReplicaAssignment(partition_index=0,
                                                            broker_ids=[1, 2])]),
    ])


def _leave_group(version):
    if version < 3:
        return LeaveGroupRequest(group_id="g", member_id="m-1")
    member = LeaveGroupRequest.MemberIdentity
    return LeaveGroupRequest(group_id="g", members=[
        member(member_id="m-1", group_instance_id=None, reason="bye"),
        member(member_id="m-2", group_instance_id="static-2", reason=None)])


def _leave_group_response(version):
    if version < 3:
        return LeaveGroupResponse(throttle_time_ms=1, error_code=25)
    member = LeaveGroupResponse.MemberResponse
    return LeaveGroupResponse(throttle_time_ms=1, error_code=0, members=[
        member(member_id="m-1", group_instance_id=None, error_code=0),
        member(member_id="m-2", group_instance_id="static-2", error_code=25)])


WRITERS = {
    "MetadataResponse": (range(14), lambda v: _metadata()),
    "CreateTopicsRequest": (range(2, 8), lambda v: _create_topics()),
    "LeaveGroupRequest": (range(6), _leave_group),
    "LeaveGroupResponse": (range(6), _leave_group_response),
    "HeartbeatRequest": (range(5), lambda v: HeartbeatRequest(
        group_id="g", generation_id=7, member_id="m-1", group_instance_id="i" if v >= 3 else None)),
    "HeartbeatResponse": (range(5), lambda v: HeartbeatResponse(throttle_time_ms=3, error_code=27)),
    "ApiVersionsRequest": (range(5), lambda v: ApiVersionsRequest(
        client_software_name="apache-kafka-java", client_software_version="3.9.0")),
}
CASES = [(kind, version) for kind, (versions, _) in WRITERS.items() for version in versions]


def _written(kind, version):
    return WRITERS[kind][1](version).encode(version=version)


def test_every_kind_without_golden_data_is_checked_here():
    assert sorted(WRITERS) == sorted(KAFKA_PYTHON_CHECKED)
    assert set(KAFKA_PYTHON_CHECKED) <= set(codec.KINDS)


@pytest.mark.parametrize(("kind", "version"), CASES, ids=lambda c: str(c))
def test_decodes_what_kafka_python_writes_and_writes_it_back(kind, version):
    data = _written(kind, version)
    decoded = codec.decode(kind, data, version)
    assert codec.encode(kind, decoded) == data
    fmt, params, _ = declaration(kind, version)
    assert fmt.struct.parse(data, **params) == fmt.compiled.parse(data, **params)


@pytest.mark.parametrize(("kind", "version"), CASES, ids=lambda c: str(c))
def test_fields_decode_reads_equal_kafka_pythons(kind, version):
    theirs = WRITERS[kind][1](version)
    ours = codec.decode(kind, _written(kind, version), version)
    if kind == "MetadataResponse":
        assert [(t.name, t.error_code, len(t.partitions)) for t in ours.topics] == \
            [(t.name, t.error_code, len(t.partitions)) for t in theirs.topics]
        assert ours.brokers[0].rack == (theirs.brokers[0].rack if version >= 1 else None)
    elif kind == "CreateTopicsRequest":
        assert [(t.name, t.num_partitions) for t in ours.topics] == \
            [(t.name, t.num_partitions) for t in theirs.topics]
        assert ours.topics[0].configs[1].value is None
    elif kind == "LeaveGroupRequest" and version >= 3:
        assert [(m.member_id, m.group_instance_id) for m in ours.members] == \
            [(m.member_id, m.group_instance_id) for m in theirs.members]
        assert ours.members[0].reason == ("bye" if version >= 5 else None)
    elif kind == "LeaveGroupRequest":
        assert (ours.group_id, ours.member_id, ours.members) == ("g", "m-1", ())
    elif kind in ("HeartbeatResponse", "LeaveGroupResponse"):
        assert ours.error_code == theirs.error_code
        assert ours.throttle_time_ms == (theirs.throttle_time_ms if version >= 1 else 0)
    elif kind == "HeartbeatRequest":
        assert (ours.group_id, ours.generation_id, ours.member_id) == ("g", 7, "m-1")
    elif kind == "ApiVersionsRequest":
        expected = ("apache-kafka-java", "3.9.0") if version >= 3 else ("", "")
        assert (ours.client_software_name, ours.client_software_version) == expected


@pytest.mark.parametrize(("kind", "version"), CASES, ids=lambda c: str(c))
def test_every_truncation_is_a_codec_error_with_an_offset(kind, version):
    data = _written(kind, version)
    for cut in range(len(data)):
        try:
            codec.decode(kind, data[:cut], version)
        except codec.CodecError as error:
            assert error.kind == kind and error.offset is not None and error.offset <= cut
        else:  # a prefix may be a whole body only where the tail is optional: never here
            pytest.fail(f"{kind} v{version} cut at {cut} decoded")


# --------------------------------------------------------------------------- headers
@pytest.mark.parametrize(("kind", "version"), [c for c in CASES if c[0].endswith("Request")],
                         ids=lambda c: str(c))
def test_request_headers_kafka_python_frames(kind, version):
    message = WRITERS[kind][1](version)
    message.with_header(correlation_id=41, client_id="client-é")
    frame = message.encode(version=version, header=True, framed=True)
    size, key, api_version, correlation, client_len = peek_request_head(frame)
    assert (size, key, api_version, correlation) == (len(frame) - 4, CODECS[kind].api_key,
                                                     version, 41)
    assert client_len == len("client-é".encode())
    header, body_start = decode_request_header(frame)
    assert (header.request_api_key, header.request_api_version, header.correlation_id,
            header.client_id) == (key, version, 41, "client-é")
    assert header.version == (2 if CODECS[kind].is_flexible(version) else 1)
    assert frame[body_start:] == message.encode(version=version)


@pytest.mark.parametrize(("kind", "version"), [c for c in CASES if c[0].endswith("Response")],
                         ids=lambda c: str(c))
def test_response_headers_kafka_python_frames(kind, version):
    message = WRITERS[kind][1](version)
    # kafka-python cannot frame a response at a chosen version; its header writer can
    header = ResponseHeader(correlation_id=41).encode(flexible=message.flexible_version_q(version))
    body = header + message.encode(version=version)
    frame = len(body).to_bytes(4, "big") + body
    assert peek_response_head(frame) == (len(frame) - 4, 41)
    header, body_start = decode_response_header(frame, CODECS[kind].api_key, version)
    assert header.correlation_id == 41
    assert frame[body_start:] == message.encode(version=version)


def test_api_versions_responses_keep_header_v0():
    assert tables.response_header_version(18, 3) == 0
    assert tables.request_header_version(18, 3) == 2
    assert tables.response_header_version(11, 6) == 1


def test_a_truncated_header_names_where_it_stopped():
    frame = bytes.fromhex("0000000e000b0006000000070005616263")  # client_id claims 5 bytes
    with pytest.raises(codec.TruncatedError) as caught:
        decode_request_header(frame)
    assert caught.value.kind == "RequestHeader" and caught.value.offset == 12


# --------------------------------------------------------------------------- tables
def _kafka_python_requests():
    import importlib
    import pkgutil

    import kafka.protocol as protocol
    from kafka.protocol.api_message import ApiMessage
    found = {}
    for module in pkgutil.walk_packages(protocol.__path__, "kafka.protocol."):
        if ".old" in module.name or "generate" in module.name:
            continue
        loaded = importlib.import_module(module.name)
        for name, value in vars(loaded).items():
            if isinstance(value, type) and issubclass(value, ApiMessage) and \
                    name.endswith("Request") and getattr(value, "API_KEY", None) is not None:
                found[value.API_KEY] = value
    return found


def test_api_table_agrees_with_the_schema_files_kafka_python_ships():
    requests = _kafka_python_requests()
    assert len(requests) > 40
    for key, message in requests.items():
        name, flexible_from = tables.APIS[key]
        assert name == message.__name__.removesuffix("Request")
        flexible = message._flexible_versions  # (first, last); None or (-1, ..) = never
        first = flexible[0] if flexible and flexible[0] >= 0 else None
        assert flexible_from == first, name


def test_error_table_agrees_with_kafka_pythons_codes():
    theirs = {error.errno: error.message for error in vars(kafka.errors).values()
              if isinstance(error, type) and isinstance(getattr(error, "errno", None), int)}
    # kafka-python kept older names for six codes; Errors.java's are the ones we show
    kafka_python_names = {-1: "UNKNOWN", 0: "NO_ERROR", 6: "NOT_LEADER_FOR_PARTITION",
                          10: "MESSAGE_SIZE_TOO_LARGE", 17: "INVALID_TOPIC",
                          39: "INVALID_REPLICATION_ASSIGNMENT"}
    for code, name in tables.ERROR_NAMES.items():
        assert theirs[code] == kafka_python_names.get(code, name)
    assert tables.error_name(88) == "UNSTABLE_OFFSET_COMMIT"
    assert tables.error_name(500) == "ERROR_500"
