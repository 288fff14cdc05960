"""Invariants of server:simple on random fresh share groups (hypothesis)."""

from __future__ import annotations

from assignframe_server_simple import SimpleAssignor
from hypothesis import given, settings

from assignframe.replay.server import ServerRound, contract_violations
from assignframe.testing.server_groups import server_groups


@settings(max_examples=150, deadline=None)
@given(server_groups(group_type="share"))
def test_every_partition_has_an_owner_and_only_subscribers_hold_it(group):
    result = SimpleAssignor().assign(group)
    names = {t: topic.name for t, topic in group.topics.items()}
    assert contract_violations(ServerRound(0, "", group, names, {}), result) == ()
    counts = [len(result.partitions_of(m)) for m in group.members]
    if group.subscription_type == "homogeneous":
        assert max(counts) - min(counts) <= 1
