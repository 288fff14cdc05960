"""The recommendation rule (docs/audit.md), criterion by criterion, and how ties are broken."""

from __future__ import annotations

from assignframe.audit.recommend import TieBreak, recommend
from assignframe.audit.rerun import StrategyOutcome

CURRENT = {"spread": 3, "idle_members": 1, "lag_spread": None}


def _outcome(
    name, spread=0, idle=0, score=0, moved=0, rounds=1, valid=True, owners=1, lag=None, **kw
):
    metrics = {
        "spread": spread,
        "idle_members": idle,
        "balance_score": score,
        "partitions_moved": moved,
        "rounds": rounds,
        "valid": valid,
        "lag_spread": lag,
    }
    return StrategyOutcome(name, metrics, None, owners_per_partition=owners, **kw)


def test_balance_first_then_movement():
    choice = recommend([_outcome("a", spread=1), _outcome("b", moved=9)], CURRENT, None)
    assert choice.strategy == "b"
    assert "beats a on max-min partitions per member (0 vs 1)" in choice.reason


def test_movement_breaks_balance_ties():
    choice = recommend([_outcome("a", moved=4), _outcome("b", moved=1)], CURRENT, None)
    assert choice.strategy == "b" and "partitions moved (1 vs 4)" in choice.reason


def test_invalid_unsettled_failed_and_redundant_are_not_candidates():
    outcomes = [
        _outcome("invalid", valid=False),
        _outcome("unsettled", settled=False),
        _outcome("redundant", owners=2),
        StrategyOutcome("failed", None, None, error="boom"),
        _outcome("ok", spread=2),
    ]
    assert recommend(outcomes, CURRENT, None).strategy == "ok"


def test_full_tie_keeps_the_current_strategy():
    choice = recommend([_outcome("a"), _outcome("b")], CURRENT, "b")
    assert choice.strategy == "b" and "keeps the group's current strategy" in choice.reason


def test_no_candidate():
    assert recommend([_outcome("x", valid=False)], CURRENT, None).strategy is None


def test_a_full_tie_names_every_strategy_tied_and_never_falls_to_the_name():
    outcomes = [_outcome("sticky"), _outcome("fair"), _outcome("range", moved=2), _outcome("rr")]
    choice = recommend(outcomes, CURRENT, None)
    assert choice.strategy == "sticky" and choice.tie  # the replay order, not "fair" by name
    assert choice.reason.endswith(
        "; a tie with fair and rr on every metric; first in the order the strategies were replayed"
    )


def test_a_tie_goes_to_the_current_strategy_then_the_clients_default():
    outcomes = [_outcome("cooperative-sticky"), _outcome("range"), _outcome("sticky")]
    keeps = recommend(outcomes, CURRENT, "sticky", TieBreak("sticky", ("range", "Java")))
    assert keeps.strategy == "sticky" and "keeps the group's current strategy" in keeps.reason
    default = recommend(outcomes, CURRENT, "gone", TieBreak("gone", ("range", "Java")))
    assert default.strategy == "range"
    assert default.reason.endswith("a tie with cooperative-sticky and sticky on every metric; "
                                   "range is the default of Java")


def test_a_consumer_group_tie_goes_to_uniform_unless_it_runs_range():
    outcomes = [_outcome("server:range"), _outcome("server:uniform")]
    broker = ("server:uniform", "server:range")
    chosen = recommend(outcomes, CURRENT, None, TieBreak(None, broker_order=broker))
    assert chosen.strategy == "server:uniform"
    assert "server:uniform is the broker's default assignor" in chosen.reason
    asked = recommend(outcomes, CURRENT, "range", TieBreak("server:range", broker_order=broker))
    assert asked.strategy == "server:range" and "current strategy" in asked.reason


def test_only_what_every_client_can_run_and_the_better_one_is_named():
    outcomes = [_outcome("range", spread=2), _outcome("fair"), _outcome("sticky", spread=1)]
    java = TieBreak("range", cannot_run=lambda s: "Java member(s) j0 cannot run it"
                    if s == "fair" else None)
    chosen = recommend(outcomes, CURRENT, "range", java)
    assert chosen.strategy == "sticky"
    assert chosen.reason.endswith(
        "beats range on max-min partitions per member (1 vs 2); fair would do better "
        "on max-min partitions per member (0 vs 1) but Java member(s) j0 cannot run it"
    )


def test_nothing_runnable_says_why():
    only_fair = TieBreak("range", cannot_run=lambda s: "Java member(s) j0 cannot run it")
    chosen = recommend([_outcome("fair")], CURRENT, "range", only_fair)
    assert chosen.strategy is None
    assert chosen.reason == (
        "no strategy every member's client can run produced a valid assignment "
        "(fair: Java member(s) j0 cannot run it)"
    )
