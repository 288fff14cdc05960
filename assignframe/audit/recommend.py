"""Which strategy to recommend for a group, and why (the rule docs/audit.md documents).

Candidates: replays that succeeded, settled, and produced a valid assignment, and that every
member's client can run (:mod:`assignframe.audit.clients`; a consumer-protocol group's candidates
are the broker's assignors). A strategy that gives a partition to several members
(``owners_per_partition`` > 1, e.g. ``redundant``) changes what the group does, so it is only a
candidate for a group already running it.

Among candidates, lowest first, compared in this order:

1. ``spread``: max - min partitions per member (KIP-54's balance, as people read it);
2. ``idle_members``: members left without partitions;
3. ``balance_score``: KIP-54's sum of pairwise differences;
4. ``lag_spread``: max - min total lag per member (only when lags are known);
5. ``partitions_moved``: partitions that change owner from the current assignment;
6. ``rounds``: rebalance rounds needed (cooperative follow-ups count).

A tie (equal on all six) never falls to the name. It goes, in this order, to: the group's current
strategy (no migration); the clients' default strategy; for a consumer-protocol group, the
broker's assignor order (``uniform``, then ``range``); the order the strategies were replayed in.

The reason names the recommended strategy's numbers next to the current ones, then the criterion
on which it beat the runner-up, or that it is a tie, with which strategies, and what broke it. A
strategy that would have won but some member's client cannot run is named, with the adapter it
would need where one exists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .rerun import StrategyOutcome

__all__ = ["CRITERIA", "Recommendation", "TieBreak", "recommend"]

#: (metrics key, how the reason names it), in the order they are compared.
CRITERIA: tuple[tuple[str, str], ...] = (
    ("spread", "max-min partitions per member"),
    ("idle_members", "idle members"),
    ("balance_score", "balance score"),
    ("lag_spread", "lag spread"),
    ("partitions_moved", "partitions moved"),
    ("rounds", "rounds"),
)


@dataclass(frozen=True)
class TieBreak:
    """What decides between candidates equal on every criterion, and what excludes some.

    :param current: the strategy the group runs now (a consumer-protocol group: the qualified
        server assignor the coordinator runs)
    :param client_default: the clients' default strategy and whose it is (``("range", "Java")``)
    :param broker_order: the broker's assignors in its preference order (consumer groups)
    :param cannot_run: strategy -> who cannot run it (None: every member can)
    """

    current: str | None = None
    client_default: tuple[str, str] | None = None
    broker_order: tuple[str, ...] = ()
    cannot_run: Callable[[str], str | None] = field(default=lambda name: None)


@dataclass(frozen=True)
class Recommendation:
    strategy: str | None
    reason: str
    tie: bool = False


def recommend(
    outcomes: Sequence[StrategyOutcome],
    current: dict[str, Any],
    protocol: str | None,
    ties: TieBreak | None = None,
) -> Recommendation:
    """Pick the best replay of one group (see the module docstring for the rule)."""
    ties = ties or TieBreak(current=protocol)
    order = {o.strategy: i for i, o in enumerate(outcomes)}
    # Each candidate's criteria and tie key, worked out once (compared many times below).
    measured = {id(o): _metrics(o) for o in outcomes if _eligible(o, protocol)}
    keys = {
        id(o): measured[id(o)] + _tie_key(o.strategy, ties, order)
        for o in outcomes
        if id(o) in measured
    }

    def key(outcome: StrategyOutcome) -> tuple[Any, ...]:
        return keys[id(outcome)]

    def criteria(outcome: StrategyOutcome) -> tuple[int, ...]:
        return measured[id(outcome)]

    valid = sorted((o for o in outcomes if id(o) in measured), key=key)
    runnable = [o for o in valid if ties.cannot_run(o.strategy) is None]
    if not runnable:
        why = "no strategy produced a valid, settled assignment"
        if valid:
            why = (
                "no strategy every member's client can run produced a valid assignment "
                f"({valid[0].strategy}: {_excluded(valid[0], ties)})"
            )
        return Recommendation(None, why)
    best = runnable[0]
    reason = _describe(best, current)
    tie = len(runnable) > 1 and criteria(runnable[1]) == criteria(best)
    if len(runnable) > 1:
        reason += "; " + _beats(best, runnable[1:], ties, criteria)
    better = [o for o in valid if key(o) < key(best) and criteria(o) != criteria(best)]
    if better:
        winner = better[0]
        reason += (
            f"; {winner.strategy} would do better on {_first_difference(winner, best)} but "
            f"{_excluded(winner, ties)}"
        )
    return Recommendation(best.strategy, reason, tie)


def _excluded(outcome: StrategyOutcome, ties: TieBreak) -> str:
    return ties.cannot_run(outcome.strategy) or "every member can run it"


def _eligible(outcome: StrategyOutcome, protocol: str | None) -> bool:
    if outcome.error or outcome.metrics is None or not outcome.settled:
        return False
    single_owner = outcome.owners_per_partition == 1 or outcome.strategy == protocol
    return bool(outcome.metrics["valid"]) and single_owner


def _tie_key(strategy: str, ties: TieBreak, order: dict[str, int]) -> tuple[Any, ...]:
    default = ties.client_default[0] if ties.client_default else None
    broker = ties.broker_order.index(strategy) if strategy in ties.broker_order else len(
        ties.broker_order
    )
    return (strategy != ties.current, strategy != default, broker, order.get(strategy, 0))


def _value(outcome: StrategyOutcome, key: str) -> int:
    value = (outcome.metrics or {}).get(key)
    return value if isinstance(value, int) else 0


def _describe(best: StrategyOutcome, current: dict[str, Any]) -> str:
    m = best.metrics or {}
    text = (
        f"max-min {m['spread']} (now {current.get('spread')}), "
        f"{m['idle_members']} idle (now {current.get('idle_members')}), "
        f"moves {m['partitions_moved']} partitions in {m['rounds']} round(s)"
    )
    if m.get("lag_spread") is not None:
        text += f", lag spread {m['lag_spread']:,} (now {current.get('lag_spread'):,})"
    return text


def _first_difference(ours: StrategyOutcome, theirs: StrategyOutcome) -> str:
    for key, label in CRITERIA:
        a, b = _value(ours, key), _value(theirs, key)
        if a != b:
            return f"{label} ({a} vs {b})"
    return "equal"


def _beats(
    best: StrategyOutcome,
    others: Sequence[StrategyOutcome],
    ties: TieBreak,
    criteria: Callable[[StrategyOutcome], tuple[int, ...]],
) -> str:
    """How ``best`` won: the first criterion it beat the runner-up on, or the tie and what
    broke it (``criteria``: each outcome's :func:`_metrics`)."""
    runner_up = others[0]
    if criteria(runner_up) != criteria(best):
        return f"beats {runner_up.strategy} on {_first_difference(best, runner_up)}"
    tied = [o.strategy for o in others if criteria(o) == criteria(best)]
    names = tied[0] if len(tied) == 1 else f"{', '.join(tied[:-1])} and {tied[-1]}"
    return f"a tie with {names} on every metric; {_tie_reason(best.strategy, ties)}"


def _tie_reason(strategy: str, ties: TieBreak) -> str:
    if strategy == ties.current:
        return "keeps the group's current strategy"
    if ties.client_default and strategy == ties.client_default[0]:
        return f"{strategy} is the default of {ties.client_default[1]}"
    if strategy in ties.broker_order[:1]:
        return f"{strategy} is the broker's default assignor"
    return "first in the order the strategies were replayed"


def _metrics(outcome: StrategyOutcome) -> tuple[int, ...]:
    """The outcome's value of each of :data:`CRITERIA` (0 where not a number), in order."""
    metrics = outcome.metrics or {}
    return tuple(
        value if isinstance(value, int) else 0
        for value in map(metrics.get, _CRITERIA_KEYS)
    )


_CRITERIA_KEYS = tuple(key for key, _ in CRITERIA)
