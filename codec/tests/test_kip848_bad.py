"""golden/kip848/codec_bad.jsonl: where Java throws we raise CodecError (naming the field when
Java's error names one), where Java accepts we give Java's value and write Java's bytes back."""

from __future__ import annotations

import assignframe_codec as codec
import pytest
from assignframe_codec.coordinator_records import (
    RECORD_TYPES,
    decode_coordinator_record,
    encode_coordinator_record,
)
from assignframe_codec.registry import message_codec
from codec_shared import hexify
from java_views import (
    expected_error,
    java_field,
    java_view,
    kip848_bad,
    row_id,
    unhex_value,
    with_unknown,
)

CASES = kip848_bad()
API_DECODE = [row for row in CASES if row["kind"] == "api" and row["op"] == "decode"]
API_ENCODE = [row for row in CASES if row["kind"] == "api" and row["op"] == "encode"]
RECORD_DECODE = [row for row in CASES if row["kind"] != "api" and row["op"] == "decode"]
RECORD_ENCODE = [row for row in CASES if row["kind"] != "api" and row["op"] == "encode"]


def _unhex(text):
    return None if text is None else bytes.fromhex(text)


def _assert_names_field(error: codec.CodecError, exception: dict) -> None:
    assert not error.reason.startswith("internal error"), error
    assert isinstance(error, expected_error(exception)), (exception, repr(error))
    field = java_field(exception)
    if field is not None:
        assert error.path is not None and field in error.path.split("."), (field, str(error))


def _with_paths(unknown: list[dict]) -> list[dict]:
    """codec_bad lists top-level unknown tags without a path."""
    return [{"path": entry.get("path", []), "tag": entry["tag"], "hex": entry["hex"]}
            for entry in unknown]


# --------------------------------------------------------------------------- API decode
@pytest.mark.parametrize("row", API_DECODE, ids=row_id)
def test_api_decode_behaves_like_java(row):
    data = bytes.fromhex(row["hex"])
    java = row["java"]
    if "exception" in java:
        with pytest.raises(codec.CodecError) as caught:
            codec.decode(row["type"], data, row["version"])
        assert caught.value.kind == row["type"]
        _assert_names_field(caught.value, java["exception"])
        return
    decoded = codec.decode(row["type"], data, row["version"])
    value, unknown = java_view(decoded)
    assert value == java["result"]
    assert unknown == _with_paths(java.get("unknown_tagged_fields", []))
    rewritten = codec.encode(row["type"], decoded, row["version"])
    if "rewrite_hex" in java:  # not given for out-of-order and duplicate unknown tags
        assert rewritten.hex() == java["rewrite_hex"]
    assert java_view(codec.decode(row["type"], rewritten, row["version"])) == (value, unknown)


# --------------------------------------------------------------------------- API encode
def _api_input(row) -> dict:
    model = message_codec(row["type"]).fmt.model
    value = unhex_value(model, row["input"])
    if row.get("set_null"):
        value[row["set_null"]] = None
    return value


@pytest.mark.parametrize("row", API_ENCODE, ids=row_id)
def test_api_encode_behaves_like_java(row):
    java = row["java"]
    if "exception" in java:
        with pytest.raises(codec.CodecError) as caught:
            codec.encode(row["type"], _api_input(row), row["version"])
        _assert_names_field(caught.value, java["exception"])
        if row.get("set_null"):
            assert row["set_null"] in (caught.value.path or ""), str(caught.value)
        return
    written = codec.encode(row["type"], _api_input(row), row["version"])
    assert written.hex() == java["result_hex"]
    assert java_view(codec.decode(row["type"], written, row["version"]))[0] == java["result"]


# --------------------------------------------------------------------------- record decode
@pytest.mark.parametrize("row", RECORD_DECODE, ids=row_id)
def test_record_decode_behaves_like_java(row):
    key, value = bytes.fromhex(row["key_hex"]), _unhex(row["value_hex"])
    java = row["java"]
    if "exception" in java:
        with pytest.raises(codec.CodecError) as caught:
            decode_coordinator_record(key, value)
        _assert_names_field(caught.value, java["exception"])
        return
    result = java["result"]
    record = decode_coordinator_record(key, value)
    assert (record.record_type, record.key_type) == (result["record_type"], result["key_type"])
    assert hexify(record.key.to_dict()) == result["key"]
    if record.value is None:
        assert result["value"] is None
        return
    assert (record.value_type, record.value_version) == (
        result["value_type"], result["value_version"])
    decoded_value, unknown = java_view(record.value)
    assert decoded_value == result["value"]
    assert unknown == _with_paths(result.get("value_unknown_tagged_fields", []))


# --------------------------------------------------------------------------- record encode
def _record_input(row):
    record = RECORD_TYPES[_record_type(row)]
    given = row["input"]
    key = dict(given["key"])
    if given.get("key_unknown_tagged_fields"):
        key = with_unknown(key, [{"path": [], **entry}
                                 for entry in given["key_unknown_tagged_fields"]])
    value = given["value"]
    if value is not None:
        value = unhex_value(record.value.model, value)
    return record, key, value


def _record_type(row) -> int:
    return next(number for number, record in RECORD_TYPES.items() if record.name == row["type"])


@pytest.mark.parametrize("row", RECORD_ENCODE, ids=row_id)
def test_record_encode_behaves_like_java(row):
    record, key, value = _record_input(row)
    java = row["java"]
    if "exception" in java:
        with pytest.raises(codec.CodecError):
            encode_coordinator_record(record.record_type, key, value, row["version"])
        return
    result = java["result"]
    if "readback_exception" in result or row["version"] > record.highest_value_version:
        # Java writes a version above the highest (the highest layout) and cannot read it back;
        # we refuse to write it: a log the coordinator cannot load is never what is wanted.
        with pytest.raises(codec.InvalidVersionError):
            encode_coordinator_record(record.record_type, key, value, row["version"])
        return
    key_bytes, value_bytes = encode_coordinator_record(record.record_type, key, value,
                                                       row["version"])
    assert key_bytes.hex() == result["key_hex"]
    assert value_bytes is not None and value_bytes.hex() == result["value_hex"]
    assert java_view(decode_coordinator_record(key_bytes, value_bytes).value)[0] == result["value"]


def test_record_errors_name_the_half_and_the_offset_in_its_stored_bytes():
    key = bytes.fromhex("0005" "0008" "67726f75702d7549" "0001")  # member_id says 1 byte, has 0
    with pytest.raises(codec.TruncatedError) as caught:
        decode_coordinator_record(key, None)
    assert (caught.value.kind, caught.value.path, caught.value.offset) == (
        "ConsumerGroupMemberMetadataKey", "member_id", 12)
    key = bytes.fromhex("0005" "0008" "67726f75702d7549" "000133")
    with pytest.raises(codec.TruncatedError) as caught:  # client_id of 15 bytes, 2 left
        decode_coordinator_record(key, bytes.fromhex("0000" "0000" "10636f"))
    error = caught.value
    assert (error.kind, error.version, error.path, error.offset) == (
        "ConsumerGroupMemberMetadataValue", 0, "client_id", 4)
    with pytest.raises(codec.InvalidVersionError) as caught:
        decode_coordinator_record(key, bytes.fromhex("0001" "00"))
    assert (caught.value.kind, caught.value.version) == ("ConsumerGroupMemberMetadataValue", 1)
    with pytest.raises(codec.UnknownKindError):
        decode_coordinator_record(bytes.fromhex("0012" "0001" "67"), None)  # 18 is unused
