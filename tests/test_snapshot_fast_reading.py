"""The snapshot reader's fast paths give what the general reading gives: JSON partition pairs
and lags built in C-level passes, a member copied from an earlier one with the same subscription
bytes, who a member is, and the wire's per-topic groups made TopicPartitions in C."""

from __future__ import annotations

import json

import assignframe_codec as codec
import pytest
from audit_snapshots import snapshot_row

from assignframe.classic import wire
from assignframe.model import MemberAssignment, TopicPartition, partitions_of_topic
from assignframe.snapshot import MalformedSnapshot, MemberInfo, read_snapshot
from assignframe.snapshot.jsonform import _member_info, snapshot_to_dict
from assignframe.snapshot.schema import (
    MEMBER_TYPES,
    _partition,
    int_or,
    lags_from_lists,
    partition_list,
    text_or_none,
)

PAIRS = [
    [],
    [["t", 0], ["t", 1], ["u", 7]],
    [["t", 0], ["t", True]],  # a bool: int() makes it 1
    [["t", 2.0]],
    [["t", "3"]],
    [[5, 1]],  # a topic that is not text: str() makes it one
    [("t", 4)],  # not JSON, but a pair all the same
    [{"topic": "t", "partition": 2}],  # Parquet
    [["t", 0], ["t"]],
    [["t", 0, 1]],
    [["t", None]],
    [["t", "x"]],
    [7],
    ["ab"],
    [None],
    [["t", 0], {"topic": "t"}],
]


def _general_partitions(pairs):
    try:
        return tuple(_partition(p) for p in pairs)
    except (TypeError, ValueError, KeyError, IndexError):
        return "bad partition list"


@pytest.mark.parametrize("pairs", PAIRS)
def test_partition_pairs_read_as_the_general_reading_reads_them(pairs):
    try:
        read = partition_list("here", pairs)
    except MalformedSnapshot as exc:
        assert str(exc) == "here: bad partition list"
        read = "bad partition list"
    expected = _general_partitions(pairs)
    assert read == expected
    if isinstance(read, tuple):
        assert [type(tp) for tp in read] == [TopicPartition] * len(read)
        assert [(type(tp.topic), type(tp.partition)) for tp in read] == [
            (type(tp.topic), type(tp.partition)) for tp in expected
        ]


LAGS = [
    {},
    {"t": [5, 0, 1], "u": []},
    {"t": [None, 3, None], "u": [2]},
    {"t": [1, True]},  # int() makes True 1
    {"t": [1.0, 2]},
    {"t": ["4"]},
    {"t": (1, 2)},  # not JSON: the general reading takes any iterable
    {"t": [1, "x"]},
    {"t": [1, [2]]},
    {"t": 5},
    {"t": [1], "u": [None, "y"]},
]


def _general_lags(value):
    try:
        return {
            TopicPartition(t, p): int(lag)
            for t, lags in value.items()
            for p, lag in enumerate(lags)
            if lag is not None
        }
    except (TypeError, ValueError):
        return "partition_lags holds a non-integer lag"


@pytest.mark.parametrize("value", LAGS)
def test_lags_read_as_the_general_reading_reads_them(value):
    try:
        read = lags_from_lists(value)
    except MalformedSnapshot as exc:
        read = str(exc)
    expected = _general_lags(value)
    assert read == expected
    if isinstance(read, dict):
        assert list(read.items()) == list(expected.items())  # the same order
        assert [type(k) for k in read] == [TopicPartition] * len(read)
        assert [type(v) for v in read.values()] == [type(v) for v in expected.values()]


MEMBERS = [
    {},
    {"client_id": "", "client_host": None, "protocols": [], "member_type": "x"},
    {"client_id": "app", "protocols": ["range", 3, "sticky"]},
    {"protocols": ["range"]},
    {"protocols": "range"},
    {"member_epoch": 0},
    {"member_epoch": True, "member_type": "consumer"},
    {"member_type": ["classic"]},
    {"client_host": "/10.0.0.1", "client_software": "librdkafka 2.6.1"},
]


@pytest.mark.parametrize("raw", MEMBERS)
def test_who_a_member_is_reads_as_its_fields_say(raw):
    protocols = raw.get("protocols")
    member_type = raw.get("member_type")
    expected = MemberInfo(
        client_id=text_or_none(raw.get("client_id")),
        client_host=text_or_none(raw.get("client_host")),
        client_software=text_or_none(raw.get("client_software")),
        protocols=tuple(p for p in protocols if isinstance(p, str))
        if isinstance(protocols, list) else (),
        member_type=member_type if member_type in MEMBER_TYPES else None,
        member_epoch=int_or(raw.get("member_epoch"), None),
    )
    read = _member_info(raw)
    assert (read is None) == (expected == MemberInfo())
    assert (read or MemberInfo()) == expected
    assert type((read or MemberInfo()).protocols) is tuple


def test_members_with_the_same_subscription_bytes_keep_their_own_ids():
    subscription = codec.encode_subscription(["t"], owned_partitions=[("t", 1)], rack_id="r1",
                                             generation_id=3).hex()
    members = [
        {"member_id": member_id, "group_instance_id": instance, "subscription": {"hex": hex_},
         "assignment": {"hex": codec.encode_assignment([("t", n)]).hex()}}
        for n, (member_id, instance, hex_) in enumerate([
            ("a", None, subscription), ("b", "host-b", subscription),
            ("c", None, codec.encode_subscription(["t"]).hex()), ("d", "host-d", subscription),
        ])
    ]
    line = json.dumps(snapshot_row(members=members))
    for _ in range(2):  # the second time, every subscription is one read before
        snapshot = read_snapshot(line)
        for raw in members:
            member = snapshot.members[raw["member_id"]]
            decoded = wire.decode_subscription(bytes.fromhex(raw["subscription"]["hex"]))
            assert member == wire.member_from_subscription(
                raw["member_id"], decoded, raw["group_instance_id"], None)
            assert list(vars(member)) == list(vars(snapshot.members["a"]))  # fields in order


def test_a_snapshot_reads_back_equal_when_read_twice_and_from_its_own_json():
    from audit_snapshots import fleet_groups

    for snapshot in fleet_groups(60, seed=5):
        line = json.dumps(snapshot_to_dict(snapshot))
        first, again = read_snapshot(line), read_snapshot(line)
        assert first == snapshot and again == snapshot
        assert first.wire == snapshot.wire


def test_partitions_of_a_topic_are_the_named_tuples_the_class_makes():
    made = tuple(partitions_of_topic("t", (3, 0, 2)))
    assert made == (TopicPartition("t", 3), TopicPartition("t", 0), TopicPartition("t", 2))
    assert [type(tp) for tp in made] == [TopicPartition] * 3 and made[0].topic == "t"
    assert tuple(partitions_of_topic("t", ())) == ()


def test_the_wire_groups_flatten_in_the_bytes_order():
    data = codec.encode_assignment([("u", 5), ("t", 2), ("t", 0), ("u", 1)])
    decoded = codec.decode_assignment(data)
    expected = tuple(TopicPartition(g.topic, p) for g in decoded.assigned_partitions
                     for p in g.partitions)
    assert wire.decode_member_assignment(data) == MemberAssignment(expected)
    assert wire.flatten_partitions(decoded.assigned_partitions) == expected
