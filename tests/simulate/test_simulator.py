"""The simulator on the seeds' worked examples, through the real runner and plugins."""

from __future__ import annotations

import pytest

from assignframe.simulate import (
    AS_CONFIGURED,
    load_scenario,
    parse_scenario,
    shipped_scenarios,
    simulate,
)

SCENARIOS = {p.stem: p for p in shipped_scenarios()}


def _runs(name, strategies):
    result = simulate(load_scenario(SCENARIOS[name]), strategies)
    runs = {run["label"]: run for run in result["runs"]}
    for run in runs.values():
        assert run["error"] is None, run["error"]
    return runs


def _step(run, index):
    return run["steps"][index]["metrics"]


def test_kip54_example_1_sticky_keeps_five_round_robin_three():
    runs = _runs("kip54-example-1", ["roundrobin", "sticky"])
    assert _step(runs["roundrobin"], 1)["partitions_kept"] == 3
    assert _step(runs["sticky"], 1)["partitions_kept"] == 5
    assert _step(runs["sticky"], 1)["spread"] == 0


def test_kip54_example_3_range_leaves_the_newcomer_idle():
    runs = _runs("kip54-example-3", ["range", "sticky"])
    assert _step(runs["range"], 1)["idle_members"] == 1
    assert _step(runs["sticky"], 1)["idle_members"] == 0
    assert _step(runs["sticky"], 1)["partitions_moved"] == 1


def test_unbalanced_group_blog_case():
    runs = _runs("unbalanced-group", ["range", "roundrobin"])
    assert _step(runs["range"], 0)["idle_members"] == 5
    assert _step(runs["range"], 0)["max_partitions"] == 2
    assert _step(runs["roundrobin"], 0)["idle_members"] == 2


def test_kip49_fair_stays_balanced_while_subscriptions_differ():
    runs = _runs("kip49-fair", ["range", "fair"])
    assert _step(runs["fair"], 1)["spread"] == 0
    assert _step(runs["range"], 1)["spread"] > _step(runs["fair"], 1)["spread"]


def test_lag_example_range_versus_lag_aware():
    runs = _runs("lag-aware", ["range", "lag-aware"])
    assert _step(runs["range"], 0)["lag_spread"] == 110_000
    assert _step(runs["lag-aware"], 0)["lag_spread"] == 10_000
    lag_step = runs["range"]["steps"][1]
    assert lag_step["rebalanced"] is False and _step(runs["range"], 1)["rounds"] == 0


def test_rolling_migration_follows_kip_429_two_bounces():
    result = simulate(load_scenario(SCENARIOS["rolling-migration"]))
    (run,) = result["runs"]
    assert run["label"] == AS_CONFIGURED and run["error"] is None
    protocols = [s["protocol"] for s in run["steps"]]
    kinds = [s["rebalance_protocol"] for s in run["steps"]]
    assert protocols[:3] == ["range"] * 3  # range until every member offers cooperative-sticky
    assert protocols[3:] == ["cooperative-sticky"] * 5
    assert kinds[:4] == ["eager"] * 4  # range still on the lists: members stay EAGER
    assert kinds[-2:] == ["cooperative", "cooperative"]
    assert _step(run, 7)["rounds"] == 2  # the newcomer takes partitions in a follow-up round
    assert "follow-up" in " ".join(run["steps"][7]["notes"])


def test_static_member_restart_unchanged_does_not_rebalance():
    document = {
        "topics": {"t": 2},
        "steps": [
            {
                "events": [
                    {"join": "a", "topics": ["t"], "static_id": "a"},
                    {"join": "b", "topics": ["t"]},
                ]
            },
            {"events": [{"restart": "a"}]},
            {"events": [{"restart": "b"}]},
        ],
    }
    (run,) = simulate(parse_scenario(document), ["range"])["runs"]
    assert [s["rebalanced"] for s in run["steps"]] == [True, False, True]
    assert "KIP-345" in run["steps"][1]["notes"][0]
    assert _step(run, 2)["partitions_moved"] == 0  # b got its partition back: not a move


def test_crash_is_a_leave_with_a_note():
    document = {
        "topics": {"t": 2},
        "steps": [
            {"events": [{"join": "a", "topics": ["t"]}, {"join": "b", "topics": ["t"]}]},
            {"events": [{"crash": "b"}]},
        ],
    }
    (run,) = simulate(parse_scenario(document), ["range"])["runs"]
    assert run["steps"][1]["assignment"] == {"a": [["t", 0], ["t", 1]]}
    assert "session.timeout.ms" in run["steps"][1]["notes"][0]


def test_strategy_logs_land_in_step_notes():
    runs = _runs("kip54-example-3", ["lag-aware"])
    assert any("lag" in note for note in runs["lag-aware"]["steps"][0]["notes"])


def test_unknown_strategy_fails_its_run_only():
    result = simulate(load_scenario(SCENARIOS["kip54-example-3"]), ["range", "no-such-strategy"])
    runs = {r["label"]: r for r in result["runs"]}
    assert runs["range"]["error"] is None
    assert "no-such-strategy" in runs["no-such-strategy"]["error"]


@pytest.mark.parametrize("path", shipped_scenarios(), ids=lambda p: p.stem)
def test_every_shipped_scenario_runs_with_range(path):
    scenario = load_scenario(path)
    for run in simulate(scenario, ["range"])["runs"]:
        assert run["error"] is None, run["error"]
        assert len(run["steps"]) == len(scenario.steps)
        assert all(s["metrics"].get("valid", True) for s in run["steps"])
