"""The audit's summary: integer aggregates any engine can compute, then one shared formatter.

Both engines reduce their rows to the same :class:`Aggregates` (sums and counts only), and
:func:`summary_document` turns them into ``summary.json``, so the summaries agree exactly.
Group-level figures come from each group's first strategy row.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .rows import badness

__all__ = ["Aggregates", "STRATEGY_SUMS", "WorstGroups", "summary_document"]

#: per-strategy sums: (output key, row column, how a row counts)
STRATEGY_SUMS: tuple[tuple[str, str, str], ...] = (
    ("groups", "strategy", "count"),
    ("errors", "error", "not_null"),
    ("with_note", "note", "not_null"),
    ("invalid", "valid", "is_false"),
    ("recommended", "recommended", "is_true"),
    ("balance_score_sum", "balance_score", "sum"),
    ("spread_sum", "spread", "sum"),
    ("groups_with_idle", "idle_members", "positive"),
    ("idle_members", "idle_members", "sum"),
    ("partitions_moved", "partitions_moved", "sum"),
    ("rounds", "rounds", "sum"),
)

#: group-level sums over each group's first row: (output key, row column, how a row counts)
GROUP_SUMS: tuple[tuple[str, str, str], ...] = (
    ("groups", "group_id", "count"),
    ("invalid_groups", "current_valid", "is_false"),
    ("groups_with_idle", "current_idle_members", "positive"),
    ("idle_members", "current_idle_members", "sum"),
    ("spread_sum", "current_spread", "sum"),
    ("balance_score_sum", "current_balance_score", "sum"),
    ("no_recommendation", "recommendation", "is_null"),
)


def contribution(value: Any, how: str) -> int:
    """How much one row's value adds to a sum of kind ``how``."""
    if how == "count":
        return 1
    if how == "not_null":
        return int(value is not None)
    if how == "is_null":
        return int(value is None)
    if how == "is_false":
        return int(value is False)
    if how == "is_true":
        return int(value is True)
    if how == "positive":
        return int(bool(value) and value > 0)
    return int(value or 0)


@dataclass
class Aggregates:
    """Sums and counts over the rows; what both engines compute."""

    strategies: Sequence[str]
    per_strategy: dict[str, dict[str, int]] = field(default_factory=dict)
    current: dict[str, int] = field(default_factory=dict)
    malformed: int = 0
    malformed_examples: list[tuple[int, str]] = field(default_factory=list)

    def add_rows(self, rows: Iterable[dict[str, Any]]) -> None:
        first = self.strategies[0] if self.strategies else None
        for row in rows:
            sums = self.per_strategy.setdefault(row["strategy"], {})
            for key, column, how in STRATEGY_SUMS:
                sums[key] = sums.get(key, 0) + contribution(row[column], how)
            if row["strategy"] == first:
                for key, column, how in GROUP_SUMS:
                    self.current[key] = self.current.get(key, 0) + contribution(row[column], how)

    def add_malformed(self, malformed: Iterable[tuple[int, str]], keep: int = 20) -> None:
        for item in malformed:
            self.malformed += 1
            if len(self.malformed_examples) < keep:
                self.malformed_examples.append(item)


class WorstGroups:
    """The N worst groups so far (a bounded heap of (badness, -input_row))."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._heap: list[tuple[tuple[int, ...], int]] = []

    def add_rows(self, rows: Iterable[dict[str, Any]], first_strategy: str) -> None:
        for row in rows:
            if row["strategy"] == first_strategy and self.limit:
                item = (badness(row), -row["input_row"])
                if len(self._heap) < self.limit:
                    heapq.heappush(self._heap, item)
                else:
                    heapq.heappushpop(self._heap, item)

    def input_rows(self) -> list[int]:
        """Worst first; ties by input order."""
        return [-neg_row for _, neg_row in sorted(self._heap, reverse=True)]


def _mean(total: int, count: int) -> float | None:
    return round(total / count, 4) if count else None


def summary_document(
    aggregates: Aggregates, worst_groups: list[dict[str, Any]], run: dict[str, Any]
) -> dict[str, Any]:
    """``summary.json``: run facts, group-level figures, per-strategy figures, worst groups."""
    groups = aggregates.current.get("groups", 0)
    strategies = {}
    for name in aggregates.strategies:
        sums = aggregates.per_strategy.get(name, {})
        ok = sums.get("groups", 0) - sums.get("errors", 0)
        strategies[name] = {
            **{
                k: sums.get(k, 0)
                for k in (
                    "groups",
                    "errors",
                    "with_note",
                    "invalid",
                    "recommended",
                    "groups_with_idle",
                    "idle_members",
                    "partitions_moved",
                )
            },
            "mean_balance_score": _mean(sums.get("balance_score_sum", 0), ok),
            "mean_spread": _mean(sums.get("spread_sum", 0), ok),
            "mean_rounds": _mean(sums.get("rounds", 0), ok),
        }
    current: dict[str, Any] = dict(aggregates.current)
    current["mean_spread"] = _mean(current.pop("spread_sum", 0), groups)
    current["mean_balance_score"] = _mean(current.pop("balance_score_sum", 0), groups)
    return {
        **run,
        "groups": groups,
        "malformed": aggregates.malformed,
        "malformed_examples": [
            {"line": line, "error": error} for line, error in aggregates.malformed_examples
        ],
        "strategy_names": list(aggregates.strategies),
        "current": current,
        "strategies": strategies,
        "recommendations": {n: s["recommended"] for n, s in strategies.items()},
        "worst_groups": worst_groups,
    }
