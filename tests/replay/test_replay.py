"""Replaying scenarios: the round structure of every golden scenario, and the step mapping."""

from __future__ import annotations

import logging

import pytest

from assignframe import Strategy, UserDataError, hookimpl
from assignframe.errors import ScenarioError
from assignframe.replay.classic import replay_scenario
from assignframe.replay.scenario import read_scenarios
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


def test_crafted_cooperative_rounds_get_the_followup_a_real_group_plays(golden_scenarios, spm):
    """Each crafted cooperative-sticky scenario (one recorded round, claims hand-built): a member
    whose claimed partitions the leader does not give it revokes them and rejoins, so our
    step gets one follow-up, after which every partition is assigned."""
    crafted = [
        s for s in golden_scenarios if s["crafted"] and s["assignor"] == "cooperative-sticky"
    ]
    with_followup = 0
    for scenario in crafted:
        replay = replay_scenario(scenario, "cooperative-balance", spm)
        (step,) = replay.steps
        first = step.rounds[0]
        recorded = scenario["rounds"][0]["subscriptions"]
        lost = {}
        for member_id, sent in recorded.items():
            given = {(tp.topic, tp.partition) for tp in first.assignment.partitions_of(member_id)}
            taken = [tuple(pair) for pair in sent["owned_partitions"] if tuple(pair) not in given]
            if taken:
                lost[member_id] = taken
        assert {
            m: [(tp.topic, tp.partition) for tp in revoked] for m, revoked in first.revoked.items()
        } == lost, scenario["id"]
        assert len(step.rounds) == (2 if lost else 1) and replay.settled, scenario["id"]
        assert step.final.metrics.validity.is_complete, scenario["id"]
        with_followup += bool(lost)
    assert len(crafted) >= 4 and with_followup >= 2


class _OwnUserData(Strategy):
    """Reads only its own user data (b"own:..."), like sticky reading StickyAssignor bytes."""

    name = "own-user-data"

    def subscription_user_data(self, topics, state):
        return b"own:" + str(state.generation).encode()

    def decode_user_data(self, user_data, subscription_version):
        if user_data is not None and not user_data.startswith(b"own:"):
            raise UserDataError(f"not own-user-data bytes: {user_data[:8].hex()}")
        return user_data

    def assign(self, group):
        from core_strategies import Modulo

        return Modulo().assign(group)


class _OwnPlugin:
    @hookimpl
    def register_strategies(self, registry):
        registry.add(_OwnUserData)


def test_replay_over_another_strategys_user_data_completes_with_one_warning_each(
    golden_scenarios, spm, caplog
):
    """Issue 17: replaying a strategy over members carrying another strategy's user data (the
    crafted scenarios send Java's bytes) never aborts; each such member counts as having no
    prior ownership for it, with one warning naming the scenario, the member and the strategy.
    (Today's main aborted at the first such member, naming neither.)"""
    spm.register(_OwnPlugin())
    caplog.set_level(logging.WARNING, logger="assignframe.classic.protocol")
    foreign = 0
    for scenario in golden_scenarios:
        replay = replay_scenario(scenario, "own-user-data", spm)
        assert replay.steps, scenario["id"]
        if not scenario["crafted"]:
            continue
        for member_id, sent in scenario["rounds"][0]["subscriptions"].items():
            if sent["user_data"] is None:
                continue
            foreign += 1
            seen = replay.steps[0].rounds[0].group.members[member_id]
            assert seen.user_data is None and seen.decoded_user_data is None
            expected = (
                f"scenario {scenario['id']!r}: member {member_id!r} has user data strategy "
                "'own-user-data' cannot read"
            )
            assert sum(r.getMessage().startswith(expected) for r in caplog.records) == 1
    assert foreign >= 10
    assert len(caplog.records) == foreign
