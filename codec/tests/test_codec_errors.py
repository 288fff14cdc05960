"""The error model, the public API's shape, the fast path and real client captures."""

from __future__ import annotations

import pickle
import struct
import time

import assignframe_codec as codec
import pytest
from assignframe_codec import consumer
from codec_shared import golden, shared_dir
from construct import Container


def _error(call, *args, **kwargs) -> codec.CodecError:
    with pytest.raises(codec.CodecError) as caught:
        call(*args, **kwargs)
    return caught.value


# --------------------------------------------------------------------------- error model
def test_huge_count_fails_at_once_without_allocating():
    data = b"\x00\x03" + struct.pack(">i", 2**31 - 1) + bytes(14)
    started = time.perf_counter()
    error = _error(codec.decode_subscription, data)
    assert time.perf_counter() - started < 0.05
    assert isinstance(error, codec.TruncatedError)
    assert (error.kind, error.version, error.path, error.offset) == (
        "ConsumerProtocolSubscription", 3, "topics", 2)


def test_error_names_the_nested_field_path_and_offset():
    good = codec.encode_subscription(["a"], owned_partitions=[("a", 1), ("b", 2), ("c", 3)])
    cut = good.index(b"\x00\x01c") + 3  # the third group's partition count
    error = _error(codec.decode_subscription, good[:cut] + b"\x7f\xff\xff\xff")
    assert error.path == "owned_partitions[2].partitions"
    assert error.offset == cut
    for part in ("owned_partitions[2].partitions", f"offset={cut}", "version=3",
                 "ConsumerProtocolSubscription"):
        assert part in str(error)


def test_codec_error_is_a_value_error_and_pickles():
    error = _error(codec.decode, "JoinGroupRequest", b"\x00", 5)
    assert isinstance(error, ValueError)
    again = pickle.loads(pickle.dumps(error))
    assert (type(again), again.kind, again.version, again.path, again.offset) == (
        type(error), error.kind, error.version, error.path, error.offset)


def test_overlong_varint_is_malformed():
    error = _error(codec.decode, "SyncGroupResponse", bytes(6) + b"\x81" * 6, 4)
    assert isinstance(error, codec.MalformedError) and error.offset == 6


def test_compact_null_in_non_nullable_field_is_malformed():
    error = _error(codec.decode, "SyncGroupResponse", bytes.fromhex("000000000000000100"), 4)
    assert isinstance(error, codec.MalformedError) and error.path == "assignment"


@pytest.mark.parametrize("call", [
    lambda: codec.decode("NoSuchKind", b""),
    lambda: codec.encode("NoSuchKind", {}),
])
def test_unknown_kind(call):
    assert isinstance(_error(call), codec.UnknownKindError)


def test_versions_are_checked():
    assert isinstance(_error(codec.decode, "JoinGroupRequest", b"", None),
                      codec.InvalidVersionError)
    assert isinstance(_error(codec.decode, "OffsetCommitValue", b"", -1),
                      codec.InvalidVersionError)
    assert isinstance(_error(codec.encode_subscription, ["t"], version=-1),
                      codec.InvalidVersionError)
    assert isinstance(_error(codec.decode_subscription, b"\xff\xff" + bytes(8)),
                      codec.InvalidVersionError)


def test_non_default_field_absent_at_version_is_refused_with_its_path():
    value = {"group_id": "g", "session_timeout_ms": 1, "member_id": "m",
             "group_instance_id": "i", "protocol_type": "consumer", "protocols": []}
    error = _error(codec.encode, "JoinGroupRequest", value, 4)
    assert isinstance(error, codec.EncodeError) and error.path == "group_instance_id"
    ignorable = dict(value, group_instance_id=None, reason="dropped below v8")
    assert codec.decode("JoinGroupRequest", codec.encode("JoinGroupRequest", ignorable, 4),
                        4).reason is None


@pytest.mark.parametrize("bad", [
    {"topics": "abc", "user_data": None},
    {"topics": [1], "user_data": None},
    {"topics": [], "user_data": "hex is not bytes"},
    {"topics": ["\ud800"], "user_data": None},
    {"topics": [], "user_data": None, "extra": 1},
    42,
])
def test_bad_values_raise_encode_errors(bad):
    assert isinstance(_error(codec.encode, "ConsumerProtocolSubscription", bad, 0),
                      codec.EncodeError)


def test_out_of_range_int_is_an_encode_error():
    value = {"group": "g", "topic": "t", "partition": 2**31}
    error = _error(codec.encode, "OffsetCommitKey", value, 1)
    assert isinstance(error, codec.EncodeError) and error.path == "partition"


def test_unknown_tagged_fields_survive_a_round_trip():
    data = bytes.fromhex("0000000000000201020001070500")
    decoded = codec.decode("SyncGroupResponse", data, 4)
    assert decoded.unknown_tagged_fields == ((0, b"\x07"), (5, b""))
    assert codec.encode("SyncGroupResponse", decoded) == data


# --------------------------------------------------------------------------- API shape
def test_public_api_shape():
    assert codec.__all__ == sorted(codec.__all__)
    assert isinstance(codec.__version__, str)
    assert codec.KINDS == tuple(sorted(codec.KINDS))
    assert issubclass(codec.CodecError, ValueError)


def _walk(value):
    yield value
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _walk(item)
    elif hasattr(value, "__dataclass_fields__"):
        for name in value.__dataclass_fields__:
            yield from _walk(getattr(value, name))


@pytest.mark.parametrize("row", [row for row in golden() if row["hex"]], ids=lambda r: r["type"])
def test_no_construct_container_leaks(row):
    decoded = codec.decode(row["type"], bytes.fromhex(row["hex"]), row["version"])
    assert not any(isinstance(part, (Container, list)) for part in _walk(decoded))
    with pytest.raises(AttributeError):
        decoded.__setattr__("version", 99)


def test_java_string_order_is_utf16():
    topics = ["\uff5ez", "\U0001f600a", "b"]  # U+FF5E sorts after the surrogate pair in Java
    decoded = codec.decode_subscription(codec.encode_subscription(topics))
    assert decoded.topics == ("b", "\U0001f600a", "\uff5ez")


# --------------------------------------------------------------------------- fast path
@pytest.mark.parametrize("row", golden("ConsumerProtocolSubscription") +
                         golden("ConsumerProtocolAssignment"), ids=lambda r: r["case"])
def test_fast_path_equals_the_declaration_on_java_bytes(row):
    data = bytes.fromhex(row["hex"])
    if row["type"] == "ConsumerProtocolSubscription":
        fast = consumer.decode_subscription_fast(data)
        slow = consumer.decode_by_declaration(consumer.SUBSCRIPTION_FORMAT, data, "subscription")
    else:
        fast = consumer.decode_assignment_fast(data)
        slow = consumer.decode_by_declaration(consumer.ASSIGNMENT_FORMAT, data, "assignment")
    assert fast == slow


# --------------------------------------------------------------------------- real clients
def _librdkafka_subscriptions() -> list[bytes]:
    """JoinGroup v5 protocol metadata for "cooperative-sticky" in the librdkafka capture
    (the name also occurs elsewhere: only v3 subscriptions are kept)."""
    raw = (shared_dir() / "captures" / "librdkafka_cooperative_sticky.pcap").read_bytes()
    marker, found = b"\x00\x12cooperative-sticky", []
    start = raw.find(marker)
    while start >= 0:
        (length,) = struct.unpack_from(">i", raw, start + len(marker))
        begin = start + len(marker) + 4
        if 0 < length < 4096 and raw[begin:begin + 2] == b"\x00\x03":
            found.append(raw[begin:begin + length])
        start = raw.find(marker, begin)
    return found


def test_librdkafka_cooperative_user_data_is_the_sticky_v1_layout():
    subscriptions = [codec.decode_subscription(data) for data in _librdkafka_subscriptions()]
    rejoins = [s for s in subscriptions if s.user_data]
    assert rejoins and all(s.rack_id is None for s in subscriptions)
    for subscription in rejoins:
        user_data = codec.decode_cooperative_user_data(subscription.user_data)
        assert user_data.layout == "sticky-v1"
        assert user_data.previous_assignment == subscription.owned_partitions
        assert user_data.generation == subscription.generation_id
        # Java reads the first int32 (the topic count) as the generation
        assert codec.cooperative_member_data(subscription.user_data).generation == 1
    first_join = [s for s in subscriptions if s.user_data == b""]
    assert first_join and codec.cooperative_member_data(b"").generation == -1
