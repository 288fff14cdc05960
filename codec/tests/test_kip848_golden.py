"""Every ``__consumer_offsets`` record Java produced (golden/kip848/codec.jsonl), through the
facade and through both the interpreted and the compiled construct declarations. The set's API
bodies and frames are checked with the cluster reader's in test_api_golden.py."""

from __future__ import annotations

import assignframe_codec as codec
import pytest
from assignframe_codec.coordinator_records import (
    RECORD_TYPES,
    decode_coordinator_record,
    encode_coordinator_record,
)
from codec_shared import hexify
from java_views import java_view, kip848_golden, row_id, unhex_value, with_unknown

RECORDS = kip848_golden("coordinator_record")


def _unhex(text):
    return None if text is None else bytes.fromhex(text)


def test_every_golden_record_half_is_a_kind():
    kinds = {row[half] for row in RECORDS for half in ("key_type", "value_type")}
    assert kinds <= set(codec.KINDS)
    assert {row["record_type"] for row in RECORDS} == set(RECORD_TYPES)


# --------------------------------------------------------------------------- records
@pytest.mark.parametrize("row", RECORDS, ids=row_id)
def test_record_decodes_to_java_key_and_value(row):
    record = decode_coordinator_record(bytes.fromhex(row["key_hex"]), _unhex(row["value_hex"]))
    assert (record.record_type, record.key_type, record.value_type) == (
        row["record_type"], row["key_type"], row["value_type"])
    assert hexify(record.key.to_dict()) == row["key"]
    assert record.tombstone is row["tombstone"]
    assert record.value_version == row["version"]
    if record.value is not None:
        value, unknown = java_view(record.value)
        assert value == row["value"]
        assert unknown == row.get("unknown_tagged_fields", [])


@pytest.mark.parametrize("row", RECORDS, ids=row_id)
def test_record_value_encodes_to_java_bytes(row):
    record = RECORD_TYPES[row["record_type"]]
    value = row["value"]
    if value is not None:
        value = with_unknown(unhex_value(record.value.model, value),
                             row.get("unknown_tagged_fields", []))
    key_bytes, value_bytes = encode_coordinator_record(
        row["record_type"], row["key"], value, row["version"])
    assert key_bytes.hex() == row["key_hex"]
    assert (value_bytes.hex() if value_bytes is not None else None) == row["value_hex"]
    assert key_bytes[2:].hex() == row["key_struct_hex"]


# OffsetCommit*/GroupMetadata* facade kinds are the classic version-prefixed ones (records.py).
@pytest.mark.parametrize(
    "row", [row for row in RECORDS if row["value"] is not None and row["record_type"] > 2],
    ids=row_id)
def test_record_halves_through_the_facade_kinds(row):
    key = codec.decode(row["key_type"], bytes.fromhex(row["key_struct_hex"]), 0)
    assert hexify(key.to_dict()) == row["key"]
    value = codec.decode(row["value_type"], bytes.fromhex(row["hex"]), row["version"])
    assert codec.encode(row["value_type"], value, row["version"]).hex() == row["hex"]


@pytest.mark.parametrize("compiled", [False, True], ids=["interpreted", "compiled"])
@pytest.mark.parametrize("row", [row for row in RECORDS if row["value"] is not None], ids=row_id)
def test_record_declarations_round_trip_java_bytes(row, compiled):
    record = RECORD_TYPES[row["record_type"]]
    halves = ((record.key, bytes.fromhex(row["key_struct_hex"]), 0, False),
              (record.value, bytes.fromhex(row["hex"]), row["version"],
               record.is_flexible(row["version"])))
    for fmt, data, version, flexible in halves:
        parser = fmt.compiled if compiled else fmt.struct
        container = parser.parse(data, version=version, flexible=flexible)
        assert parser.build(container, version=version, flexible=flexible) == data
        other = fmt.struct if compiled else fmt.compiled
        assert container == other.parse(data, version=version, flexible=flexible)


def test_compiled_record_declarations_generate_code_without_interpreter_fallback():
    for record in RECORD_TYPES.values():
        for fmt in (record.key, record.value):
            source = fmt.compiled.source
            assert "linkedparsers[" not in source and "linkedbuilders[" not in source, fmt.name


def test_facade_exports_the_record_reader():
    row = next(row for row in RECORDS if row["record_type"] == 8 and row["value"] is not None)
    record = codec.decode_coordinator_record(bytes.fromhex(row["key_hex"]),
                                             bytes.fromhex(row["value_hex"]))
    assert isinstance(record, codec.CoordinatorRecord)
    assert codec.RECORD_TYPES[8].value_type == record.value_type
    assert codec.encode_coordinator_record(8, record.key, record.value, 0)[1] == bytes.fromhex(
        row["value_hex"])
