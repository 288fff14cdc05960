"""The audit's output rows: one per (group, strategy), flat, identical on every engine.

``COLUMNS`` is the single definition of the schema; the Parquet (pyarrow) and Spark schemas are
derived from it. Column meanings: docs/audit.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..snapshot import GroupSnapshot, snapshot_metrics
from .recommend import Recommendation
from .rerun import StrategyOutcome

__all__ = ["COLUMNS", "badness", "current_metrics", "group_rows"]

#: (name, type) with type one of "string", "int", "bool"; every column is nullable.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("input_row", "int"),
    ("group_id", "string"),
    ("generation", "int"),
    ("protocol", "string"),
    ("members", "int"),
    ("topics", "int"),
    ("partitions", "int"),
    ("current_valid", "bool"),
    ("current_problems", "string"),
    ("current_problem_count", "int"),
    ("current_balance_score", "int"),
    ("current_spread", "int"),
    ("current_idle_members", "int"),
    ("current_lag_spread", "int"),
    ("strategy", "string"),
    ("error", "string"),
    ("note", "string"),
    ("valid", "bool"),
    ("balance_score", "int"),
    ("spread", "int"),
    ("idle_members", "int"),
    ("partitions_moved", "int"),
    ("partitions_kept", "int"),
    ("lag_spread", "int"),
    ("rounds", "int"),
    ("settled", "bool"),
    ("owners_per_partition", "int"),
    ("recommended", "bool"),
    ("recommendation", "string"),
    ("reason", "string"),
    ("group_type", "string"),
    ("upgrade_refused", "bool"),
    ("upgrade_refusal", "string"),
)
COLUMN_NAMES = tuple(name for name, _ in COLUMNS)


def current_metrics(snapshot: GroupSnapshot) -> dict[str, Any]:
    """Validity and metrics of the assignment the group has now (the core's one record)."""
    return snapshot_metrics(snapshot).as_dict()


def badness(row: dict[str, Any]) -> tuple[int, int, int, int]:
    """How bad a group is now, worst highest: problems, spread, idle members, balance score."""
    return (
        row["current_problem_count"] or 0,
        row["current_spread"] or 0,
        row["current_idle_members"] or 0,
        row["current_balance_score"] or 0,
    )


def group_rows(
    input_row: int,
    snapshot: GroupSnapshot,
    current: dict[str, Any],
    outcomes: Sequence[StrategyOutcome],
    recommendation: Recommendation,
    migration: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """One row per strategy, each repeating the group's columns (and the migration verdict of
    a classic group: would an online upgrade be refused, and why)."""
    base = _group_columns(input_row, snapshot, current, recommendation) | {
        "group_type": snapshot.group_type,
        "upgrade_refused": None if migration is None else migration["upgrade_refused"],
        "upgrade_refusal": None if migration is None else migration["refusal"],
    }
    return [base | _strategy_columns(o, recommendation) for o in outcomes]


def _group_columns(
    input_row: int, snapshot: GroupSnapshot, current: dict[str, Any], recommendation: Recommendation
) -> dict[str, Any]:
    topics = {t for m in snapshot.members.values() for t in m.topics}
    return {
        "input_row": input_row,
        "group_id": snapshot.group_id,
        "generation": snapshot.generation,
        "protocol": snapshot.protocol,
        "members": len(snapshot.members),
        "topics": len(topics),
        "partitions": sum(snapshot.cluster.partitions_per_topic.get(t, 0) for t in topics),
        "current_valid": current["valid"],
        "current_problems": current["problems"],
        "current_problem_count": current["problem_count"],
        "current_balance_score": current["balance_score"],
        "current_spread": current["spread"],
        "current_idle_members": current["idle_members"],
        "current_lag_spread": current["lag_spread"],
        "recommendation": recommendation.strategy,
        "reason": recommendation.reason,
    }


def _strategy_columns(outcome: StrategyOutcome, recommendation: Recommendation) -> dict[str, Any]:
    m = outcome.metrics or {}
    return {
        "strategy": outcome.strategy,
        "error": outcome.error,
        "note": outcome.note,
        "valid": m.get("valid"),
        "balance_score": m.get("balance_score"),
        "spread": m.get("spread"),
        "idle_members": m.get("idle_members"),
        "partitions_moved": m.get("partitions_moved"),
        "partitions_kept": m.get("partitions_kept"),
        "lag_spread": m.get("lag_spread"),
        "rounds": m.get("rounds"),
        "settled": outcome.settled if outcome.error is None else None,
        "owners_per_partition": outcome.owners_per_partition if outcome.error is None else None,
        "recommended": outcome.strategy == recommendation.strategy,
    }
