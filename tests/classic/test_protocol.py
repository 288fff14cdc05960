"""The group protocol's rules (assignframe.classic.protocol): election (the coordinator's), each
member's rebalance protocol and what it keeps at join (the client's), the cooperative hand-over (the
leader's), and how the leader reads a member's user data."""

from __future__ import annotations

import logging

import pytest

from assignframe.classic import wire
from assignframe.classic.protocol import (
    UserDataReader,
    claimed_state,
    elect_group_protocol,
    handed_over_while_owned,
    leader_member,
    member_rebalance_protocol,
    partitions_kept_at_join,
    revoked_at_sync,
    state_at_join,
)
from assignframe.errors import InconsistentGroupProtocolError, UserDataError
from assignframe.javaorder import java_hash_order
from assignframe.model import MemberState, RebalanceProtocol, SubscriptionMetadata, TopicPartition

EAGER, COOPERATIVE = RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE


def test_single_strategy_wins():
    assert elect_group_protocol({"a": ["range"], "b": ["range"]}) == "range"


def test_only_strategies_every_member_offers_are_candidates():
    offers = {"a": ["sticky", "range"], "b": ["sticky", "range"], "c": ["range"]}
    assert elect_group_protocol(offers) == "range"


def test_most_votes_wins():
    offers = {
        "a": ["roundrobin", "range"],
        "b": ["range", "roundrobin"],
        "c": ["roundrobin", "range"],
    }
    assert elect_group_protocol(offers) == "roundrobin"


def test_tie_goes_to_java_hashmap_iteration_order():
    offers = {"a": ["range", "roundrobin"], "b": ["roundrobin", "range"]}
    expected = java_hash_order(["range", "roundrobin"])[0]
    assert elect_group_protocol(offers) == expected
    assert elect_group_protocol(dict(reversed(list(offers.items())))) == expected


def test_no_common_strategy_names_each_offer():
    with pytest.raises(
        InconsistentGroupProtocolError, match="'a' offers \\['range'\\]; 'b' offers \\['sticky'\\]"
    ):
        elect_group_protocol({"a": ["range"], "b": ["sticky"]})


def test_empty_group_cannot_elect():
    with pytest.raises(InconsistentGroupProtocolError):
        elect_group_protocol({})


def test_member_protocol_is_highest_common():
    assert member_rebalance_protocol([(EAGER, COOPERATIVE)]) is COOPERATIVE
    # [cooperative-sticky, range] is EAGER: the first bounce of a KIP-429 upgrade.
    assert member_rebalance_protocol([(EAGER, COOPERATIVE), (EAGER,)]) is EAGER
    assert member_rebalance_protocol([(COOPERATIVE,), (EAGER, COOPERATIVE)]) is COOPERATIVE


def test_member_protocol_without_common_protocol():
    with pytest.raises(InconsistentGroupProtocolError, match="member 'm1'"):
        member_rebalance_protocol([(EAGER,), (COOPERATIVE,)], "m1")


def test_member_protocol_error_names_each_strategy():
    with pytest.raises(
        InconsistentGroupProtocolError,
        match=r"member 'm1': .*: range \['eager'\], coop \['cooperative'\]",
    ):
        member_rebalance_protocol([(EAGER,), (COOPERATIVE,)], "m1", ("range", "coop"))


def test_same_preference_lists_elect_their_first_name():
    offers = {"a": ["roundrobin", "range"], "b": ["roundrobin", "range"]}
    assert elect_group_protocol(offers) == "roundrobin"
    with pytest.raises(InconsistentGroupProtocolError):
        elect_group_protocol({"a": [], "b": []})


# -- what a member keeps when it joins ---------------------------------------------------------


def tp(topic: str, partition: int) -> TopicPartition:
    return TopicPartition(topic, partition)


OWNED = MemberState((tp("t", 0), tp("u", 1)), generation=3, strategy_state="mine")


def test_eager_members_give_up_everything_at_join():
    assert partitions_kept_at_join(OWNED, ("t", "u"), EAGER) == ()
    assert state_at_join(OWNED, ("t", "u"), EAGER) == MemberState((), 3, "mine")


def test_cooperative_members_keep_all_but_dropped_topics():
    assert partitions_kept_at_join(OWNED, ("t", "u"), COOPERATIVE) == OWNED.owned_partitions
    assert state_at_join(OWNED, ("t", "u"), COOPERATIVE) is OWNED
    assert state_at_join(OWNED, ("t",), COOPERATIVE) == MemberState((tp("t", 0),), 3, "mine")


def test_a_member_without_a_generation_owns_nothing():
    fresh = MemberState((tp("t", 0),), generation=-1)
    assert partitions_kept_at_join(fresh, ("t",), COOPERATIVE) == ()


def test_recorded_subscription_is_the_members_state():
    claimed = SubscriptionMetadata(("t",), None, (tp("t", 2), tp("t", 0)), generation=7, rack=None)
    state = claimed_state(
        MemberState(strategy_state="kept"), wire.encode_subscription_metadata(claimed)
    )
    assert state == MemberState((tp("t", 0), tp("t", 2)), 7, "kept")  # in the bytes' order


def test_only_cooperative_members_revoke_at_sync():
    owned = (tp("t", 0), tp("t", 1))
    assert revoked_at_sync(COOPERATIVE, owned, [tp("t", 1), tp("t", 2)]) == (tp("t", 0),)
    assert revoked_at_sync(COOPERATIVE, owned, owned) == ()
    assert revoked_at_sync(EAGER, owned, []) == ()


# -- the cooperative hand-over -----------------------------------------------------------------

A0, A1 = tp("t", 0), tp("t", 1)


@pytest.mark.parametrize(
    ("owned", "assigned", "moving"),
    [
        ({"a": [A0]}, {"a": [A0], "b": []}, ()),  # kept
        ({"a": [A0]}, {"a": [], "b": []}, ()),  # released, given to nobody yet
        ({"a": [A0]}, {"a": [], "b": [A0]}, (A0,)),  # moved in one round
        ({"a": [A0]}, {"a": [A0], "b": [A0]}, ()),  # a copy: the owner revokes nothing
        ({"a": [A0], "b": [A0]}, {"a": [A0], "b": []}, ()),  # two claims, one kept
        ({"a": [A0], "b": [A0]}, {"a": [], "b": [], "c": [A0]}, (A0,)),  # both claimants lose it
        ({"a": [A1, A0]}, {"a": [], "b": [A1, A0]}, (A0, A1)),  # sorted
        ({}, {"a": [A0]}, ()),  # nobody owned anything
    ],
)
def test_javas_hand_over_rule(owned, assigned, moving):
    assert handed_over_while_owned(owned, assigned) == moving


# -- reading user data -------------------------------------------------------------------------


class _Picky:
    name = "picky"


class _Plugins:
    """The one plugin-manager method a reader calls, answering like a strategy that reads only
    bytes starting with b"ok" (and None)."""

    def decode_user_data(self, strategy, member_id, user_data, subscription_version):
        if user_data is None:
            return "nothing"
        if not user_data.startswith(b"ok"):
            raise UserDataError(f"member {member_id!r}: not picky user data")
        return user_data.decode()


def test_unreadable_user_data_counts_as_none_and_warns_once_per_member(caplog):
    caplog.set_level(logging.WARNING, logger="assignframe.classic.protocol")
    read = UserDataReader(_Plugins(), _Picky(), "scenario 's1'")
    assert read("m1", b"ok then", 3) == (b"ok then", "ok then")
    assert read("m1", b"\x00\x01", 3) == (None, "nothing")
    assert read("m1", b"\x00\x02", 3) == (None, "nothing")
    assert read("m2", b"\x00", 3) == (None, "nothing")
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == [
        "scenario 's1': member 'm1' has user data strategy 'picky' cannot read; it counts as "
        "having no prior ownership for 'picky'",
        "scenario 's1': member 'm2' has user data strategy 'picky' cannot read; it counts as "
        "having no prior ownership for 'picky'",
    ]


def test_leader_reads_a_member_from_its_bytes():
    sent = SubscriptionMetadata(("u", "t"), b"\x00", (A1,), generation=2, rack="r1")
    member = leader_member(
        "m",
        wire.encode_subscription_metadata(sent),
        "static-m",
        UserDataReader(_Plugins(), _Picky(), None),
    )
    assert (member.topics, member.owned_partitions, member.generation) == (("t", "u"), (A1,), 2)
    assert (member.rack, member.group_instance_id, member.subscription_version) == (
        "r1",
        "static-m",
        3,
    )
    assert member.user_data is None and member.decoded_user_data == "nothing"


@pytest.mark.parametrize(
    "topics",
    [("b", "a", "c"), ("z", "\ufffd", "\U0001f600", "é", "a")],  # ASCII; UTF-16 order differs
)
def test_the_leader_view_without_bytes_sorts_as_the_codec_decodes(topics):
    owned = tuple(TopicPartition(t, p) for t in reversed(topics) for p in (2, 0, 1))
    metadata = SubscriptionMetadata(topics, None, owned, 4, "r")
    decoded = wire.decode_subscription(wire.encode_subscription_metadata(metadata))
    from_bytes = wire.member_from_subscription("m", decoded, None, None)
    assert wire.member_from_metadata("m", metadata, None, None) == from_bytes
