"""Every request/response body Java produced in the JsonConverter-view golden sets: the KIP-848
group APIs (golden/kip848) and the cluster reader's APIs (golden/admin: ListGroups,
DescribeGroups, FindCoordinator, OffsetFetch, ListOffsets, DescribeCluster, Metadata,
ApiVersions, every version). Bodies and frames, through the facade and through both the
interpreted and the compiled construct declarations."""

from __future__ import annotations

import assignframe_codec as codec
import pytest
from assignframe_codec.registry import declaration, message_codec
from codec_shared import flat_pairs, hexify, java_assignment_view, java_subscription_view
from java_views import (
    admin_golden,
    golden_input,
    golden_value,
    java_view,
    kip848_golden,
    row_id,
)

KIP848 = kip848_golden("api")
ADMIN = admin_golden()
APIS = KIP848 + ADMIN
FRAMED = [row for row in APIS if "framed_hex" in row]


def _unhex(text):
    return None if text is None else bytes.fromhex(text)


def _decoded(row):
    return codec.decode(row["type"], bytes.fromhex(row["hex"]), row["version"])


#: versions declared beyond Kafka 4.0's golden set (Kafka 4.1's MetadataRequest/Response v13)
BEYOND_GOLDEN = {"MetadataRequest": 13, "MetadataResponse": 13}


def test_every_golden_version_is_declared_under_its_api_key():
    assert {row["type"] for row in APIS} <= set(codec.KINDS)
    for kind in sorted({row["type"] for row in ADMIN}):
        found = message_codec(kind)
        versions = {row["version"] for row in ADMIN if row["type"] == kind}
        assert versions == set(range(found.lowest, max(versions) + 1)), kind
        assert found.highest == BEYOND_GOLDEN.get(kind, max(versions)), kind
    for row in APIS:
        assert message_codec(row["type"]).api_key == row["api_key"]
        assert message_codec(row["type"]).is_flexible(row["version"]) is row["flexible"]


# --------------------------------------------------------------------------- bodies
@pytest.mark.parametrize("row", APIS, ids=row_id)
def test_body_decodes_to_java_value_and_unknown_tags(row):
    value, unknown = java_view(_decoded(row))
    assert value == golden_value(row)
    assert unknown == row.get("unknown_tagged_fields", [])


@pytest.mark.parametrize("row", APIS, ids=row_id)
def test_decoded_body_reencodes_to_java_bytes(row):
    assert codec.encode(row["type"], _decoded(row), row["version"]).hex() == row["hex"]


@pytest.mark.parametrize("row", APIS, ids=row_id)
def test_java_value_encodes_to_java_bytes(row):
    assert codec.encode(row["type"], golden_input(row), row["version"]).hex() == row["hex"]


@pytest.mark.parametrize("compiled", [False, True], ids=["interpreted", "compiled"])
@pytest.mark.parametrize("row", APIS, ids=row_id)
def test_declaration_round_trips_java_bytes(row, compiled):
    fmt, params, _ = declaration(row["type"], row["version"])
    parser = fmt.compiled if compiled else fmt.struct
    data = bytes.fromhex(row["hex"])
    container = parser.parse(data, **params)
    assert parser.build(container, **params) == data
    assert container == (fmt.struct if compiled else fmt.compiled).parse(data, **params)


def test_compiled_declarations_generate_code_without_interpreter_fallback():
    for kind in sorted({row["type"] for row in APIS}):
        source = message_codec(kind).fmt.compiled.source
        assert "linkedparsers[" not in source and "linkedbuilders[" not in source, kind


# --------------------------------------------------------------------------- frames
@pytest.mark.parametrize("row", FRAMED, ids=row_id)
def test_frame_decodes_to_java_header_and_body(row):
    framed = row["framed"]
    frame = codec.decode_frame(bytes.fromhex(row["framed_hex"]), row["type"], row["version"])
    assert type(frame.header).__name__ == framed["header_type"]
    assert frame.header.version == framed["header_version"]
    assert frame.header.to_dict() == framed["header"]
    assert java_view(frame.body) == (golden_value(row), row.get("unknown_tagged_fields", []))


@pytest.mark.parametrize("row", FRAMED, ids=row_id)
def test_frame_encodes_to_java_bytes(row):
    data = codec.encode_frame(row["type"], row["framed"]["header"], _decoded(row),
                              row["version"])
    assert data.hex() == row["framed_hex"]
    assert row["framed_hex"][8:].startswith(row["framed"]["header_hex"])


@pytest.mark.parametrize("row", [row for row in FRAMED if row["type"].endswith("Request")],
                         ids=row_id)
def test_request_frame_names_its_own_kind_and_version(row):
    frame = codec.decode_frame(bytes.fromhex(row["framed_hex"]))
    assert (frame.kind, frame.version) == (row["type"], row["version"])


def test_api_versions_responses_keep_header_v0_at_flexible_versions():
    rows = [row for row in FRAMED if row["type"] == "ApiVersionsResponse"]
    assert {row["version"] for row in rows} >= {3, 4}
    for row in rows:
        frame = codec.decode_frame(bytes.fromhex(row["framed_hex"]), row["type"],
                                   row["version"])
        assert frame.header.version == 0 and row["framed"]["header_version"] == 0


# --------------------------------------------------------------------------- realistic cases
REAL_DESCRIBED = [row for row in ADMIN if "member_decoded" in row]


@pytest.mark.parametrize("row", REAL_DESCRIBED, ids=row_id)
def test_described_members_decode_through_the_consumer_protocol_like_java(row):
    (group,) = _decoded(row).groups
    assert [member.member_id for member in group.members] == [
        expected["member_id"] for expected in row["member_decoded"]]
    for member, expected in zip(group.members, row["member_decoded"], strict=True):
        subscription = codec.decode_subscription(member.member_metadata)
        assignment = codec.decode_assignment(member.member_assignment)
        assert subscription.version == expected["subscription_version"]
        assert java_subscription_view(subscription) == expected["subscription"]
        assert assignment.version == expected["assignment_version"]
        assert java_assignment_view(assignment) == expected["assignment"]


def test_sticky_user_data_inside_a_described_member_is_what_it_owned():
    """Member 0 carries StickyAssignor user data written after onAssignment(generation 8):
    its previous assignment is the partitions its subscription says it owns."""
    row = next(row for row in REAL_DESCRIBED if row["case"] == "real_classic_stable")
    member = _decoded(row).groups[0].members[0]
    subscription = codec.decode_subscription(member.member_metadata)
    sticky = codec.decode_sticky_user_data(subscription.user_data)
    assert sticky.layout == "V1" and sticky.generation == subscription.generation_id == 8
    assert sorted(flat_pairs(sticky.previous_assignment)) == sorted(
        flat_pairs(subscription.owned_partitions))


def test_a_group_describe_that_failed_authorization_reads_as_java_builds_it():
    row = next(row for row in ADMIN if row["case"] == "real_group_authorization_failed"
               and row["version"] == 5)
    (group,) = _decoded(row).groups
    assert (codec.error_name(group.error_code), group.group_state, group.members,
            group.authorized_operations) == ("GROUP_AUTHORIZATION_FAILED", "", (), -(2 ** 31))


def test_offset_fetch_of_two_groups_reads_per_group():
    row = next(row for row in ADMIN if row["case"] == "real_offset_fetch_two_groups")
    groups = codec.offset_fetch_groups(_decoded(row))
    assert [group.group_id for group in groups] == [g["group_id"] for g in row["value"]["groups"]]
    partitions = [p for group in groups for topic in group.topics for p in topic.partitions]
    unstable = [p for p in partitions if codec.error_name(p.error_code) == "UNSTABLE_OFFSET_COMMIT"]
    assert [(p.committed_offset, p.committed_leader_epoch, p.metadata) for p in unstable] == [
        (-1, -1, "")]
    assert any(p.metadata is None for p in partitions)
    assert hexify(groups[0].topics[0].to_dict()) == row["value"]["groups"][0]["topics"][0]
