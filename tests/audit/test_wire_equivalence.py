"""The audit's replays skip codec round trips (``GroupRunner(wire=False)``); these tests hold
that shortcut to what the bytes give: every installed strategy, on fleet groups (eager and
cooperative, faults included) and on a second rebalance after members leave and join, plays
the same rounds either way: leader view, assignment, revocations, bytes and member states."""

from __future__ import annotations

import pytest
from audit_snapshots import fleet_groups

from assignframe.classic import wire as wire_module
from assignframe.model import SubscriptionMetadata
from assignframe.plugins import manager as plugins
from assignframe.rebalance.runner import Consumer, GroupRunner

GROUPS = 60


SNAPSHOTS = fleet_groups(GROUPS, seed=5)
STRATEGIES = plugins.PluginManager().strategy_names()


def _history(snapshot, strategy, wire):
    """Adopt the snapshot, replay it, then rebalance again without its first member and with a
    newcomer subscribed to everything."""
    runner = GroupRunner(strategy, cluster=snapshot.cluster, wire=wire)
    runner.adopt(snapshot.current, max(snapshot.generation, 1))
    consumers = [
        Consumer(m.member_id, m.topics, (strategy,), m.rack, m.group_instance_id)
        for m in snapshot.members.values()
    ]
    everything = tuple(reversed(snapshot.cluster.partitions_per_topic))
    later = [*consumers[1:], Consumer("newcomer", everything, (strategy,))]
    rebalances = [runner.rebalance(consumers, lags=snapshot.lags)]
    rebalances.append(runner.rebalance(later, lags=snapshot.lags))
    return rebalances, runner.states


def _rounds(rebalances):
    for rebalance in rebalances:
        yield from rebalance.rounds


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_wire_false_plays_the_rounds_the_bytes_play(strategy):
    assert len(SNAPSHOTS) > GROUPS // 2
    followups = 0
    for snapshot in SNAPSHOTS:
        through_bytes, states = _history(snapshot, strategy, wire=True)
        direct, direct_states = _history(snapshot, strategy, wire=False)
        where = f"{strategy} on {snapshot.group_id}"
        assert [r.settled for r in direct] == [r.settled for r in through_bytes], where
        for expected, got in zip(_rounds(through_bytes), _rounds(direct), strict=True):
            assert got.group == expected.group, where
            assert got.assignment == expected.assignment, where
            assert got.revoked == expected.revoked, where
            assert dict(got.subscriptions) == dict(expected.subscriptions), where
            assert dict(got.assignment_bytes) == dict(expected.assignment_bytes), where
            followups += got.followup
        assert direct_states == states, where
    if "cooperative" in strategy:
        assert followups, "no cooperative follow-up round was compared"


def test_user_data_the_shortcut_cannot_vouch_for_goes_through_the_codec():
    """A strategy handing out a bytearray: the codec turns it into bytes on the wire, so both
    runner modes must show the leader and the members bytes."""
    from core_strategies import Modulo

    from assignframe import Cluster, hookimpl
    from assignframe.plugins import isolated_plugin_manager

    class Loose(Modulo):
        name = "loose"

        def subscription_user_data(self, topics, state):
            return bytearray(b"\x00\x01")

        def decode_user_data(self, user_data, subscription_version):
            return type(user_data).__name__

    class Plugin:
        @hookimpl
        def register_strategies(self, registry):
            registry.add(Loose)

    pm = isolated_plugin_manager([Plugin()])
    assert not wire_module.reads_back_as_is(bytearray(b"\x00\x01"))
    results = []
    for through_bytes in (True, False):
        runner = GroupRunner("loose", cluster=Cluster({"t": 3}), pm=pm, wire=through_bytes)
        played = runner.rebalance([Consumer("a", ("t",)), Consumer("b", ("t",))])
        results.append(played.final)
    for round_ in results:
        member = round_.group.members["a"]
        assert member.user_data == b"\x00\x01" and type(member.user_data) is bytes
        assert member.decoded_user_data == "bytes"
    assert results[0].group == results[1].group
    assert dict(results[0].subscriptions) == dict(results[1].subscriptions)


def test_member_from_metadata_is_what_the_bytes_decode_to():
    plain = SubscriptionMetadata(("b", "a"), user_data=b"\x01", generation=-7)
    member = wire_module.member_from_metadata("a", plain, None, None)
    decoded = wire_module.decode_subscription(wire_module.encode_subscription_metadata(plain))
    assert member == wire_module.member_from_subscription("a", decoded, None, None)
    assert member.topics == ("a", "b") and member.generation == -1
