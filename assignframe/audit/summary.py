"""The audit's summary: integer aggregates any engine can compute, then one shared formatter.

Both engines reduce their rows to the same :class:`Aggregates` (sums, counts and maxima), and
:func:`summary_document` turns them into ``summary.json``, so the summaries agree exactly.
Group-level figures come from each group's first row (``first_of_group``): the fleet roll-up of
problems (groups needing attention, by problem, with the first of them named), of the
migration to the consumer protocol (verdicts and why, what uniform and range would move and how
long a partition would wait, summed over the groups whose upgrade is allowed) and of
consumer-protocol groups.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .migration import REFUSAL_KINDS, SERVER_STRATEGIES
from .rows import ATTENTION, badness

__all__ = [
    "ATTENTION_EXAMPLES",
    "Aggregates",
    "AttentionLists",
    "GROUP_SUMS",
    "STRATEGY_SUMS",
    "WorstGroups",
    "run_facts",
    "summary_document",
]

#: How many groups each problem of the roll-up names (the rest are counted; rows.jsonl has all).
ATTENTION_EXAMPLES = 500
#: The group columns a named group of the roll-up carries.
EXAMPLE_COLUMNS = (
    "group_id",
    "input_row",
    "group_type",
    "protocol",
    "clients",
    "current_problems",
    "current_spread",
    "current_idle_members",
    "recommendation",
    "migration_verdict",
    "upgrade_refusal",
)

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
    ("consumer_groups", "group_type", "equals:consumer"),
    ("share_groups", "group_type", "equals:share"),
    ("streams_groups", "group_type", "equals:streams"),
    ("invalid_groups", "current_valid", "is_false"),
    ("groups_with_idle", "current_idle_members", "positive"),
    ("idle_members", "current_idle_members", "sum"),
    ("spread_sum", "current_spread", "sum"),
    ("balance_score_sum", "current_balance_score", "sum"),
    ("no_recommendation", "recommendation", "is_null"),
    ("recommended_on_a_tie", "recommendation_tie", "is_true"),
    ("needing_attention", "attention", "not_empty"),
    *((f"attention_{key}", "attention", f"has:{key}") for key, _ in ATTENTION),
    ("classic_groups", "group_type", "equals:classic"),
    ("migration_allowed", "migration_verdict", "equals:allowed"),
    ("migration_refused", "migration_verdict", "equals:refused"),
    *((f"refused_{key}", f"refused_{key}", "is_true") for key, _ in REFUSAL_KINDS),
    ("groups_with_unknown_clients", "unknown_clients", "positive"),
    *(
        item
        for name in SERVER_STRATEGIES
        for prefix in [name.split(":")[-1]]
        for item in (
            (f"{prefix}_moved", f"{prefix}_moved", "sum_allowed"),
            (f"{prefix}_invalid", f"{prefix}_valid", "is_false_allowed"),
            (f"{prefix}_max_unowned_ms", f"{prefix}_max_unowned_ms", "max_allowed"),
        )
    ),
)


def contribution(value: Any, how: str, row: Mapping[str, Any] | None = None) -> int:
    """How much one row's value adds to a sum of kind ``how`` (``*_allowed`` kinds count only
    groups whose upgrade is allowed: a refused group's prediction did not happen)."""
    if how.endswith("_allowed"):
        if (row or {}).get("migration_verdict") != "allowed":
            return 0
        how = how.removesuffix("_allowed")
    if how == "count":
        return 1
    if how == "not_null":
        return int(value is not None)
    if how == "not_empty":
        return int(bool(value))
    if how == "is_null":
        return int(value is None)
    if how == "is_false":
        return int(value is False)
    if how == "is_true":
        return int(value is True)
    if how == "positive":
        return int(bool(value) and value > 0)
    if how.startswith("equals:"):
        return int(value == how.partition(":")[2])
    if how.startswith("has:"):
        return int(how.partition(":")[2] in (value or "").split(","))
    return int(value or 0)


def combine(total: int, value: int, how: str) -> int:
    """Fold one row's contribution into a running figure (a maximum, or a sum)."""
    return max(total, value) if how.startswith("max") else total + value


@dataclass
class Aggregates:
    """Sums and counts over the rows; what both engines compute."""

    strategies: Sequence[str]
    per_strategy: dict[str, dict[str, int]] = field(default_factory=dict)
    current: dict[str, int] = field(default_factory=dict)
    malformed: int = 0
    malformed_examples: list[tuple[int, str]] = field(default_factory=list)
    switches: Counter[tuple[str, str]] = field(default_factory=Counter)

    def add_rows(self, rows: Iterable[dict[str, Any]]) -> None:
        for row in rows:
            sums = self.per_strategy.setdefault(row["strategy"], {})
            for key, column, how in STRATEGY_SUMS:
                sums[key] = sums.get(key, 0) + contribution(row[column], how)
            if row["first_of_group"]:
                for key, column, how in GROUP_SUMS:
                    value = contribution(row[column], how, row)
                    self.current[key] = combine(self.current.get(key, 0), value, how)
                if row["recommendation"] not in (None, row["current_strategy"]):
                    self.switches[(str(row["current_strategy"]), row["recommendation"])] += 1

    def add_malformed(self, malformed: Iterable[tuple[int, str]], keep: int = 20) -> None:
        for item in malformed:
            self.malformed += 1
            if len(self.malformed_examples) < keep:
                self.malformed_examples.append(item)


class WorstGroups:
    """The N worst groups needing attention so far (a bounded heap of (badness, -input_row));
    a group with nothing to attend to is never among them."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._heap: list[tuple[tuple[int, ...], int]] = []

    def add_rows(self, rows: Iterable[dict[str, Any]]) -> None:
        for row in rows:
            if row["first_of_group"] and row["attention"] and self.limit:
                item = (badness(row), -row["input_row"])
                if len(self._heap) < self.limit:
                    heapq.heappush(self._heap, item)
                else:
                    heapq.heappushpop(self._heap, item)

    def input_rows(self) -> list[int]:
        """Worst first; ties by input order."""
        return [-neg_row for _, neg_row in sorted(self._heap, reverse=True)]


class AttentionLists:
    """The first :data:`ATTENTION_EXAMPLES` groups (input order) of each problem."""

    def __init__(self, limit: int = ATTENTION_EXAMPLES) -> None:
        self.limit = limit
        self.groups: dict[str, list[dict[str, Any]]] = {key: [] for key, _ in ATTENTION}

    def add_rows(self, rows: Iterable[dict[str, Any]]) -> None:
        for row in rows:
            if not row["first_of_group"] or not row["attention"]:
                continue
            for key in row["attention"].split(","):
                named = self.groups.setdefault(key, [])
                if len(named) < self.limit:
                    named.append({column: row[column] for column in EXAMPLE_COLUMNS})

    def sorted(self) -> dict[str, list[dict[str, Any]]]:
        """Each problem's groups in input order (engines may see chunks out of order)."""
        return {k: sorted(v, key=lambda g: g["input_row"]) for k, v in self.groups.items()}


def _mean(total: int, count: int) -> float | None:
    return round(total / count, 4) if count else None


def summary_document(
    aggregates: Aggregates,
    worst_groups: list[dict[str, Any]],
    run: dict[str, Any],
    attention: Mapping[str, list[dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """``summary.json``: run facts, the fleet roll-up (problems, migration), group-level
    figures, per-strategy figures, worst groups (docs/audit.md)."""
    figures = dict(aggregates.current)
    groups = figures.get("groups", 0)
    names = list(aggregates.strategies)
    names += [n for n in aggregates.per_strategy if n not in names]  # server assignors
    strategies = {name: _strategy_figures(aggregates.per_strategy.get(name, {})) for name in names}
    return {
        **run,
        "groups": groups,
        "consumer_groups": figures.get("consumer_groups", 0),
        "share_groups": figures.get("share_groups", 0),
        "streams_groups": figures.get("streams_groups", 0),
        "group_types": _group_types(figures, groups),
        "malformed": aggregates.malformed,
        "malformed_examples": [
            {"line": line, "error": error} for line, error in aggregates.malformed_examples
        ],
        "attention": _attention(figures, attention or {}),
        "migration": _migration(figures),
        "strategy_names": names,
        "current": _current(figures, groups),
        "strategies": strategies,
        "recommendations": {n: s["recommended"] for n, s in strategies.items()},
        "recommended_on_a_tie": figures.get("recommended_on_a_tie", 0),
        "switches": [
            {"from": old, "to": new, "groups": n}
            for (old, new), n in sorted(aggregates.switches.items(), key=lambda i: (-i[1], i[0]))
        ],
        "worst_groups": worst_groups,
    }


def _strategy_figures(sums: Mapping[str, int]) -> dict[str, Any]:
    ok = sums.get("groups", 0) - sums.get("errors", 0)
    kept = ("groups", "errors", "with_note", "invalid", "recommended", "groups_with_idle",
            "idle_members", "partitions_moved")
    return {
        **{k: sums.get(k, 0) for k in kept},
        "mean_balance_score": _mean(sums.get("balance_score_sum", 0), ok),
        "mean_spread": _mean(sums.get("spread_sum", 0), ok),
        "mean_rounds": _mean(sums.get("rounds", 0), ok),
    }


def _current(figures: Mapping[str, int], groups: int) -> dict[str, Any]:
    kept = ("groups", "invalid_groups", "groups_with_idle", "idle_members", "no_recommendation")
    return {
        **{k: figures.get(k, 0) for k in kept},
        "mean_spread": _mean(figures.get("spread_sum", 0), groups),
        "mean_balance_score": _mean(figures.get("balance_score_sum", 0), groups),
    }


def _attention(
    figures: Mapping[str, int], named: Mapping[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    return {
        "groups": figures.get("needing_attention", 0),
        "problems": {
            key: {
                "label": label,
                "groups": figures.get(f"attention_{key}", 0),
                "named": named.get(key, []),
            }
            for key, label in ATTENTION
        },
    }


def _migration(figures: Mapping[str, int]) -> dict[str, Any]:
    return {
        "classic_groups": figures.get("classic_groups", 0),
        "allowed": figures.get("migration_allowed", 0),
        "refused": figures.get("migration_refused", 0),
        "refused_for": {
            key: {"label": label, "groups": figures.get(f"refused_{key}", 0)}
            for key, label in REFUSAL_KINDS
        },
        "groups_with_unknown_clients": figures.get("groups_with_unknown_clients", 0),
        "server_assignor": SERVER_STRATEGIES[0],
        "predicted": {
            name: {
                "partitions_moved": figures.get(f"{prefix}_moved", 0),
                "invalid": figures.get(f"{prefix}_invalid", 0),
                "max_unowned_ms": figures.get(f"{prefix}_max_unowned_ms", 0),
            }
            for name in SERVER_STRATEGIES
            for prefix in [name.split(":")[-1]]
        },
    }


def run_facts(
    engine: str, input_path: Any, elapsed: float, aggregates: Aggregates, older: int,
    **engine_facts: Any,
) -> dict[str, Any]:
    """The summary's ``run`` section: how the audit ran (either engine; ``engine_facts`` are the
    engine's own, e.g. its processes or its Spark master) and how fast."""
    groups = aggregates.current.get("groups", 0) + aggregates.malformed
    return {
        "older_generations_skipped": older,
        "engine": engine,
        "input": str(input_path),
        **engine_facts,
        "elapsed_seconds": round(elapsed, 3),
        "groups_per_second": round(groups / elapsed, 1) if groups and elapsed > 0 else None,
    }


def _group_types(figures: Mapping[str, Any], groups: int) -> dict[str, int]:
    """Group type -> groups audited (classic: the rest)."""
    counted = {t: figures.get(f"{t}_groups", 0) for t in ("consumer", "share", "streams")}
    return {"classic": groups - sum(counted.values()), **counted}
