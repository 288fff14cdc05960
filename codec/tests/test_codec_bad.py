"""golden/codec_bad.jsonl: where Java throws we raise CodecError; where Java copes, so do we."""

from __future__ import annotations

import assignframe_codec as codec
import pytest
from codec_shared import (
    MODELS,
    case_id,
    golden_bad,
    hexify,
    java_assignment_view,
    java_subscription_view,
    unhexify,
)

CASES = golden_bad()


def _unhex(text):
    return None if text is None else bytes.fromhex(text)


def _decode_like_java(row):
    """The Java API each case names, through its counterpart here, in the golden shape."""
    data = bytes.fromhex(row["hex"])
    kind = row["type"]
    if kind == "ConsumerProtocolSubscription":
        return java_subscription_view(codec.decode_subscription(data))
    if kind == "ConsumerProtocolAssignment":
        return java_assignment_view(codec.decode_assignment(data))
    if kind == "StickyAssignorUserData":
        member = codec.sticky_member_data(data)
    elif kind == "CooperativeStickyAssignorUserData":
        member = codec.cooperative_member_data(data)
    else:
        decoded = codec.decode(kind, data, row["version"]).to_dict()
        decoded.pop("unknown_tagged_fields", None)
        return hexify(decoded)
    return {"partitions": [list(pair) for pair in member.partitions],
            "generation": member.generation}


def _encode_like_java(row):
    given = row["input"]
    kind = row["type"]
    if kind == "ConsumerProtocolSubscription":
        return codec.encode_subscription(
            given["topics"], user_data=_unhex(given["user_data"]),
            owned_partitions=[tuple(pair) for pair in given["owned_partitions"]],
            generation_id=given["generation_id"], rack_id=given["rack_id"],
            version=row["version"],
        )
    if kind == "StickyAssignorUserData":  # Java serialised the V1 struct without a generation
        groups = codec.decode_sticky_user_data(
            codec.encode_sticky_user_data([tuple(p) for p in given["partitions"]], None)
        ).previous_assignment
        return codec.encode(kind, {"previous_assignment": groups}, 1)
    return codec.encode(kind, unhexify(MODELS[kind], given), row["version"])


@pytest.mark.parametrize("row", CASES, ids=case_id)
def test_behaves_like_java(row):
    run = _decode_like_java if row["op"] == "decode" else _encode_like_java
    java = row["java"]
    if "exception" in java:
        with pytest.raises(codec.CodecError) as caught:
            run(row)
        assert not caught.value.reason.startswith("internal error")
    elif "result_hex" in java:
        assert run(row).hex() == java["result_hex"]
    else:
        assert run(row) == java["result"]


@pytest.mark.parametrize(
    "row", [row for row in CASES if row["op"] == "decode" and "exception" in row["java"]],
    ids=case_id,
)
def test_generic_decode_refuses_the_same_bytes(row):
    kind = row["type"]
    with pytest.raises(codec.CodecError) as caught:
        codec.decode(kind, bytes.fromhex(row["hex"]), row.get("version"))
    error = caught.value
    assert error.kind == kind
    assert not error.reason.startswith("internal error")
