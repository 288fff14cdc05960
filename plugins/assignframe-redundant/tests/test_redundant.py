"""Redundant partitioning: N distinct owners per partition, evenly spread, N from options."""

from __future__ import annotations

from collections import Counter

import pytest
from assignframe_redundant import RedundantStrategy, decode_replicas, encode_replicas
from hypothesis import given, settings
from hypothesis import strategies as st

from assignframe import (
    Cluster,
    GroupSubscription,
    Member,
    MemberState,
    TopicPartition,
    UserDataError,
)


def _group(topics_of, counts, user_data=None, **options):
    user_data = user_data or {}
    members = {
        m: Member(
            m, ts, user_data=user_data.get(m), decoded_user_data=decode_replicas(user_data.get(m))
        )
        for m, ts in topics_of.items()
    }
    return GroupSubscription(members, Cluster(counts), options=options)


def _owners(group, assignment):
    owners = Counter()
    for member_id in group.members:
        partitions = assignment.partitions_of(member_id)
        assert len(partitions) == len(set(partitions)), "a member got the same partition twice"
        owners.update(partitions)
    return owners


def test_every_partition_has_n_distinct_owners_spread_evenly():
    group = _group({f"indexer-{i}": ("docs",) for i in range(5)}, {"docs": 12}, replicas=3)
    assignment = RedundantStrategy().assign(group)
    assert set(_owners(group, assignment).values()) == {3}
    loads = [len(assignment.partitions_of(m)) for m in group.members]
    assert max(loads) - min(loads) <= 1 and sum(loads) == 36


def test_fewer_subscribers_than_replicas_gives_every_subscriber_everything():
    group = _group({"a": ("t",), "b": ("t",), "c": ("other",)}, {"t": 2, "other": 1}, replicas=3)
    strategy = RedundantStrategy()
    owners = _owners(group, strategy.assign(group))
    assert owners == {
        **{tp: 2 for tp in group.cluster.partitions("t")},
        TopicPartition("other", 0): 1,
    }
    assert strategy.owners_per_partition(group) == 3


def test_without_options_or_user_data_it_is_a_plain_assignor():
    group = _group({"a": ("t",), "b": ("t",)}, {"t": 4})
    assert RedundantStrategy().owners_per_partition(group) == 1
    assert set(_owners(group, RedundantStrategy().assign(group)).values()) == {1}


def test_members_advertise_n_and_the_largest_wins():
    user_data = {"a": encode_replicas(2), "b": encode_replicas(3), "c": None}
    group = _group({m: ("t",) for m in "abcd"}, {"t": 4}, user_data)
    strategy = RedundantStrategy()
    assert strategy.owners_per_partition(group) == 3
    assert set(_owners(group, strategy.assign(group)).values()) == {3}


def test_operator_option_and_advertised_n_combine_by_maximum():
    group = _group({m: ("t",) for m in "abcd"}, {"t": 2}, {"a": encode_replicas(2)}, replicas=4)
    assert RedundantStrategy().owners_per_partition(group) == 4


def test_raw_user_data_is_decoded_when_the_hook_did_not_run():
    members = {m: Member(m, ("t",), user_data=encode_replicas(2)) for m in "abc"}
    group = GroupSubscription(members, Cluster({"t": 3}))
    assert RedundantStrategy().owners_per_partition(group) == 2


def test_a_configured_member_advertises_its_replicas():
    strategy = RedundantStrategy(replicas=2)
    data = strategy.subscription_user_data(("t",), MemberState())
    assert data == bytes.fromhex("000000000002")
    assert strategy.decode_user_data(data, 3) == 2
    assert RedundantStrategy().subscription_user_data(("t",), MemberState()) is None


def test_user_data_format_is_forward_compatible_and_strict():
    assert decode_replicas(None) is None
    assert decode_replicas(bytes.fromhex("000100000005ffff")) == 5  # newer version, extra bytes
    for bad in (
        b"",
        bytes.fromhex("0000"),
        bytes.fromhex("ffff00000002"),
        bytes.fromhex("000000000000"),
    ):
        with pytest.raises(UserDataError):
            decode_replicas(bad)
    with pytest.raises(ValueError):
        encode_replicas(0)


def test_options_from_a_command_line_are_strings():
    group = _group({m: ("t",) for m in "abc"}, {"t": 3}, replicas="2")
    assert set(_owners(group, RedundantStrategy().assign(group)).values()) == {2}


@settings(max_examples=200, deadline=None)
@given(
    replicas=st.integers(1, 5),
    topics_of=st.dictionaries(
        st.sampled_from([f"m{i}" for i in range(6)]),
        st.lists(st.sampled_from(["a", "b", "c"]), max_size=3, unique=True).map(tuple),
        min_size=1,
    ),
    counts=st.fixed_dictionaries({t: st.integers(0, 5) for t in ("a", "b", "c")}),
)
def test_each_partition_goes_to_min_n_subscribers_distinct_members(replicas, topics_of, counts):
    group = _group(topics_of, counts, replicas=replicas)
    owners_by_partition: dict = {}
    assignment = RedundantStrategy().assign(group)
    for member_id, member in group.members.items():
        for tp in assignment.partitions_of(member_id):
            assert tp.topic in member.topics
            owners_by_partition.setdefault(tp, set()).add(member_id)
    expected = {}
    for topic in counts:
        subscribers = sum(topic in ts for ts in topics_of.values())
        if subscribers:
            expected |= {tp: min(replicas, subscribers) for tp in group.cluster.partitions(topic)}
    assert {tp: len(owners) for tp, owners in owners_by_partition.items()} == expected
