"""One movement definition (issue 33): a server-assignor replay round's ``partitions_moved`` is
:mod:`assignframe.movement` against the previous round's result, members that left since
included. Partitions nobody held (a first round, a created topic, new partitions) are added, not
moved. The expected counts come from the golden file alone: Java's recorded results, round after
round. Needs the server-assignor distributions (tox env ``tools`` or a ``server-*`` env)."""

from __future__ import annotations

import json
from functools import cache

import pytest

from assignframe import get_plugin_manager, replay_server_scenario
from assignframe.testing.paths import shared_path

GOLDEN = shared_path(__file__) / "golden" / "kip848" / "assign.jsonl"


@cache
def scenarios() -> dict[str, dict]:
    with GOLDEN.open(encoding="utf-8") as lines:
        return {s["id"]: s for s in map(json.loads, lines)}


@cache
def replayed(scenario_id: str):
    scenario = scenarios()[scenario_id]
    assignor = get_plugin_manager().server_assignor("server:" + scenario["assignor"])
    return replay_server_scenario(scenario, assignor)


def holders(held: dict[str, list[list]]) -> dict[tuple, set[str]]:
    """partition -> members holding it, from a round's members' ``current`` or Java's ``result``
    (a partition of a deleted topic is written with its topic id, which tells it apart)."""
    out: dict[tuple, set[str]] = {}
    for member, pairs in held.items():
        for pair in pairs:
            out.setdefault(tuple(pair[2:] or pair[:1]) + (pair[1],), set()).add(member)
    return out


def java_moved(before: dict[str, list[list]], round_: dict) -> int:
    """Partitions someone held before ``round_`` that Java's result gives to a member that did
    not hold them; a static member's replacement is its predecessor (renamed, not moved)."""
    renamed = dict(before)
    for event in round_.get("events") or ():
        if event.get("type") == "replace":
            renamed[event["new"]] = renamed.pop(event["old"], [])
    old, new = holders(renamed), holders(round_["result"])
    return sum(len(new[tp] - old[tp]) for tp in new if old.get(tp))


def first_round_holdings(round_: dict) -> dict[str, list[list]]:
    return {m: v.get("current", []) for m, v in round_["members"].items()}


def test_a_first_round_moves_nothing_it_only_adds():
    (scenario_id,) = [i for i in scenarios() if i.startswith("kip848-0000")]
    first = replayed(scenario_id).rounds[0]
    assert first.round.event == "initial state"
    assert sum(len(ps) for ps in first.result.values()) == 16
    changes = first.changes()
    assert (len(changes.added), len(changes.moved), len(changes.kept)) == (16, 0, 0)
    assert first.metrics()["partitions_moved"] == first.partitions_moved == 0


def test_a_created_topic_is_added_not_moved():
    (scenario_id,) = [i for i in scenarios() if i.startswith("kip848-0008")]
    created = replayed(scenario_id).rounds[1]
    assert created.round.event.startswith("create topic topic-2")
    assert created.matches_java is True
    assert java_moved(scenarios()[scenario_id]["rounds"][0]["result"],
                      scenarios()[scenario_id]["rounds"][1]) == 0
    assert created.partitions_moved == 0
    assert len(created.changes().added) > 0


def _rounds_with_java():
    """(scenario id, round index) of every round whose result and whose previous round's
    result (or, for round 0, whose members' ``current``) Java recorded."""
    for scenario_id, scenario in scenarios().items():
        rounds = scenario["rounds"]
        for index, round_ in enumerate(rounds):
            if "result" in round_ and (index == 0 or "result" in rounds[index - 1]):
                yield scenario_id, index


def test_every_golden_round_counts_moves_as_javas_own_results_do():
    """All 268 scenarios, every round that matches Java: the replay's count equals the count
    made from Java's recorded results, including leave, replace, delete and subscribe rounds."""
    checked = disagreeing = 0
    kinds: set[str] = set()
    for scenario_id, index in _rounds_with_java():
        rounds = scenarios()[scenario_id]["rounds"]
        played = replayed(scenario_id).rounds[index]
        if played.matches_java is not True:
            continue
        if index and replayed(scenario_id).rounds[index - 1].matches_java is not True:
            continue
        before = first_round_holdings(rounds[0]) if index == 0 else rounds[index - 1]["result"]
        expected = java_moved(before, rounds[index])
        checked += 1
        kinds.update(e.get("type") for e in rounds[index].get("events") or ())
        if played.partitions_moved != expected:
            disagreeing += 1
            assert played.partitions_moved == expected, (scenario_id, index)
    assert checked > 900 and disagreeing == 0
    assert {"leave", "replace", "delete_topic", "create_topic", "join"} <= kinds


@pytest.mark.parametrize("chain", [False, True])
def test_the_json_round_record_has_the_core_record_keys(chain):
    """One record shape: a server round's record has only the core record's keys, and on the
    same before/after they hold the core's values (a shape check; the counts themselves are
    checked against Java above)."""
    from assignframe.metrics import metrics_record
    from assignframe.model import (
        Cluster,
        GroupAssignment,
        GroupSubscription,
        Member,
        MemberAssignment,
    )

    (scenario_id,) = [i for i in scenarios() if i.startswith("kip848-0000")]
    scenario = scenarios()[scenario_id]
    assignor = get_plugin_manager().server_assignor("server:" + scenario["assignor"])
    played = replay_server_scenario(scenario, assignor, chain=chain).rounds[1]
    record = played.metrics()
    before = GroupAssignment({m: MemberAssignment(ps) for m, ps in played.before.items()})
    after = GroupAssignment({m: MemberAssignment(ps) for m, ps in played.holdings().items()})
    spec = played.round.spec
    counts = {str(t.topic_id): t.partitions for t in spec.topics.values()}
    group = GroupSubscription(
        {m: Member(m, tuple(sorted(counts))) for m in after.assignments}, Cluster(counts)
    )
    core = metrics_record(group, after, before)
    shared = set(record) - {"valid", "problems", "problem_count"}
    assert shared <= set(core)
    assert {k: record[k] for k in shared} == {k: core[k] for k in shared}


def _assignment(held):
    from assignframe.model import GroupAssignment, MemberAssignment

    return GroupAssignment({m: MemberAssignment(ps) for m, ps in held.items()})


def _watched(assignment):
    """The history's state of a consumer group holding ``assignment``."""
    from assignframe.cluster.history import GroupState

    owners = {f"{tp.topic}-{tp.partition}": m
              for m, a in assignment.assignments.items() for tp in a.partitions}
    return GroupState(1, "Stable", owners, members=sorted(assignment.assignments),
                      group_type="consumer")


def test_replay_metrics_and_the_watch_history_agree_on_every_round():
    """The same rounds three ways: the replay's record, the core's count-only fast path and the
    watch history's events (as ``watch`` would write them had it polled the group after each
    round: partitions as ``topic-p`` strings, through its own state), and, where Java recorded
    both rounds, the count made from Java's results alone."""
    from assignframe.cluster.history import changes
    from assignframe.metrics import movement

    totals = {"moved": 0, "added": 0, "revoked": 0}
    compared = 0
    for scenario_id in [i for i in scenarios() if i.startswith(("kip848-0000", "kip848-012"))]:
        for played in replayed(scenario_id).rounds:
            before, after = _assignment(played.before), _assignment(played.holdings())
            kept, moved = movement(before, after)
            events = changes("g", _watched(before), _watched(after), 0.0, 300)
            said = {e["event"]: len(e["partitions"]) for e in events if "partitions" in e}
            record, replayed_changes = played.metrics(), played.changes()
            assert (record["partitions_kept"], record["partitions_moved"]) == (kept, moved)
            assert said.get("moved", 0) == moved, (scenario_id, played.round.index)
            assert said.get("added", 0) == len(replayed_changes.added)
            assert said.get("revoked", 0) == len(replayed_changes.revoked)
            rounds, index = scenarios()[scenario_id]["rounds"], played.round.index
            if index and played.matches_java and "result" in rounds[index - 1]:
                assert said.get("moved", 0) == java_moved(rounds[index - 1]["result"],
                                                          rounds[index])
            for kind in totals:
                totals[kind] += said.get(kind, 0)
            compared += 1
    assert compared >= 10 and all(totals.values()), (compared, totals)
