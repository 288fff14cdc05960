"""Property tests: round trips for every kind and version, and hostile bytes.

Values are generated from the construct declarations themselves (field widths, nullability and
version windows), so a field added to a declaration is exercised without touching this file.
"""

from __future__ import annotations

from typing import Any

import assignframe_codec as codec
import pytest
from assignframe_codec import consumer, fastpath
from assignframe_codec.flexible_models import FlexibleFormat
from assignframe_codec.primitives import (
    Int,
    KafkaArray,
    KafkaBool,
    KafkaBytes,
    KafkaString,
    KafkaTaggedFields,
    KafkaUuid,
    Since,
)
from assignframe_codec.registry import CODECS, MessageCodec, declaration
from construct import Renamed
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

PROFILE = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


def _versions(kind: str) -> list[int]:
    codec_ = CODECS[kind]
    if isinstance(codec_, MessageCodec):
        return list(range(codec_.lowest, codec_.highest + 1))
    return {"StickyAssignorUserData": [0, 1], "CooperativeStickyAssignorUserData": [0]}.get(
        kind, [0, 1, 2, 3])


# KIP-848 kinds (generated models, nested and tagged structs) have test_kip848_properties.py.
KIND_VERSIONS = [(kind, version) for kind in codec.KINDS for version in _versions(kind)
                 if not isinstance(getattr(CODECS[kind], "fmt", None), FlexibleFormat)]


def _nullable(strategy, nullable_from, version):
    present = nullable_from is not None and version >= nullable_from
    return st.one_of(st.none(), strategy) if present else strategy


def _leaf(subcon, version: int, flexible: bool):
    if isinstance(subcon, Int):
        bits = 8 * subcon.length
        return st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    if isinstance(subcon, KafkaBool):
        return st.booleans()
    if isinstance(subcon, KafkaUuid):
        return st.binary(min_size=16, max_size=16)
    if isinstance(subcon, KafkaString):
        return _nullable(TEXT, subcon.nullable_from, version)
    if isinstance(subcon, KafkaBytes):
        return _nullable(st.binary(max_size=24), subcon.nullable_from, version)
    if isinstance(subcon, KafkaTaggedFields):
        if not flexible:
            return st.just(())
        tags = st.dictionaries(st.integers(0, 300), st.binary(max_size=6), max_size=3)
        return tags.map(lambda found: tuple(sorted(found.items())))
    if isinstance(subcon, KafkaArray):
        return st.lists(_leaf(subcon.subcon, version, flexible), max_size=4).map(tuple)
    return struct_values(subcon, version, flexible)


def struct_values(struct, version: int, flexible: bool):
    """Dicts (model field names) holding every field present at ``version``."""
    members = {}
    for subcon in struct.subcons:
        if not isinstance(subcon, Renamed):
            continue
        inner = subcon.subcon
        if isinstance(inner, Since):
            if not inner.present(version):
                continue
            inner = inner.subcon
        name = "unknown_tagged_fields" if subcon.name == "tagged_fields" else subcon.name
        members[name] = _leaf(inner, version, flexible)
    return st.fixed_dictionaries(members)


def values_for(kind: str, version: int):
    fmt, params, _ = declaration(kind, version)
    return struct_values(fmt.struct, params["version"], params["flexible"])


def plain(value: Any) -> Any:
    """Tuples as lists and empty tagged-field sections dropped, like ``to_dict``."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()
                if not (key == "unknown_tagged_fields" and not item)}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


@pytest.mark.parametrize("kind,version", KIND_VERSIONS)
@PROFILE
@given(data=st.data())
def test_round_trip(kind, version, data):
    value = data.draw(values_for(kind, version))
    encoded = codec.encode(kind, value, version)
    decoded = codec.decode(kind, encoded, version)
    assert plain(decoded.to_dict()) == plain(value)
    assert codec.encode(kind, decoded, version) == encoded
    fmt, params, start = declaration(kind, version)
    assert fmt.struct.parse(encoded[start:], **params) == fmt.compiled.parse(encoded[start:],
                                                                            **params)


@PROFILE
@given(
    topics=st.lists(TEXT, max_size=6),
    owned=st.lists(st.tuples(TEXT, st.integers(0, 2**31 - 1)), max_size=8),
    generation=st.integers(-5, 2**31 - 1),
    rack=st.one_of(st.none(), TEXT),
    user_data=st.one_of(st.none(), st.binary(max_size=8)),
)
def test_subscription_keeps_javas_content(topics, owned, generation, rack, user_data):
    decoded = codec.decode_subscription(codec.encode_subscription(
        topics, user_data=user_data, owned_partitions=owned, generation_id=generation,
        rack_id=rack))
    assert decoded.topics == tuple(sorted(topics, key=codec.java_string_key))
    flat = [(g.topic, p) for g in decoded.owned_partitions for p in g.partitions]
    assert flat == sorted(owned, key=lambda pair: (codec.java_string_key(pair[0]), pair[1]))
    assert decoded.generation_id == (generation if generation >= 0 else -1)
    assert decoded.rack_id == (rack or None)
    assert decoded.user_data == user_data


@PROFILE
@given(pairs=st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 9)), max_size=12))
def test_assignment_groups_by_first_appearance(pairs):
    decoded = codec.decode_assignment(codec.encode_assignment(pairs))
    assert [group.topic for group in decoded.assigned_partitions] == list(dict.fromkeys(
        topic for topic, _ in pairs))
    for group in decoded.assigned_partitions:
        assert list(group.partitions) == [p for t, p in pairs if t == group.topic]


@PROFILE
@given(pairs=st.lists(st.tuples(TEXT, st.integers(0, 99)), max_size=8),
       generation=st.one_of(st.none(), st.integers(-(2**31), 2**31 - 1)))
def test_sticky_user_data_round_trip(pairs, generation):
    decoded = codec.decode_sticky_user_data(codec.encode_sticky_user_data(pairs, generation))
    assert decoded.generation == generation
    assert decoded.layout == ("V0" if generation is None else "V1")
    regrouped = codec.encode_sticky_user_data(decoded.previous_assignment, generation)
    assert regrouped == codec.encode_sticky_user_data(pairs, generation)


# --------------------------------------------------------------------------- hostile bytes
def _every_decoder(data: bytes):
    for kind, version in KIND_VERSIONS:
        prefixed = kind.startswith("ConsumerProtocol")
        yield lambda kind=kind, version=version, prefixed=prefixed: codec.decode(
            kind, data, None if prefixed else version)
    yield lambda: codec.decode_frame(data)
    yield lambda: codec.decode_frame(data, "JoinGroupResponse", 9)
    yield lambda: codec.decode_record("GroupMetadataValue", data)
    yield lambda: codec.decode_cooperative_user_data(data)
    yield lambda: codec.decode_request_header(data, 0)
    yield lambda: codec.decode_response_header(data, 3, 12, 0)
    yield lambda: codec.peek_request_head(data)
    yield lambda: codec.peek_response_head(data)
    yield lambda: codec.version_prefix(data)


def _only_codec_errors(data: bytes) -> None:
    for decoder in _every_decoder(data):
        try:
            decoder()
        except codec.CodecError as error:
            assert not error.reason.startswith("internal error"), error


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=64))
def test_random_bytes_raise_only_codec_errors(data):
    _only_codec_errors(data)


def _fast_or_none(decoder, data):
    try:
        return decoder(data)
    except fastpath.NotFast:  # its one refusal: the caller runs the declaration
        return None


@settings(max_examples=300, deadline=None)
@given(valid=st.sampled_from([
    consumer.encode_subscription(["a", "bb"], user_data=b"u", owned_partitions=[("a", 1)],
                                 generation_id=3, rack_id="r"),
    consumer.encode_assignment([("a", 1), ("b", 2)], user_data=b"x"),
]), cut=st.integers(0, 60), flips=st.lists(st.tuples(st.integers(0, 60), st.integers(0, 255)),
                                            max_size=3))
def test_fast_path_agrees_with_the_declaration(valid, cut, flips):
    data = bytearray(valid[:cut] if cut < len(valid) else valid)
    for position, byte in flips:
        if position < len(data):
            data[position] = byte
    data = bytes(data)
    for fast, fmt, what in ((consumer.decode_subscription_fast, consumer.SUBSCRIPTION_FORMAT,
                             "subscription"),
                            (consumer.decode_assignment_fast, consumer.ASSIGNMENT_FORMAT,
                             "assignment")):
        try:
            slow = consumer.decode_by_declaration(fmt, data, what)
        except codec.CodecError:
            slow = None
        quick = _fast_or_none(fast, data)
        assert quick is None or quick == slow


PAIRS = st.lists(st.tuples(st.sampled_from(["a", "bb", "é", "\U0001f600", "z" * 40]),
                           st.integers(-(2 ** 31), 2 ** 31 - 1)), max_size=12)


@settings(max_examples=200, deadline=None)
@given(topics=st.lists(TEXT, max_size=6), owned=PAIRS,
       user_data=st.one_of(st.none(), st.binary(max_size=20)),
       generation=st.integers(-(2 ** 31), 2 ** 31 - 1), rack=st.one_of(st.none(), TEXT),
       version=st.integers(0, 3))
def test_fast_subscription_encoder_writes_what_the_declaration_writes(
        topics, owned, user_data, generation, rack, version):
    fast = consumer.encode_subscription(topics, user_data=user_data, owned_partitions=owned,
                                        generation_id=generation, rack_id=rack, version=version)
    decoded = consumer.decode_by_declaration(consumer.SUBSCRIPTION_FORMAT, fast, "subscription")
    assert consumer.encode_subscription_value(decoded) == fast


@settings(max_examples=200, deadline=None)
@given(partitions=PAIRS, user_data=st.one_of(st.none(), st.binary(max_size=20)),
       version=st.integers(0, 3))
def test_fast_assignment_encoder_writes_what_the_declaration_writes(partitions, user_data, version):
    fast = consumer.encode_assignment(partitions, user_data=user_data, version=version)
    decoded = consumer.decode_by_declaration(consumer.ASSIGNMENT_FORMAT, fast, "assignment")
    assert consumer.encode_assignment_value(decoded) == fast


def test_fast_encoders_leave_out_of_range_values_to_the_declaration():
    with pytest.raises(codec.CodecError):
        consumer.encode_assignment([("t", 2 ** 31)])
    with pytest.raises(codec.CodecError):
        consumer.encode_subscription(["x" * 40000])


@PROFILE
@given(pairs=st.lists(st.tuples(TEXT, st.integers(0, 99)), max_size=8),
       generation=st.one_of(st.none(), st.integers(0, 2**31 - 1)))
def test_sticky_user_data_accepts_objects_with_topic_and_partition(pairs, generation):
    """Duck-typed like assignframe.TopicPartition (the codec never imports the core)."""
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Partition:
        topic: str
        partition: int

    objects = [Partition(topic, partition) for topic, partition in pairs]
    assert codec.encode_sticky_user_data(objects, generation) == codec.encode_sticky_user_data(
        pairs, generation)
