"""Invariants of server:uniform on random fresh groups (hypothesis)."""

from __future__ import annotations

from assignframe_server_uniform import UniformAssignor
from hypothesis import given, settings

from assignframe.replay.server import ServerRound, contract_violations
from assignframe.testing.server_groups import server_groups


@settings(max_examples=150, deadline=None)
@given(server_groups())
def test_every_subscribed_partition_goes_to_exactly_one_subscriber(group):
    result = UniformAssignor().assign(group)
    names = {t: topic.name for t, topic in group.topics.items()}
    assert contract_violations(ServerRound(0, "", group, names, {}), result) == ()
    assert UniformAssignor().assign(group) == result  # deterministic
