"""User data in the layouts Java reads, and what the leader makes of it."""

from __future__ import annotations

import json

import pytest
from assignframe_codec import encode_sticky_user_data
from assignframe_sticky import CooperativeStickyStrategy, StickyStrategy
from assignframe_sticky.userdata import cooperative_claim, sticky_claim

from assignframe import Member, MemberAssignment, MemberState, TopicPartition, UserDataError
from assignframe.testing import shared_path


def _codec_cases(kind: str) -> list[dict]:
    path = shared_path(__file__) / "golden" / "codec.jsonl"
    with path.open(encoding="utf-8") as lines:
        return [c for c in map(json.loads, lines) if c["type"] == kind]


STICKY_AFTER_ASSIGNMENT = [
    c
    for c in _codec_cases("StickyAssignorUserData")
    if c["case"].startswith("subscriptionUserData")
]


def test_sticky_sends_null_before_any_assignment():
    assert StickyStrategy().subscription_user_data(("t",), MemberState()) is None


@pytest.mark.parametrize("case", STICKY_AFTER_ASSIGNMENT, ids=lambda c: c["case"])
def test_sticky_user_data_is_byte_for_byte_javas(case):
    value = case["value"]
    partitions = [
        TopicPartition(g["topic"], p) for g in value["previous_assignment"] for p in g["partitions"]
    ]
    strategy = StickyStrategy()
    state = strategy.on_assignment(MemberAssignment(partitions), value["generation"], MemberState())
    assert strategy.subscription_user_data(("t",), state).hex() == case["hex"]


@pytest.mark.parametrize("case", _codec_cases("StickyAssignorUserData"), ids=lambda c: c["case"])
def test_sticky_reads_v1_and_v0(case):
    user_data = bytes.fromhex(case["hex"]) if case["hex"] else None
    claim = sticky_claim(Member("m", ("t",), user_data=user_data))
    groups = case["value"]["previous_assignment"] if case["value"] else []
    assert [(g.topic, tuple(g.partitions)) for g in claim.groups] == [
        (g["topic"], tuple(g["partitions"])) for g in groups
    ]
    expected = case["value"].get("generation", -1) if case["value"] else -1
    assert claim.generation == expected


def test_sticky_rejects_bytes_it_cannot_read():
    with pytest.raises(UserDataError):
        StickyStrategy().decode_user_data(b"\x00\x00\x00\x05\x01", 3)


def test_cooperative_user_data_is_the_int32_generation():
    strategy = CooperativeStickyStrategy()
    assert strategy.subscription_user_data(("t",), MemberState()) == b"\xff\xff\xff\xff"
    assert strategy.subscription_user_data(("t",), MemberState(generation=7)) == b"\x00\x00\x00\x07"


def test_cooperative_generation_from_user_data_for_v1_subscriptions():
    strategy = CooperativeStickyStrategy()
    user_data = b"\x00\x00\x00\x04"
    member = Member(
        "m",
        ("t",),
        owned_partitions=[("t", 0)],
        subscription_version=1,
        user_data=user_data,
        decoded_user_data=strategy.decode_user_data(user_data, 1),
    )
    claim = cooperative_claim(member)
    assert claim.generation == 4 and list(claim.flat) == [TopicPartition("t", 0)]


def test_cooperative_reads_librdkafka_sticky_layout_for_v0_subscriptions():
    """librdkafka / franz-go send sticky V1 user data as cooperative-sticky user data; a v0
    subscription has no owned partitions, so the user data's assignment is the claim."""
    strategy = CooperativeStickyStrategy()
    user_data = encode_sticky_user_data([("t", 2), ("t", 5)], 9)
    member = Member(
        "m",
        ("t",),
        subscription_version=0,
        user_data=user_data,
        decoded_user_data=strategy.decode_user_data(user_data, 0),
    )
    claim = cooperative_claim(member)
    assert claim.generation == 9
    assert [(g.topic, tuple(g.partitions)) for g in claim.groups] == [("t", (2, 5))]


def test_cooperative_ignores_unreadable_user_data_like_java():
    assert CooperativeStickyStrategy().decode_user_data(b"\x01", 1) is None


# -- kafka-python 3's sticky user data: an int16 version, then Java's V0/V1 layout ------------


def _kafka_python_subscription(topics, owned, generation):
    """The JoinGroup metadata bytes kafka-python's own StickyPartitionAssignor sends after it
    was assigned ``owned`` in ``generation``."""
    from kafka.coordinator.assignors.sticky.sticky_assignor import (
        ConsumerProtocolAssignment,
        StickyPartitionAssignor,
    )

    assignor = StickyPartitionAssignor()
    by_topic: dict[str, list[int]] = {}
    for topic, partition in owned:
        by_topic.setdefault(topic, []).append(partition)
    assignor.on_assignment(ConsumerProtocolAssignment(0, sorted(by_topic.items()), b""), generation)
    return assignor.metadata(list(topics)).encode()


def _member_from_wire(member_id, metadata, strategy):
    from assignframe_codec import decode_subscription

    subscription = decode_subscription(metadata)
    return Member(
        member_id,
        tuple(subscription.topics),
        user_data=subscription.user_data,
        decoded_user_data=strategy.decode_user_data(
            subscription.user_data, subscription.version
        ),
        subscription_version=subscription.version,
    )


def test_sticky_reads_kafka_pythons_version_prefixed_user_data():
    metadata = _kafka_python_subscription(("t", "u"), [("t", 0), ("t", 2), ("u", 1)], 7)
    member = _member_from_wire("kp", metadata, StickyStrategy())
    assert member.user_data[:2] == b"\x00\x01"  # kafka-python's int16 version, Java can't read it
    claim = sticky_claim(member)
    assert claim.generation == 7
    assert [(g.topic, tuple(g.partitions)) for g in claim.groups] == [("t", (0, 2)), ("u", (1,))]


def test_an_assignframe_leader_honours_kafka_python_members_ownership():
    from assignframe import Cluster, GroupSubscription

    strategy = StickyStrategy()
    owned = {
        "kp-1": [("t", p) for p in (0, 1, 2, 3, 4)],
        "kp-2": [("t", p) for p in (5, 6, 7, 8, 9)],
    }
    members = {
        m: _member_from_wire(m, _kafka_python_subscription(("t",), parts, 3), strategy)
        for m, parts in owned.items()
    }
    members["new"] = Member("new", ("t",))
    assignment = strategy.assign(GroupSubscription(members, Cluster({"t": 12}), 4))
    for member_id, parts in owned.items():
        kept = {(tp.topic, tp.partition) for tp in assignment.partitions_of(member_id)}
        assert len(kept) == 4 and kept <= set(parts), member_id  # 12 over 3: each keeps 4
    assert len(assignment.partitions_of("new")) == 4


def test_sticky_still_rejects_prefixed_garbage():
    with pytest.raises(UserDataError, match="kafka-python"):
        StickyStrategy().decode_user_data(b"\x00\x01\x00\x00\x00\x05\x01", 3)
