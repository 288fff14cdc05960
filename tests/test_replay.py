"""Replaying scenarios: the round structure of every golden scenario, and the step mapping."""

from __future__ import annotations

import pytest

from assignframe.errors import ScenarioError
from assignframe.replay import replay_scenario
from assignframe.scenario import read_scenarios
from assignframe.testing import shared_path


@pytest.fixture(scope="module")
def golden_scenarios() -> list[dict]:
    return list(read_scenarios(shared_path(__file__) / "golden" / "assign.jsonl"))


def test_replay_reproduces_every_golden_round_structure(golden_scenarios, spm):
    """Membership and generation numbering of each recorded non-follow-up round, for all ~300
    scenarios, with the simple EAGER ``modulo`` strategy (so no follow-ups of ours)."""
    assert len(golden_scenarios) > 100
    for scenario in golden_scenarios:
        replay = replay_scenario(scenario, "modulo", spm)
        recorded = scenario["rounds"]
        assert [step.scenario_round for step in replay.steps] == [
            i for i, r in enumerate(recorded) if not r["followup"]
        ], scenario["id"]
        for step in replay.steps:
            expected = recorded[step.scenario_round]
            ours = step.final
            assert list(ours.group.members) == list(expected["members"]), scenario["id"]
            assert ours.generation == expected["generation"], scenario["id"]
            assert not ours.followup and len(step.rounds) == 1
            for member_id, spec in expected["members"].items():
                member = ours.group.members[member_id]
                assert member.group_instance_id == spec["group_instance_id"]
                assert member.rack == spec["rack"]
                assert sorted(member.topics) == sorted(spec["topics"])
            assert ours.metrics.validity.is_valid, (
                scenario["id"],
                ours.metrics.validity.describe(),
            )


def test_crafted_and_userdata_free_subscriptions_match_java_bytes(golden_scenarios, spm):
    """Crafted rounds send Java's bytes verbatim; for range/roundrobin (no user data) our join
    builds byte-identical subscriptions, generation included."""
    compared = 0
    for scenario in golden_scenarios:
        if not (scenario["crafted"] or scenario["assignor"] in ("range", "roundrobin")):
            continue
        for step in replay_scenario(scenario, "modulo", spm).steps:
            recorded = scenario["rounds"][step.scenario_round]["subscriptions"]
            for member_id, sent in step.rounds[0].subscriptions.items():
                assert sent.hex() == recorded[member_id]["hex"], (scenario["id"], member_id)
                compared += 1
    assert compared > 1000


def test_steps_map_to_java_followups(golden_scenarios, spm):
    scenario = next(s for s in golden_scenarios if sum(r["followup"] for r in s["rounds"]) >= 3)
    replay = replay_scenario(scenario, "cooperative-balance", spm)
    for step in replay.steps:
        followups = [scenario["rounds"][i]["followup"] for i in step.java_rounds]
        assert followups == [False] + [True] * (len(followups) - 1)
        assert replay.step_for(step.java_final_round) is step
        assert step.final is step.rounds[-1]
        # Our follow-ups are ours: same membership as the round that started the step.
        assert all(list(r.group.members) == list(step.rounds[0].group.members) for r in step.rounds)
    assert replay.rounds == tuple(r for s in replay.steps for r in s.rounds)
    with pytest.raises(IndexError):
        replay.step_for(len(scenario["rounds"]))


def test_cooperative_replay_plays_its_own_followups(spm):
    scenario = {
        "id": "grow",
        "assignor": "cooperative-balance",
        "partitions_per_topic": {"t": 4},
        "rounds": [
            {"members": {"a": {"topics": ["t"]}}},
            {"members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}, "generation": 2},
            {"members": {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}, "followup": True},
            {"members": {"b": {"topics": ["t"]}}, "partitions_per_topic": {"t": 6}},
        ],
    }
    replay = replay_scenario(scenario, pm=spm)
    assert [(r.index, r.generation, r.followup) for r in replay.rounds] == [
        (0, 1, False),
        (1, 2, False),
        (2, 3, True),
        (3, 4, False),
    ]
    assert [s.java_rounds for s in replay.steps] == [(0,), (1, 2), (3,)]
    assert len(replay.steps[-1].final.assignment.partitions_of("b")) == 6
    assert replay.settled and replay.strategy == "cooperative-balance"


def test_replay_needs_a_strategy(spm):
    with pytest.raises(ScenarioError, match="no strategy"):
        replay_scenario(
            {"partitions_per_topic": {}, "rounds": [{"members": {"a": {"topics": []}}}]}, pm=spm
        )
