"""golden/admin/codec_bad.jsonl: bodies Java refuses (truncated anywhere; a collection length of
2^31 - 1). Each is refused here with the CodecError subclass standing for Java's exception,
naming the field path and the offset where the read failed, by the interpreted and the compiled
parser alike, without allocating for the declared length."""

from __future__ import annotations

import tracemalloc

import assignframe_codec as codec
import pytest
from assignframe_codec.engine import COMPILED_PARSE_REFUSALS
from assignframe_codec.registry import declaration
from java_views import admin_bad, admin_golden, expected_error, row_id

CASES = admin_bad()
HUGE = [row for row in CASES if row["case"] == "collection_len_max"]
CUT = [row for row in CASES if row["case"].startswith("trunc_")]
_MIN_BODIES = {(row["type"], row["version"]): codec.decode(row["type"], bytes.fromhex(row["hex"]),
                                                           row["version"])
               for row in admin_golden() if row["case"] == "min_00"}


def _refusal(row) -> codec.CodecError:
    data = bytes.fromhex(row["hex"])
    with pytest.raises(codec.CodecError) as caught:
        codec.decode(row["type"], data, row["version"])
    return caught.value


def test_every_case_is_a_refusal_java_made_that_we_can_name():
    assert len(CASES) == len(HUGE) + len(CUT) == 440
    for row in CASES:
        assert row["op"] == "decode" and "exception" in row["java"]
        assert expected_error(row["java"]) is codec.TruncatedError, row["java"]


@pytest.mark.parametrize("row", CASES, ids=row_id)
def test_refused_like_java_naming_kind_version_and_field(row):
    error = _refusal(row)
    assert not error.reason.startswith("internal error"), error
    assert isinstance(error, expected_error(row["java"])), (row["java"], repr(error))
    assert (error.kind, error.version) == (row["type"], row["version"])
    assert error.path, str(error)
    assert error.offset is not None and 0 <= error.offset <= len(row["hex"]) // 2


@pytest.mark.parametrize("row", HUGE, ids=row_id)
def test_a_huge_collection_is_refused_at_its_length_before_allocating(row):
    declaration(row["type"], row["version"])[0].compiled  # noqa: B018 - compile before measuring
    tracemalloc.start()
    try:
        error = _refusal(row)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (error.path, error.offset) == (row["path"], row["offset"]), str(error)
    assert "cannot fit" in error.reason
    assert peak < 256 * 1024, peak


@pytest.mark.parametrize("row", CUT, ids=row_id)
def test_a_cut_body_fails_where_the_cut_is(row):
    error = _refusal(row)
    assert error.offset <= row["truncated_at"], str(error)


@pytest.mark.parametrize("compiled", [False, True], ids=["interpreted", "compiled"])
@pytest.mark.parametrize("row", CASES, ids=row_id)
def test_both_declarations_refuse_the_same_bytes(row, compiled):
    fmt, params, _ = declaration(row["type"], row["version"])
    parser = fmt.compiled if compiled else fmt.struct
    # generated code refuses with construct's and struct's errors too (the facade then
    # re-runs the interpreter for the report); anything else would escape the facade
    with pytest.raises(COMPILED_PARSE_REFUSALS if compiled else codec.CodecError):
        parser.parse(bytes.fromhex(row["hex"]), **params)


@pytest.mark.parametrize("row", CUT, ids=row_id)
def test_a_cut_body_inside_a_whole_frame_is_refused_too(row):
    """The cut body after a valid header, in a frame whose size matches: the body's refusal."""
    kind, version = row["type"], row["version"]
    header = {"correlation_id": 7}
    if kind.endswith("Request"):
        header["client_id"] = "reader"
    whole = codec.encode_frame(kind, header, _MIN_BODIES[kind, version], version)
    head = whole[4:len(whole) - len(codec.encode(kind, _MIN_BODIES[kind, version], version))]
    body = bytes.fromhex(row["hex"])
    frame = (len(head) + len(body)).to_bytes(4, "big") + head + body
    with pytest.raises(codec.CodecError) as caught:
        codec.decode_frame(frame, kind, version)
    assert caught.value.kind == kind and caught.value.path, str(caught.value)
