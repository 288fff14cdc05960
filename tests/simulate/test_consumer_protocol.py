"""The consumer protocol (KIP-848) and online migration in the simulator."""

from __future__ import annotations

import pytest
import yaml

from assignframe import GroupAssignment, Strategy, hookimpl
from assignframe.errors import ScenarioError
from assignframe.kip848.group import choose_server_assignor, upgrade_refusal
from assignframe.model import MemberAssignment, TopicPartition
from assignframe.plugins import PluginManager
from assignframe.simulate import load_scenario, parse_scenario, shipped_scenarios, simulate

SCENARIOS = {p.stem: p for p in shipped_scenarios()}
T0 = TopicPartition("t", 0)


def _only_run(result):
    (run,) = result["runs"]
    assert run["error"] is None, run["error"]
    return run


def _with_options(name, **options):
    document = yaml.safe_load(SCENARIOS[name].read_text(encoding="utf-8"))
    document["options"].update(options)
    return parse_scenario(document, str(SCENARIOS[name]))


def _handovers(step):
    return {(tuple(h["partition"]), h["from"], h["to"]): h["unowned_ms"] for h in step["handovers"]}


def test_range_conversion_hand_over_as_docs_simulate_derives_it():
    # 4 members, C0 upgrades (a new member id: it joins at 0); C1, C2, C3 heartbeat at 1.25,
    # 2.5, 3.75 s (I = 5 s, m = 3: j * I / 4). Each old owner learns of its revocation at its own
    # heartbeat and the Java consumer acknowledges at once; the new owner takes the partition at
    # its next heartbeat: C0 at 5 s, C1 at 6.25 s, C2 at 7.5 s.
    step = _only_run(simulate(load_scenario(SCENARIOS["cooperative-sticky-to-consumer-range"])))
    converted = step["steps"][1]
    moved = {k: v for k, v in _handovers(converted).items() if k[1] is not None}
    assert moved == {
        (("orders", 4), "C1", "C2"): 2500 - 1250,
        (("orders", 1), "C1", "C0"): 5000 - 1250,
        (("payments", 0), "C2", "C0"): 5000 - 2500,
        (("orders", 2), "C2", "C1"): 6250 - 2500,
        (("orders", 5), "C3", "C2"): 7500 - 3750,
    }
    assert converted["max_unowned_ms"] == 3750 and converted["heartbeats"] == 2
    # a client that acknowledges only at its next regular heartbeat: one interval more
    slow = _only_run(
        simulate(_with_options("cooperative-sticky-to-consumer-range", revoke_after_heartbeats=1))
    )
    assert slow["steps"][1]["max_unowned_ms"] == 8750 and slow["steps"][1]["heartbeats"] == 3


def test_uniform_join_hand_over_as_docs_simulate_derives_it():
    # C4 joins at 0; C0..C3 heartbeat at 1, 2, 3, 4 s (m = 4: j * 5 s / 5). C0 and C1 give up
    # orders-3 and orders-4 at 1 and 2 s; C4, waiting since its join, takes both at 5 s.
    run = _only_run(simulate(load_scenario(SCENARIOS["cooperative-sticky-to-consumer-uniform"])))
    joined = run["steps"][5]
    assert _handovers(joined) == {
        (("orders", 3), "C0", "C4"): 4000,
        (("orders", 4), "C1", "C4"): 3000,
    }
    waiting = [t for t in joined["reconciliation"] if t["member"] == "C4"]
    assert waiting[0]["at_ms"] == 0 and waiting[0]["state"] == "UNRELEASED_PARTITIONS"
    assert waiting[0]["unreleased"] == [["orders", 3], ["orders", 4]]
    assert waiting[0]["epoch"] == joined["generation"]  # at the target epoch while it waits
    slow = _only_run(
        simulate(_with_options("cooperative-sticky-to-consumer-uniform", revoke_after_heartbeats=1))
    )
    assert slow["steps"][5]["max_unowned_ms"] == 9000


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
        (
            "revoke_after_heartbeats: -1",
            "options.revoke_after_heartbeats: expected an integer >= 0",
        ),
        (
            "owned_partitions: sometimes",
            "options.owned_partitions: expected one of when_changed, always, got 'sometimes'",
        ),
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
    from assignframe.kip848.group import chained_target, topic_id
    from assignframe.model import Cluster, GroupSubscription, Member
    from assignframe.plugins import get_plugin_manager

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
