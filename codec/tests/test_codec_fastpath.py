"""The fast path's caches: a hit decodes exactly what the declaration decodes, and they stay
bounded. (Fast path against declaration on golden and fuzzed bytes: test_codec_errors and
test_codec_properties.)"""

from __future__ import annotations

import struct

import assignframe_codec as codec
import pytest
from assignframe_codec import consumer, fastfields, fastpath
from hypothesis import given, settings
from hypothesis import strategies as st


def _declared_subscription(data: bytes):
    return consumer.decode_by_declaration(consumer.SUBSCRIPTION_FORMAT, data, "subscription")


def _declared_assignment(data: bytes):
    return consumer.decode_by_declaration(consumer.ASSIGNMENT_FORMAT, data, "assignment")


def _group(name: bytes, partitions: list[int]) -> bytes:
    return (struct.pack(">h", len(name)) + name + struct.pack(f">i{len(partitions)}i",
                                                              len(partitions), *partitions))


def _assignment(*groups: bytes, version: int = 3) -> bytes:
    return struct.pack(">hi", version, len(groups)) + b"".join(groups) + struct.pack(">i", -1)


@pytest.fixture(autouse=True)
def cold_caches():
    fastpath.clear_caches()
    yield
    fastpath.clear_caches()


def test_topic_arrays_with_the_same_first_topic_are_told_apart():
    first = codec.encode_subscription(["alpha", "beta"], version=0)
    second = codec.encode_subscription(["alpha", "gamma"], version=0)
    shorter = codec.encode_subscription(["alpha"], version=0)
    for data in (first, second, first, shorter, second, shorter):
        decoded = consumer.decode_subscription_fast(data)
        assert decoded == _declared_subscription(data)
    assert consumer.decode_subscription_fast(first).topics == ("alpha", "beta")


def test_a_cached_topic_array_is_reused_as_the_same_strings():
    data = codec.encode_subscription(["orders", "payments"], user_data=b"a")
    other = codec.encode_subscription(["orders", "payments"], user_data=b"b")
    fast = consumer.decode_subscription_fast
    assert fast(data).topics is fast(other).topics


def test_group_headers_are_keyed_by_name_and_count():
    one = _assignment(_group(b"t", [1]))
    two = _assignment(_group(b"t", [1, 2]), _group(b"u", []))
    for data in (one, two, one, two):
        assert consumer.decode_assignment_fast(data) == _declared_assignment(data)
    assert consumer.decode_assignment_fast(two).assigned_partitions[0].partitions == (1, 2)


def test_names_of_256_bytes_and_more_decode_but_are_not_cached():
    long_name = "x" * 300
    data = codec.encode_assignment([(long_name, 4), ("short", 1)])
    for _ in range(2):
        assert consumer.decode_assignment_fast(data) == _declared_assignment(data)
    assert [key[2:-4] for key in fastfields._GROUP_HEADERS] == [b"short"]
    # 0x01 0x00: the low byte alone (0) would find a cached key for a 0-byte name.
    empty = _assignment(_group(b"", [7]))
    long_256 = _assignment(_group(b"y" * 256, [7]))
    for data in (empty, long_256, empty, long_256):
        assert consumer.decode_assignment_fast(data) == _declared_assignment(data)


def test_bytes_after_a_cached_header_are_still_checked():
    data = codec.encode_assignment([("orders", 0), ("orders", 1)])
    consumer.decode_assignment_fast(data)
    assert fastfields._GROUP_HEADERS
    for cut in range(2, len(data)):
        with pytest.raises(fastpath.NotFast):  # the fast path's one refusal
            consumer.decode_assignment_fast(data[:cut])
        with pytest.raises(codec.CodecError):
            codec.decode_assignment(data[:cut])


def test_invalid_utf8_is_left_to_the_declaration_and_never_cached():
    data = _assignment(_group(b"\xff\xfe", [1]))
    with pytest.raises(fastpath.NotFast):
        consumer.decode_assignment_fast(data)
    assert not fastfields._GROUP_HEADERS
    assert codec.decode_assignment(data) == _declared_assignment(data)
    subscription = struct.pack(">hih", 0, 1, 1) + b"\xff" + struct.pack(">i", -1)
    assert codec.decode_subscription(subscription) == _declared_subscription(subscription)
    assert not fastfields._TOPIC_ARRAYS


def test_negative_name_length_is_refused_even_when_its_low_byte_matches():
    consumer.decode_assignment_fast(_assignment(_group(b"", [7])))
    data = struct.pack(">hi", 3, 1) + b"\xff\x00" + struct.pack(">ii", 1, 7) + b"\xff" * 4
    with pytest.raises(fastpath.NotFast):
        consumer.decode_assignment_fast(data)
    with pytest.raises(codec.CodecError):
        codec.decode_assignment(data)


def test_caches_are_bounded(monkeypatch):
    monkeypatch.setattr(fastfields, "_MAX_GROUP_HEADERS", 8)
    monkeypatch.setattr(fastfields, "_MAX_TOPIC_ARRAYS", 4)
    for index in range(50):
        names = [f"topic-{index}-{inner}" for inner in range(3)]
        data = codec.encode_subscription(names, owned_partitions=[(names[0], 1)], version=1)
        assert consumer.decode_subscription_fast(data) == _declared_subscription(data)
        assert len(fastfields._GROUP_HEADERS) <= 8
        assert len(fastfields._TOPIC_ARRAYS) <= 4
    monkeypatch.setattr(fastfields, "_MAX_TOPIC_ARRAY_BYTES", 2000)
    for index in range(20):
        data = codec.encode_subscription([f"{index:03d}" + "n" * 100 + str(inner)
                                          for inner in range(5)])
        assert consumer.decode_subscription_fast(data) == _declared_subscription(data)
        assert fastfields._topic_array_bytes <= 2000
    huge = codec.encode_subscription([f"{inner:05d}" + "n" * 100 for inner in range(40)])
    assert consumer.decode_subscription_fast(huge) == _declared_subscription(huge)
    assert fastfields._topic_array_bytes <= 2000  # too big to cache at all


NAMES = st.sampled_from(["a", "b", "orders", "é", "x" * 255, "y" * 256, "\U0001f600"])


@settings(max_examples=300, deadline=None)
@given(topics=st.lists(NAMES, max_size=4),
       owned=st.lists(st.tuples(NAMES, st.integers(-3, 3)), max_size=5),
       user_data=st.one_of(st.none(), st.binary(max_size=3)),
       version=st.integers(0, 5), flip=st.tuples(st.integers(0, 200), st.integers(0, 255)))
def test_warm_caches_decode_what_the_declaration_decodes(topics, owned, user_data, version,
                                                         flip):
    """Few names, so later examples hit what earlier ones cached, then a byte changed."""
    data = codec.encode_subscription(topics, user_data=user_data, owned_partitions=owned,
                                     generation_id=5, rack_id="r", version=min(version, 3))
    data = struct.pack(">h", version) + data[2:]  # versions above 3 read the v3 layout
    pairs = [(topic, partition) for topic, partition in owned if partition >= 0]
    assignment = codec.encode_assignment(pairs, user_data=user_data)
    mutated = bytearray(data)
    if flip[0] < len(mutated):
        mutated[flip[0]] = flip[1]
    for fast, declared, payload in (
            (consumer.decode_subscription_fast, _declared_subscription, data),
            (consumer.decode_subscription_fast, _declared_subscription, bytes(mutated)),
            (consumer.decode_assignment_fast, _declared_assignment, assignment)):
        try:
            slow = declared(payload)
        except codec.CodecError:
            slow = None
        for _ in range(2):  # cold (perhaps) then warm
            try:
                quick = fast(payload)
            except fastpath.NotFast:  # its one refusal: the caller runs the declaration
                continue
            assert quick == slow


# --------------------------------------------------------------------------- one source per layout
def test_the_fast_path_follows_its_declaration():
    """A field added to a declaration is read and written by the fast path with no other edit."""
    from assignframe_codec.primitives import Int32, Since
    from construct import Struct

    extended = Struct(*consumer.CONSUMER_PROTOCOL_ASSIGNMENT.subcons,
                      "epoch" / Since(4, Int32, default=-1, ignorable=True))
    layout = fastpath.Layout(extended, range(5))
    body = codec.encode_assignment([("t", 1)], user_data=b"u")[2:]
    fields = {}
    assert layout.read(body + struct.pack(">i", 9), 0, 4, fields) == len(body) + 4
    assert fields["epoch"] == 9 and fields["assigned_partitions"][0].partitions == (1,)
    fields = {}
    assert layout.read(body, 0, 3, fields) == len(body) and fields["epoch"] == -1
    values = {"assigned_partitions": [("t", [1])], "user_data": b"u", "epoch": 9}
    assert fastpath.encode(layout, values, 4) == body + struct.pack(">i", 9)
    assert fastpath.encode(layout, values, 3) == body  # ignorable: dropped, as Java does


def test_a_field_type_without_a_fast_reader_fails_at_import_not_at_run_time():
    from assignframe_codec.primitives import Int64
    from construct import Struct

    with pytest.raises(TypeError, match="no fast reader"):
        fastpath.Layout(Struct("offset" / Int64), (0,))


def test_fallbacks_catch_only_not_fast(monkeypatch):
    data = codec.encode_subscription(["a"])

    def broken(*args):
        raise RuntimeError("a bug in the fast path")

    monkeypatch.setitem(consumer._FAST_SUBSCRIPTION.generated, 3, broken)
    with pytest.raises(RuntimeError, match="a bug"):
        codec.decode_subscription(data)
    monkeypatch.setitem(consumer._FAST_SUBSCRIPTION.generated, 3,
                        lambda *args: (_ for _ in ()).throw(fastpath.NotFast()))
    assert codec.decode_subscription(data) == _declared_subscription(data)
