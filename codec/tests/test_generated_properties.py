"""Property tests of the kinds whose models are generated from their declarations (the KIP-848
APIs and records, and the cluster reader's APIs of admin.py): round trips per kind and version
(flexible or not), stored records, hostile bytes, and no allocation before the bytes exist.

Values are generated from the construct declarations (field widths, nullability, version
windows, known tagged fields and their defaults), plus random unknown tagged fields, so a field
added to a declaration is exercised without touching this file.
"""

from __future__ import annotations

import base64
import tracemalloc
from typing import Any

import assignframe_codec as codec
import pytest
from assignframe_codec import admin, kip848, tables
from assignframe_codec.coordinator_records import (
    RECORD_TYPES,
    decode_coordinator_record,
    encode_coordinator_record,
)
from assignframe_codec.flexible import NullableStruct, TaggedSection, Uuid
from assignframe_codec.primitives import (
    KafkaArray,
    KafkaBool,
    KafkaBytes,
    KafkaString,
    KafkaTaggedFields,
    Since,
)
from assignframe_codec.registry import CODECS, declaration
from construct import FormatField, Renamed, Struct
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

PROFILE = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=10)
UUIDS = st.binary(min_size=16, max_size=16).map(
    lambda raw: base64.urlsafe_b64encode(raw).rstrip(b"=").decode())

DECLARATIONS = {**kip848.DECLARATIONS, **admin.DECLARATIONS}
API_VERSIONS = [(kind, version) for kind, (_, lowest, highest) in DECLARATIONS.items()
                for version in range(lowest, highest + 1)]
RECORD_VERSIONS = [(record_type, version) for record_type, record in RECORD_TYPES.items()
                   for version in range(record.highest_value_version + 1)]


def _nullable(strategy, nullable_from, version):
    present = nullable_from is not None and version >= nullable_from
    return st.one_of(st.none(), strategy) if present else strategy


def _integer(subcon: FormatField):
    bits = 8 * subcon.length
    if subcon.fmtstr[-1].isupper():
        return st.integers(0, 2 ** bits - 1)
    return st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


def _leaf(subcon, version: int, flexible: bool, depth: int):
    if isinstance(subcon, FormatField):
        return _integer(subcon)
    if subcon is Uuid:
        return UUIDS
    if isinstance(subcon, KafkaBool):
        return st.booleans()
    if isinstance(subcon, KafkaString):
        return _nullable(TEXT, subcon.nullable_from, version)
    if isinstance(subcon, KafkaBytes):
        return _nullable(st.binary(max_size=12), subcon.nullable_from, version)
    if isinstance(subcon, KafkaArray):
        items = st.lists(_leaf(subcon.subcon, version, flexible, depth + 1),
                         max_size=3 if depth < 3 else 0)
        return _nullable(items, subcon.nullable_from, version)
    if isinstance(subcon, NullableStruct):
        return st.one_of(st.none(), _leaf(subcon.subcon, version, flexible, depth + 1))
    assert isinstance(subcon, Struct), subcon
    return struct_values(subcon, version, flexible, depth + 1)


def _unknown_tags(known: set[int], flexible: bool):
    if not flexible:
        return st.just([])
    tags = st.dictionaries(st.integers(0, 300).filter(lambda tag: tag not in known),
                           st.binary(max_size=5), max_size=2)
    return tags.map(lambda found: sorted(found.items()))


def struct_values(struct: Struct, version: int, flexible: bool, depth: int = 0):
    """Dicts in ``to_dict`` shape holding every field present at ``version``."""
    members: dict[str, Any] = {}
    for subcon in struct.subcons:
        if not isinstance(subcon, Renamed):
            continue
        inner = subcon.subcon
        if isinstance(inner, TaggedSection):
            for item in inner.tags:
                if version >= item.first:
                    members[item.name] = _leaf(item.subcon, version, flexible, depth)
            members["unknown_tagged_fields"] = _unknown_tags({t.tag for t in inner.tags},
                                                             flexible)
            continue
        if isinstance(inner, KafkaTaggedFields):
            members["unknown_tagged_fields"] = _unknown_tags(set(), flexible)
            continue
        if isinstance(inner, Since):
            if not inner.present(version):
                continue
            inner = inner.subcon
        members[subcon.name] = _leaf(inner, version, flexible, depth)
    return st.fixed_dictionaries(members)


def plain(value: Any) -> Any:
    """Tuples as lists and empty unknown tagged fields dropped, like ``to_dict``."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()
                if not (key == "unknown_tagged_fields" and not item)}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


@pytest.mark.parametrize("kind,version", API_VERSIONS)
@PROFILE
@given(data=st.data())
def test_api_round_trip(kind, version, data):
    fmt, params, _ = declaration(kind, version)
    value = data.draw(struct_values(fmt.struct, version, params["flexible"]))
    encoded = codec.encode(kind, value, version)
    decoded = codec.decode(kind, encoded, version)
    assert plain(decoded.to_dict()) == plain(value)
    assert codec.encode(kind, decoded, version) == encoded
    assert fmt.struct.parse(encoded, **params) == fmt.compiled.parse(encoded, **params)
    assert fmt.compiled.build(fmt.struct.parse(encoded, **params), **params) == encoded


@pytest.mark.parametrize("record_type,version", RECORD_VERSIONS)
@PROFILE
@given(data=st.data())
def test_record_round_trip(record_type, version, data):
    record = RECORD_TYPES[record_type]
    key = data.draw(struct_values(record.key.struct, 0, False))
    value = data.draw(st.one_of(st.none(), struct_values(
        record.value.struct, version, record.is_flexible(version))))
    key_bytes, value_bytes = encode_coordinator_record(record_type, key, value, version)
    decoded = decode_coordinator_record(key_bytes, value_bytes)
    assert decoded.key_type == record.key_type and decoded.value_type == record.value_type
    assert plain(decoded.key.to_dict()) == plain(key)
    if value is None:
        assert decoded.tombstone and value_bytes is None
    else:
        assert plain(decoded.value.to_dict()) == plain(value)
    again = encode_coordinator_record(record_type, decoded.key, decoded.value,
                                      decoded.value_version)
    assert again == (key_bytes, value_bytes)


# --------------------------------------------------------------------------- hostile bytes
def _decoders(data: bytes):
    for kind, version in API_VERSIONS:
        yield lambda kind=kind, version=version: codec.decode(kind, data, version)
    for record_type in RECORD_TYPES:
        key = record_type.to_bytes(2, "big") + data
        yield lambda key=key: decode_coordinator_record(key, data)
        yield lambda key=key: decode_coordinator_record(key, b"\x00\x00" + data)
    yield lambda: codec.decode_frame(data, "ConsumerGroupHeartbeatResponse", 1)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=64))
def test_random_bytes_raise_only_codec_errors(data):
    for decoder in _decoders(data):
        try:
            decoder()
        except codec.CodecError as error:
            assert not error.reason.startswith("internal error"), error


_HUGE = b"\xff\xff\xff\xff\x07"  # unsigned varint 2^31 - 1: a compact length of 2^31 - 2


@pytest.mark.parametrize("prefix,kind,version", [
    (b"", "ConsumerGroupDescribeRequest", 1),             # group_ids count
    (b"\x01\x01\x00\x00\x00\x00", "ConsumerGroupHeartbeatRequest", 0),  # subscribed names
    (b"\x00\x00\x00\x00", "StreamsGroupDescribeResponse", 1),           # groups count
    (b"\x00\x00\x00\x00", "DescribeGroupsResponse", 5),                 # groups count
    (b"\xff\xff\xff\xff\x00", "ListOffsetsRequest", 6),                # topics count
    (b"\x00\x00", "ApiVersionsResponse", 3),                            # api_keys count
])
def test_huge_declared_lengths_fail_before_allocating(prefix, kind, version):
    tracemalloc.start()
    try:
        with pytest.raises(codec.CodecError) as caught:
            codec.decode(kind, prefix + _HUGE + b"\x00" * 32, version)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(caught.value, (codec.TruncatedError, codec.MalformedError))
    assert caught.value.offset is not None
    assert peak < 512 * 1024, peak


def test_huge_tagged_section_fails_before_allocating():
    tracemalloc.start()
    try:
        with pytest.raises(codec.TruncatedError):
            codec.decode("ConsumerGroupDescribeRequest", b"\x01\x00" + _HUGE, 0)
        with pytest.raises(codec.TruncatedError):  # one unknown tag declaring 2^31 bytes
            codec.decode("ConsumerGroupDescribeRequest", b"\x01\x00\x01\x05" + _HUGE, 0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 512 * 1024, peak


def test_every_generated_api_kind_is_registered_with_its_api_key():
    for kind, (_, lowest, highest) in DECLARATIONS.items():
        family = kind.removesuffix("Request").removesuffix("Response")
        registered = CODECS[kind]
        assert registered.api_key == tables.api_key(family)
        assert (registered.lowest, registered.highest) == (lowest, highest)
        assert registered.flexible_from == tables.APIS[registered.api_key][1]
