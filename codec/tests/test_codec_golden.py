"""Every vector Java produced (golden/codec.jsonl), through the facade and through both the
interpreted and the compiled construct declaration."""

from __future__ import annotations

import assignframe_codec as codec
import pytest
from assignframe_codec.registry import declaration
from codec_shared import (
    MODELS,
    case_id,
    flat_pairs,
    golden,
    hexify,
    java_assignment_view,
    java_subscription_view,
    load_jsonl,
    unhexify,
)

VECTORS = [row for row in golden() if row["hex"] is not None]
PREFIXED = ("ConsumerProtocolSubscription", "ConsumerProtocolAssignment")


def test_golden_kinds_are_exactly_the_codec_kinds():
    # the bodies Java's golden set does not hold are checked against kafka-python instead
    from test_codec_apis import KAFKA_PYTHON_CHECKED
    kip848 = load_jsonl("kip848/codec.jsonl")  # API kinds, and key/value kinds of records
    kinds = {row["type"] for row in golden()} | set(KAFKA_PYTHON_CHECKED)
    kinds |= {row["type"] for row in kip848 if row["kind"] == "api"}
    kinds |= {row[half] for row in kip848 if row["kind"] == "coordinator_record"
              for half in ("key_type", "value_type")}
    kinds |= {row["type"] for row in load_jsonl("admin/codec.jsonl")}  # the cluster reader's
    from java_views import golden43
    kinds |= {row["type"] for row in golden43()}  # Kafka 4.3.1's, not in ../shared/golden
    assert codec.KINDS == tuple(sorted(kinds))


@pytest.mark.parametrize("row", VECTORS, ids=case_id)
def test_decode_matches_java(row):
    decoded = codec.decode(row["type"], bytes.fromhex(row["hex"]), row["version"])
    assert isinstance(decoded, MODELS[row["type"]])
    assert hexify(decoded.to_dict()) == row["value"]


@pytest.mark.parametrize("row", VECTORS, ids=case_id)
def test_encode_value_gives_java_bytes(row):
    value = unhexify(MODELS[row["type"]], row["value"])
    assert codec.encode(row["type"], value, row["version"]).hex() == row["hex"]


@pytest.mark.parametrize("row", VECTORS, ids=case_id)
def test_decoded_object_reencodes_to_java_bytes(row):
    decoded = codec.decode(row["type"], bytes.fromhex(row["hex"]), row["version"])
    assert codec.encode(row["type"], decoded, row["version"]).hex() == row["hex"]


@pytest.mark.parametrize("compiled", [False, True], ids=["interpreted", "compiled"])
@pytest.mark.parametrize("row", VECTORS, ids=case_id)
def test_declaration_round_trips_java_bytes(row, compiled):
    fmt, params, start = declaration(row["type"], row["version"])
    parser = fmt.compiled if compiled else fmt.struct
    data = bytes.fromhex(row["hex"])
    container = parser.parse(data[start:], **params)
    assert parser.build(container, **params) == data[start:]
    other = (fmt.struct if compiled else fmt.compiled).parse(data[start:], **params)
    assert container == other


def test_compiled_declarations_generate_code_without_interpreter_fallback():
    layouts = {"StickyAssignorUserData": 1, "CooperativeStickyAssignorUserData": 0}
    for kind in codec.KINDS:
        fmt, _, _ = declaration(kind, layouts.get(kind, 2))
        source = fmt.compiled.source
        assert "linkedparsers[" not in source and "linkedbuilders[" not in source, kind


# --------------------------------------------------------------------------- framed
FRAMED = [row for row in VECTORS if "framed" in row]


@pytest.mark.parametrize("row", FRAMED, ids=case_id)
def test_frame_decodes_to_java_header_and_body(row):
    framed = row["framed"]
    frame = codec.decode_frame(bytes.fromhex(framed["hex"]), row["type"], row["version"])
    assert (frame.kind, frame.version) == (row["type"], row["version"])
    assert frame.header.version == framed["header_version"]
    assert type(frame.header).__name__ == framed["header_type"]
    assert frame.header.to_dict() == framed["header"]
    assert hexify(frame.body.to_dict()) == row["value"]


@pytest.mark.parametrize("row", FRAMED, ids=case_id)
def test_frame_encodes_to_java_bytes(row):
    framed = row["framed"]
    body = unhexify(MODELS[row["type"]], row["value"])
    data = codec.encode_frame(row["type"], framed["header"], body, row["version"])
    assert data.hex() == framed["hex"]
    assert framed["hex"][8:].startswith(framed["header_hex"])


@pytest.mark.parametrize(
    "row", [row for row in FRAMED if row["type"].endswith("Request")], ids=case_id
)
def test_request_frame_names_its_own_kind_and_version(row):
    frame = codec.decode_frame(bytes.fromhex(row["framed"]["hex"]))
    assert (frame.kind, frame.version) == (row["type"], row["version"])


# --------------------------------------------------------------------------- records
RECORDS = [row for row in VECTORS if "hex_version_prefixed" in row]


@pytest.mark.parametrize("row", RECORDS, ids=case_id)
def test_record_as_stored(row):
    stored = bytes.fromhex(row["hex_version_prefixed"])
    decoded = codec.decode_record(row["type"], stored)
    assert decoded.version == row["version"]
    assert hexify(decoded.to_dict()) == row["value"]
    assert codec.encode_record(row["type"], decoded) == stored
    value = unhexify(MODELS[row["type"]], row["value"])
    assert codec.encode_record(row["type"], value, row["version"]) == stored


# --------------------------------------------------------------------------- consumer protocol
SUBSCRIPTIONS = golden("ConsumerProtocolSubscription")
ASSIGNMENTS = golden("ConsumerProtocolAssignment")


@pytest.mark.parametrize("row", SUBSCRIPTIONS, ids=case_id)
def test_decode_subscription_is_javas_view(row):
    subscription = codec.decode_subscription(bytes.fromhex(row["hex"]))
    assert subscription.version == row["version"]
    assert java_subscription_view(subscription) == row["decoded_subscription"]


@pytest.mark.parametrize("row", SUBSCRIPTIONS, ids=case_id)
def test_encode_subscription_sorts_and_groups_like_java(row):
    given = row["input_subscription"]
    data = codec.encode_subscription(
        given["topics"],
        user_data=None if given["user_data"] is None else bytes.fromhex(given["user_data"]),
        owned_partitions=[tuple(pair) for pair in given["owned_partitions"]],
        generation_id=-1 if given["generation_id"] is None else given["generation_id"],
        rack_id=given["rack_id"],
        version=row["version"],
    )
    assert data.hex() == row["hex"]


@pytest.mark.parametrize("row", ASSIGNMENTS, ids=case_id)
def test_decode_assignment_is_javas_view(row):
    assignment = codec.decode_assignment(bytes.fromhex(row["hex"]))
    assert assignment.version == row["version"]
    assert java_assignment_view(assignment) == row["decoded_assignment"]


@pytest.mark.parametrize("row", ASSIGNMENTS, ids=case_id)
def test_encode_assignment_groups_like_java(row):
    given = row["input_assignment"]
    data = codec.encode_assignment(
        [tuple(pair) for pair in given["partitions"]],
        user_data=None if given["user_data"] is None else bytes.fromhex(given["user_data"]),
        version=row["version"],
    )
    assert data.hex() == row["hex"]


# --------------------------------------------------------------------------- user data
STICKY = [row for row in golden("StickyAssignorUserData") if row["hex"] is not None]
COOPERATIVE = golden("CooperativeStickyAssignorUserData")


@pytest.mark.parametrize("row", STICKY, ids=case_id)
def test_sticky_user_data_decodes_like_java_member_data(row):
    decoded = codec.decode_sticky_user_data(bytes.fromhex(row["hex"]))
    assert decoded.layout == ("V1" if row["version"] == 1 else "V0")
    assert {"partitions": flat_pairs(decoded.previous_assignment),
            "generation": decoded.generation} == row["decoded"]
    member = codec.sticky_member_data(bytes.fromhex(row["hex"]))
    assert [list(pair) for pair in member.partitions] == row["decoded"]["partitions"]
    assert member.generation == row["decoded"]["generation"]


@pytest.mark.parametrize("row", STICKY, ids=case_id)
def test_sticky_user_data_reencodes_from_decoded_order(row):
    decoded = row["decoded"]
    pairs = [tuple(pair) for pair in decoded["partitions"]]
    data = codec.encode_sticky_user_data(pairs, decoded["generation"])
    assert data.hex() == row["hex"]


@pytest.mark.parametrize(
    "row", [row for row in STICKY if "assigned_partitions_input" in row], ids=case_id
)
def test_sticky_user_data_from_assignment_order_has_same_content(row):
    pairs = [tuple(pair) for pair in row["assigned_partitions_input"]]
    again = codec.decode_sticky_user_data(
        codec.encode_sticky_user_data(pairs, row["generation_input"])
    )
    original = codec.decode_sticky_user_data(bytes.fromhex(row["hex"]))
    assert again.generation == original.generation
    assert {group.topic: group.partitions for group in again.previous_assignment} == {
        group.topic: group.partitions for group in original.previous_assignment
    }


def test_sticky_user_data_before_any_assignment_is_null():
    (row,) = [row for row in golden("StickyAssignorUserData") if row["hex"] is None]
    assert codec.sticky_member_data(None) == codec.MemberData((), None)
    assert row["value"] is None


@pytest.mark.parametrize("row", COOPERATIVE, ids=case_id)
def test_cooperative_user_data_is_javas_generation(row):
    decoded = codec.decode_cooperative_user_data(bytes.fromhex(row["hex"]))
    assert (decoded.layout, decoded.generation) == ("java-generation", row["decoded"]["generation"])
    assert codec.encode_cooperative_user_data(decoded.generation).hex() == row["hex"]
    assert codec.cooperative_member_data(bytes.fromhex(row["hex"])).generation == \
        row["decoded"]["generation"]
