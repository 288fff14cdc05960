"""The server-assignor plugins against every target Apache Kafka 4.1 computed in the shipped
consumer-protocol capture (``kafka41_consumer_protocol.pcap``), epoch by epoch.

For each group (``uniform``, ``range``) and each group epoch whose target the capture shows (a
ConsumerGroupDescribe answer of that epoch, else every member's full assignment in its heartbeat
responses), one round: the members at that epoch with their subscriptions, the broker's previous
target as ``current`` (what the coordinator hands its assignor), the broker's target as Java's
``result``. ``server:uniform`` / ``server:range`` must give every one of them, fed the broker's
previous targets and, chained, their own previous results alone. Needs the server-assignor
distributions installed (tox env ``tools``); the decoding itself is checked in
``tests/decode/kip848/test_kafka41_capture.py``.
"""

from __future__ import annotations

import pytest
from kafka41_capture import broker_target, epochs, expected, expected_group, timeline

from assignframe.plugins import get_plugin_manager
from assignframe.replay.server import replay_server_scenario

GROUPS = [g["group_id"] for g in expected()["groups"]]


def scenario(group_id: str) -> dict:
    group, wanted = timeline(group_id), expected_group(group_id)
    name = {m.member_id: m.client_id for m in group.members.values()}
    rounds, previous = [], {}
    for epoch in epochs(group).values():
        target = broker_target(epoch)
        if not epoch.members or target is None:
            continue  # the group emptied, or no heartbeat or describe showed this epoch
        members = {
            member: {"instance_id": None, "rack": None, "topics": topics,
                     "current": sorted(map(list, previous.get(member, ())))}
            for member, topics in epoch.members.items()
        }  # fmt: skip
        joined = sorted(name[m] for m in epoch.members)
        rounds.append({"round": len(rounds), "event": f"epoch {epoch.epoch}: {joined}",
                       "members": members,
                       "result": {m: sorted(map(list, t)) for m, t in target.items()}})
        previous = target
    return {
        "id": f"kafka41-capture-{wanted['assignor']}",
        "assignor": wanted["assignor"],
        "group_type": "consumer",
        "topics": expected()["topics"],
        "rounds": rounds,
    }


@pytest.mark.parametrize("group_id", GROUPS)
@pytest.mark.parametrize("chain", [False, True])
def test_server_assignor_gives_every_target_the_broker_computed(group_id, chain):
    recorded = scenario(group_id)
    # the five steps the recorder waited on are all described; the group's last members'
    # epochs count too when a heartbeat showed them
    assert len(recorded["rounds"]) >= len(expected_group(group_id)["steps"])
    plugin = get_plugin_manager().server_assignor(f"server:{recorded['assignor']}")
    replay = replay_server_scenario(recorded, plugin, chain=chain)
    assert len(replay.rounds) == len(recorded["rounds"])
    wrong = {r.round.event: (r.result, r.round.java["result"]) for r in replay.rounds
             if r.matches_java is not True}
    assert not wrong, f"{plugin.qualified_name()} (chain={chain}) != Kafka 4.1: {wrong}"
