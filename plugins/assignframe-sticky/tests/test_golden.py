"""Every sticky / cooperative-sticky scenario of the golden set, against Java's own results.

Replayed through the core's ``replay_scenario``: each member keeps its own state and sends it
through the codec (sticky user data, owned partitions) exactly as real members do; our own
cooperative follow-ups are played. Checked per step (a recorded round and its follow-ups):

* every round valid: no partition twice, none to a non-subscriber; EAGER rounds assign every
  subscribed partition; COOPERATIVE rounds leave a partition unassigned only while some member
  still owns it, and never give a member what another may still own;
* a cooperative rebalance settles in at most one follow-up round;
* KIP-54 balance score of the settled assignment no worse than Java's settled one;
* stickiness: where our history so far equals Java's, at least as many partitions kept
  (where the histories differ, each side keeps what *it* assigned before, so the counts are
  not comparable step by step; that comparison is made on Java's inputs, below).

Then, on Java's recorded inputs (the state Java's leader saw before each rebalance), every
rebalance of every scenario: balance no worse than Java's; at equal balance no more
partitions off-rack (racks as Java does them, KIP-881); and then at least as many kept; eager
rounds as they are, cooperative rebalances once settled (ours with
our follow-up, Java's with its recorded one). Where ours is strictly better is counted and
printed in the summary.
"""

from __future__ import annotations

import pytest
from assignframe_sticky import CooperativeStickyStrategy, StickyStrategy
from support import (
    STATS,
    check_assignment,
    check_round,
    claims_of,
    java_assignment,
    kept,
    leader_views,
    rack_mismatches,
    sticky_scenarios,
)

from assignframe import GroupSubscription, Member, balance_score, replay_scenario
from assignframe.movement import movement

SCENARIOS = sticky_scenarios()


def _balance(assignment) -> int:
    return balance_score(len(a.partitions) for a in assignment.assignments.values())


def _same(a, b) -> bool:
    return {m: set(x.partitions) for m, x in a.assignments.items()} == {
        m: set(x.partitions) for m, x in b.assignments.items()
    }


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_replayed_through_the_runner(scenario):
    cooperative = scenario["assignor"] == "cooperative-sticky"
    replay = replay_scenario(scenario)
    java_before = None
    for step in replay.steps:
        where = f"{scenario['id']} round {step.scenario_round}"
        for round_ in step.rounds:
            assert check_round(round_, cooperative) == [], where
        assert len(step.rounds) <= 2, f"{where}: {len(step.rounds) - 1} follow-up rounds"
        if cooperative and not scenario["crafted"]:
            # crafted claims belong to no real consumer, so nobody rejoins to take them over
            assert check_round(step.final, cooperative=False) == [], f"{where}: not settled"
        java = java_assignment(scenario["rounds"][step.java_final_round])
        ours = step.final.assignment
        balance, java_balance = _balance(ours), _balance(java)
        outcome = (
            "balance better"
            if balance < java_balance
            else "balance equal"
            if balance == java_balance
            else "balance worse"
        )
        if scenario["crafted"]:
            # Java's crafted cooperative results keep stale or cancelled claims (invalid, see
            # test_cooperative_rounds_on_javas_inputs); ours withhold them, which can cost balance
            _count("crafted steps", outcome)
        else:
            assert balance <= java_balance, f"{where}: balance {balance} > Java's {java_balance}"
            _count("steps", outcome)
        ours_before = step.rounds[0].previous
        if ours_before is not None and java_before is not None:
            ours_kept, java_kept = movement(ours_before, ours)[0], movement(java_before, java)[0]
            STATS["kept (replay)"] += ours_kept
            STATS["kept by Java (replay)"] += java_kept
            if _same(ours_before, java_before) and balance == java_balance:
                assert ours_kept >= java_kept, f"{where}: kept {ours_kept} < Java's {java_kept}"
                _count("same-history steps", "kept more" if ours_kept > java_kept else "kept equal")
        java_before = java
    _count("follow-up rounds", n=len(replay.rounds) - len(replay.steps))


def test_replay_keeps_at_least_as_much_as_java_overall():
    if "kept by Java (replay)" not in STATS:
        pytest.skip("run together with test_replayed_through_the_runner")
    assert STATS["kept (replay)"] >= STATS["kept by Java (replay)"]


EAGER = [s for s in SCENARIOS if s["assignor"] == "sticky"]


@pytest.mark.parametrize("scenario", EAGER, ids=[s["id"] for s in EAGER])
def test_eager_rounds_on_javas_inputs(scenario):
    strategy = StickyStrategy()
    for record, group in leader_views(scenario, strategy):
        where = f"{scenario['id']} round {record['round']}"
        ours, java = strategy.assign(group), java_assignment(record)
        assert check_assignment(group, ours, cooperative=False) == [], where
        claims = claims_of(group, cooperative=False)
        _compare(where, "eager rounds on Java's inputs", group, ours, java, claims)
        if check_assignment(group, java, cooperative=False):
            _count("eager rounds where Java is invalid")


def _count(total: str, *outcomes: str, n: int = 1) -> None:
    STATS[total] += n
    for outcome in outcomes:
        STATS[f"{total}: {outcome}"] += n


COOPERATIVE = [s for s in SCENARIOS if s["assignor"] == "cooperative-sticky"]


@pytest.mark.parametrize("scenario", COOPERATIVE, ids=[s["id"] for s in COOPERATIVE])
def test_cooperative_rounds_on_javas_inputs(scenario):
    """On the subscriptions Java's leader saw, ours never hands over a partition another member
    may still own; counts the rounds where Java's own result does (crafted generation conflicts:
    Java keeps a stale claim, or one of two same-generation claims).

    Real (not crafted) scenarios, every rebalance: our settled result (this round, then our
    follow-up once the revoked partitions are released) against Java's settled one (Java's
    recorded follow-up round, if it needed one): balance no worse, and at equal balance at
    least as many partitions kept with the members that owned them before the rebalance."""
    strategy = CooperativeStickyStrategy()
    views = list(leader_views(scenario, strategy))
    for position, (record, group) in enumerate(views):
        where = f"{scenario['id']} round {record['round']}"
        ours = strategy.assign(group)
        assert check_assignment(group, ours, cooperative=True) == [], where
        _count("cooperative rounds on Java's inputs")
        if check_assignment(group, java_assignment(record), cooperative=True):
            _count("cooperative rounds where Java's result is invalid")
        if scenario["crafted"] or record["followup"]:
            continue
        following = views[position + 1][0] if position + 1 < len(views) else None
        java = java_assignment(following if following and following["followup"] else record)
        settled = strategy.assign(_after_revocations(group, ours))
        assert check_assignment(group, settled, cooperative=False) == [], f"{where}: settled"
        claims = claims_of(group, cooperative=True)
        _compare(where, "cooperative rebalances on Java's inputs", group, settled, java, claims)


def _after_revocations(group: GroupSubscription, assignment) -> GroupSubscription:
    """The follow-up round: every member owns what it was just given, nothing else."""
    members = {
        member_id: Member(
            member_id,
            member.topics,
            owned_partitions=assignment.partitions_of(member_id),
            generation=group.generation,
            rack=member.rack,
        )
        for member_id, member in group.members.items()
    }
    return GroupSubscription(members, group.cluster, group.generation + 1)


def _compare(where: str, total: str, group, ours, java, claims) -> None:
    """Balance no worse than Java's; at equal balance, no more partitions off-rack (KIP-881);
    at equal balance and rack alignment, at least as many kept. Counted."""
    balance, java_balance = _balance(ours), _balance(java)
    assert balance <= java_balance, f"{where}: balance {balance} > Java's {java_balance}"
    if balance < java_balance:
        _count(total, "balance better")
        return
    off_rack, java_off_rack = rack_mismatches(group, ours), rack_mismatches(group, java)
    assert off_rack <= java_off_rack, f"{where}: {off_rack} off-rack > Java's {java_off_rack}"
    if off_rack < java_off_rack:
        _count(total, "balance equal, fewer off-rack")
        return
    ours_kept, java_kept = kept(ours, claims), kept(java, claims)
    assert ours_kept >= java_kept, f"{where}: kept {ours_kept} < Java's {java_kept}"
    _count(total, "balance and racks equal, kept more" if ours_kept > java_kept else "equal")
