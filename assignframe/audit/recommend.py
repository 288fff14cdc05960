"""Which strategy to recommend for a group, and why (the rule docs/audit.md documents).

Candidates: replays that succeeded, settled, and produced a valid assignment. A strategy that
gives a partition to several members (``owners_per_partition`` > 1, e.g. ``redundant``) changes
what the group does, so it is only a candidate for a group already running it.

Among candidates, lowest first, compared in this order:

1. ``spread``: max - min partitions per member (KIP-54's balance, as people read it);
2. ``idle_members``: members left without partitions;
3. ``balance_score``: KIP-54's sum of pairwise differences;
4. ``lag_spread``: max - min total lag per member (only when lags are known);
5. ``partitions_moved``: partitions that change owner from the current assignment;
6. ``rounds``: rebalance rounds needed (cooperative follow-ups count);
7. keeping the group's current strategy (no migration) over switching;
8. the strategy name (so the choice is deterministic).

The reason names the recommended strategy's numbers next to the current ones, and the first
criterion on which it beat the runner-up, or every strategy it ties with on all of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .rerun import StrategyOutcome

__all__ = ["CRITERIA", "Recommendation", "recommend"]

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
class Recommendation:
    strategy: str | None
    reason: str


def recommend(
    outcomes: Sequence[StrategyOutcome], current: dict[str, Any], protocol: str | None
) -> Recommendation:
    """Pick the best replay of one group (see the module docstring for the rule)."""
    candidates = sorted(
        (o for o in outcomes if _eligible(o, protocol)), key=lambda o: _key(o, protocol)
    )
    if not candidates:
        return Recommendation(None, "no strategy produced a valid, settled assignment")
    best = candidates[0]
    reason = _describe(best, current)
    if len(candidates) > 1:
        reason += "; " + _beats(best, candidates[1:], protocol)
    return Recommendation(best.strategy, reason)


def _eligible(outcome: StrategyOutcome, protocol: str | None) -> bool:
    if outcome.error or outcome.metrics is None or not outcome.settled:
        return False
    single_owner = outcome.owners_per_partition == 1 or outcome.strategy == protocol
    return bool(outcome.metrics["valid"]) and single_owner


def _value(outcome: StrategyOutcome, key: str) -> int:
    value = (outcome.metrics or {}).get(key)
    return value if isinstance(value, int) else 0


def _key(outcome: StrategyOutcome, protocol: str | None) -> tuple[Any, ...]:
    return _metrics(outcome) + (outcome.strategy != protocol, outcome.strategy)


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


def _beats(best: StrategyOutcome, others: Sequence[StrategyOutcome], protocol: str | None) -> str:
    """How ``best`` won: the first criterion it beat the runner-up on, or every strategy it ties
    with on all of them and what broke the tie."""
    runner_up = others[0]
    for key, label in CRITERIA:
        ours, theirs = _value(best, key), _value(runner_up, key)
        if ours != theirs:
            return f"beats {runner_up.strategy} on {label} ({ours} vs {theirs})"
    tied = [o.strategy for o in others if _metrics(o) == _metrics(best)]
    names = tied[0] if len(tied) == 1 else f"{', '.join(tied[:-1])} and {tied[-1]}"
    if best.strategy == protocol:
        return f"ties with {names}; keeps the group's current strategy"
    return f"ties with {names}; chosen by name"


def _metrics(outcome: StrategyOutcome) -> tuple[int, ...]:
    return tuple(_value(outcome, key) for key, _ in CRITERIA)
