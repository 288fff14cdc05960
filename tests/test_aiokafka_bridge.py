"""What the consumer bridge sends after its member lost its membership (the aiokafka adapter calls
``ConsumerBridge.lose()`` when aiokafka reset its generation): it claims nothing, in no
generation (KIP-792), while a member that kept its membership claims what it owns."""

from __future__ import annotations

from assignframe.classic import wire
from assignframe.model import MemberAssignment, RebalanceProtocol, TopicPartition
from assignframe.rebalance.bridge import ConsumerBridge

OWNED = (TopicPartition("t", 0), TopicPartition("t", 2))


def joined_bridge(spm) -> ConsumerBridge:
    bridge = ConsumerBridge(spm.strategy("cooperative-balance"), spm, RebalanceProtocol.COOPERATIVE)
    bridge.on_assignment(wire.encode_member_assignment(MemberAssignment(OWNED)), 5)
    return bridge


def test_a_member_in_the_group_claims_what_it_owns_in_its_generation(spm):
    sent = wire.decode_subscription(joined_bridge(spm).subscription(["t"]))
    assert wire.flatten_partitions(sent.owned_partitions) == OWNED
    assert sent.generation_id == 5


def test_a_member_that_lost_its_membership_claims_nothing_in_no_generation(spm):
    bridge = joined_bridge(spm)
    kept_strategy_state = bridge.state.strategy_state
    bridge.lose()
    sent = wire.decode_subscription(bridge.subscription(["t"]))
    assert wire.flatten_partitions(sent.owned_partitions) == ()
    assert sent.generation_id == -1
    assert bridge.state.strategy_state == kept_strategy_state  # as Java's assignors keep theirs
