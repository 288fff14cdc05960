"""The recommendation rule (docs/audit.md), criterion by criterion."""

from __future__ import annotations

from assignframe.audit.recommend import recommend
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


def test_a_full_tie_names_every_strategy_tied_not_only_the_runner_up():
    outcomes = [_outcome("sticky"), _outcome("fair"), _outcome("range", moved=2), _outcome("rr")]
    choice = recommend(outcomes, CURRENT, None)
    assert choice.strategy == "fair"
    assert choice.reason.endswith("; ties with rr and sticky; chosen by name")
