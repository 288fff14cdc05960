"""The consumer protocol (KIP-848) and online migration in the simulator."""

from __future__ import annotations

import pytest
import yaml

from assignframe import GroupAssignment, Strategy, hookimpl
from assignframe.errors import ScenarioError
from assignframe.model import MemberAssignment, TopicPartition
from assignframe.plugins import PluginManager
from assignframe.rebalance.consumer_group import choose_server_assignor, reconcile, upgrade_refusal
from assignframe.simulate import load_scenario, parse_scenario, shipped_scenarios, simulate

SCENARIOS = {p.stem: p for p in shipped_scenarios()}
T0 = TopicPartition("t", 0)


def _only_run(result):
    (run,) = result["runs"]
    assert run["error"] is None, run["error"]
    return run


def test_a_partition_waits_for_its_old_owners_revocation():
    # A heartbeats at 0, 1000, ...; B (second of two) at 500, 1500, ...  A revokes t-0 at 0 and
    # acknowledges at 1000; B gets it at its next heartbeat, 1500: 1.5 s without an owner.
    owned = GroupAssignment.from_partitions({"A": [T0], "B": []})
    target = GroupAssignment.from_partitions({"A": [], "B": [T0]})
    result = reconcile(owned, target, heartbeat_interval_ms=1000)
    assert result.unowned_ms == {T0: 1500}
    assert result.revoked == {"A": (T0,)}
    assert result.heartbeats == 2


def test_batching_delays_the_target_but_not_the_hand_over():
    owned = GroupAssignment.from_partitions({"A": [T0], "B": []})
    target = GroupAssignment.from_partitions({"A": [], "B": [T0]})
    result = reconcile(owned, target, heartbeat_interval_ms=1000, assignment_interval_ms=3000)
    assert result.unowned_ms == {T0: 1500}  # revoked at 3000, owned again at 4500


def test_a_free_partition_goes_to_its_owner_at_its_first_heartbeat():
    owned = GroupAssignment.from_partitions({"A": [], "B": []})
    target = GroupAssignment.from_partitions({"A": [], "B": [T0]})
    assert reconcile(owned, target, heartbeat_interval_ms=1000).unowned_ms == {T0: 500}


def test_the_most_popular_member_assignor_wins_else_the_brokers_first():
    assert choose_server_assignor(["range", "uniform", "range"]) == "range"
    assert choose_server_assignor([None, None], ("range", "uniform")) == "range"
    assert choose_server_assignor([]) == "uniform"


def test_uniform_keeps_the_cooperative_sticky_assignment_range_recomputes():
    uniform = _only_run(
        simulate(load_scenario(SCENARIOS["cooperative-sticky-to-consumer-uniform"]))
    )
    range_ = _only_run(simulate(load_scenario(SCENARIOS["cooperative-sticky-to-consumer-range"])))
    for run in (uniform, range_):
        classic, converted = run["steps"][0], run["steps"][1]
        assert classic.get("group_type", "classic") == "classic"
        assert converted["group_type"] == "consumer"
        assert any("converted to a consumer group" in n for n in converted["notes"])
        assert all(s["metrics"]["valid"] for s in run["steps"])
    # uniform is sticky: the conversion step moves nothing; server range starts from scratch
    assert uniform["steps"][1]["metrics"]["partitions_moved"] == 0
    assert uniform["steps"][1]["unowned_partitions"] == 3  # only C0's (it restarted, dynamic)
    assert range_["steps"][1]["metrics"]["partitions_moved"] > 0
    assert range_["steps"][1]["max_unowned_ms"] > 0
    assert uniform["steps"][1]["protocol"] == "server:uniform"
    assert range_["steps"][1]["protocol"] == "server:range"


def test_bridged_members_are_named_until_they_upgrade():
    run = _only_run(simulate(load_scenario(SCENARIOS["cooperative-sticky-to-consumer-uniform"])))
    notes = [" ".join(s["notes"]) for s in run["steps"]]
    assert "C1, C2, C3" in notes[1]
    assert "bridged" not in notes[4]


@pytest.mark.parametrize("assignor", ["uniform", "range"])
def test_rolling_restart_under_each_server_assignor(assignor):
    run = _only_run(simulate(load_scenario(SCENARIOS[f"consumer-rolling-restart-{assignor}"])))
    assert {s["protocol"] for s in run["steps"]} == {f"server:{assignor}"}
    assert all(s["metrics"]["valid"] for s in run["steps"])
    epochs = [s["generation"] for s in run["steps"]]
    assert epochs == sorted(epochs) and epochs[-1] > epochs[0]


DOWNGRADE = """
name: downgrade
topics: {t: 4}
steps:
  - name: classic
    events:
      - {join: A, topics: [t], strategies: [cooperative-sticky]}
      - {join: B, topics: [t], strategies: [cooperative-sticky]}
  - name: A upgrades
    events: [{upgrade: A}]
  - name: A downgrades
    events: [{downgrade: A}]
"""


def test_the_group_downgrades_when_the_last_consumer_member_leaves():
    run = _only_run(simulate(parse_scenario(yaml.safe_load(DOWNGRADE))))
    assert [s.get("group_type", "classic") for s in run["steps"]] == [
        "classic",
        "consumer",
        "classic",
    ]
    assert run["steps"][2]["protocol"] == "cooperative-sticky"
    assert any("converts back to classic" in n for n in run["steps"][2]["notes"])


class CarriesAssignmentUserData(Strategy):
    """Like Kafka Streams' assignor: every member's Assignment carries user data."""

    name = "carries-user-data"

    def assign(self, group):
        members = sorted(group.members)
        partitions = [tp for t in group.subscribed_topics() for tp in group.cluster.partitions(t)]
        return GroupAssignment(
            {
                m: MemberAssignment(tuple(partitions[i :: len(members)]), b"\x00\x01")
                for i, m in enumerate(members)
            }
        )


class _Plugin:
    @hookimpl
    def register_strategies(self, registry):
        registry.add(CarriesAssignmentUserData)


def test_an_upgrade_is_refused_when_an_assignment_carries_user_data():
    pm = PluginManager()
    pm.register(_Plugin(), name="carries-user-data")
    scenario = parse_scenario(
        yaml.safe_load(DOWNGRADE.replace("cooperative-sticky", "carries-user-data"))
    )
    run = _only_run(simulate(scenario, pm=pm))
    upgrade = run["steps"][1]
    assert upgrade.get("group_type", "classic") == "classic"
    assert upgrade["protocol"] == "carries-user-data"
    assert any("refused" in n and "KAFKA-18134" in n for n in upgrade["notes"])


def test_upgrade_refusal_names_the_members():
    assignment = GroupAssignment(
        {"A": MemberAssignment((T0,), b"x"), "B": MemberAssignment((), None)}
    )
    assert "of A carries user data" in (upgrade_refusal(assignment) or "")
    assert upgrade_refusal(GroupAssignment({"B": MemberAssignment((), b"")})) is None


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("heartbeat_interval_ms: 0", "options.heartbeat_interval_ms: expected an integer >= 1"),
        ("assignment_interval_ms: x", "options.assignment_interval_ms: expected an integer >= 0"),
        ("server_assignors: 3", "options.server_assignors"),
    ],
)
def test_bad_consumer_options_are_one_clear_error_naming_the_field(option, message):
    text = DOWNGRADE.replace("topics: {t: 4}", f"topics: {{t: 4}}\noptions: {{{option}}}")
    with pytest.raises(ScenarioError, match=message):
        parse_scenario(yaml.safe_load(text), "m.yaml")


def test_an_unknown_server_assignor_fails_its_run_and_names_it():
    text = DOWNGRADE.replace("{upgrade: A}", "{upgrade: A, assignor: nosuch}")
    (run,) = simulate(parse_scenario(yaml.safe_load(text)))["runs"]
    assert "step 1 (A upgrades)" in run["error"] and "nosuch" in run["error"]


def test_targets_chain_through_the_record_round_trip():
    from assignframe.model import Cluster, GroupSubscription, Member
    from assignframe.plugins import get_plugin_manager
    from assignframe.rebalance.consumer_group import chained_target, topic_id

    group = GroupSubscription(
        {m: Member(m, ("a", "b")) for m in ("m1", "m2", "m3")}, Cluster({"a": 4, "b": 3})
    )
    pm = get_plugin_manager()
    first, currents = chained_target(group, None, "uniform", pm)
    again, currents_again = chained_target(group, first, "uniform", pm, currents)
    assert again == first  # sticky and unchanged: the same target
    assert currents_again == currents  # unchanged targets keep their map (and its order)
    held = {m: {(tid, p) for tid, ps in c for p in ps} for m, c in currents.items()}
    assert held == {
        m: {(topic_id(tp.topic), tp.partition) for tp in a.partitions}
        for m, a in first.assignments.items()
    }


def test_a_partition_held_twice_makes_the_conversion_fail_and_says_where():
    t0, t1, t2 = (TopicPartition("t", p) for p in range(3))
    assignment = GroupAssignment(
        {
            "a": MemberAssignment((t0, t1)),
            "b": MemberAssignment((t1, t2)),
            "c": MemberAssignment((t2,)),
        }
    )
    assert upgrade_refusal(assignment) == (
        "online upgrade fails: t-1 is in the Assignment of a, b (and 1 more "
        "partition(s) held by several members); the converted group gives each partition one "
        "owner, so the "
        "coordinator's conversion throws ('the partition is still owned') and the group stays "
        "classic"
    )
    both = GroupAssignment({**assignment.assignments, "c": MemberAssignment((t2,), b"\x01")})
    assert upgrade_refusal(both).startswith("online upgrade refused: the Assignment of c carries")
    assert "; online upgrade fails: t-1" in upgrade_refusal(both)


def test_a_partition_held_by_three_names_all_three():
    t0 = TopicPartition("t", 0)
    assignment = GroupAssignment({m: MemberAssignment((t0,)) for m in ("c", "a", "b")})
    assert upgrade_refusal(assignment).startswith(
        "online upgrade fails: t-0 is in the Assignment of a, b, c; "
    )
