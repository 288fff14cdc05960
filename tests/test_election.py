"""Protocol election (the coordinator's) and each member's rebalance protocol (the client's)."""

from __future__ import annotations

import pytest

from assignframe.errors import InconsistentGroupProtocolError
from assignframe.javaorder import java_hash_order
from assignframe.model import RebalanceProtocol
from assignframe.protocol import elect_group_protocol, member_rebalance_protocol

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
