"""The audit's output rows: one per (group, strategy), flat, identical on every engine.

``COLUMNS`` is the single definition of the schema; the Parquet (pyarrow) and Spark schemas are
derived from it. The group's own columns (:data:`GROUP_COLUMNS`) repeat on each of its rows and
make, alone, its line of ``groups.jsonl`` (and, for classic groups, of ``migration.csv``).
Column meanings: docs/audit.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..server_assignor import server_name
from ..snapshot import GroupSnapshot, snapshot_metrics
from .clients import GroupClients
from .migration import coordinator_assignor
from .recommend import Recommendation
from .rerun import StrategyOutcome

__all__ = [
    "ATTENTION",
    "COLUMNS",
    "GROUP_COLUMNS",
    "MIGRATION_COLUMNS",
    "badness",
    "current_metrics",
    "group_record",
    "group_rows",
    "running_strategy",
    "strategy_columns",
]

#: What makes a group need attention: (key, how the summary and the report name it).
ATTENTION: tuple[tuple[str, str], ...] = (
    ("invalid", "assignment invalid now (a partition unowned, double-owned or misplaced)"),
    ("better_strategy", "a strategy its clients run balances it better"),
    ("upgrade_refused", "upgrade to the consumer protocol refused"),
    ("reconciling", "members still reconciling to their target"),
)

#: (name, type) with type one of "string", "int", "bool"; every column is nullable.
GROUP_COLUMNS: tuple[tuple[str, str], ...] = (
    ("input_row", "int"),
    ("group_id", "string"),
    ("group_type", "string"),
    ("generation", "int"),
    ("protocol", "string"),
    ("current_strategy", "string"),
    ("group_state", "string"),
    ("clients", "string"),
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
    ("reconciling_members", "int"),
    ("recommendation", "string"),
    ("reason", "string"),
    ("recommendation_tie", "bool"),
    ("attention", "string"),
)
#: A classic group's migration verdict and prediction (null for a consumer group).
MIGRATION_COLUMNS: tuple[tuple[str, str], ...] = (
    ("migration_verdict", "string"),
    ("upgrade_refused", "bool"),
    ("upgrade_refusal", "string"),
    ("refused_user_data", "bool"),
    ("refused_shared_partition", "bool"),
    ("refused_client", "bool"),
    ("unknown_clients", "int"),
    ("uniform_valid", "bool"),
    ("uniform_moved", "int"),
    ("uniform_max_unowned_ms", "int"),
    ("range_valid", "bool"),
    ("range_moved", "int"),
    ("range_max_unowned_ms", "int"),
)
STRATEGY_COLUMNS: tuple[tuple[str, str], ...] = (
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
    ("first_of_group", "bool"),  # the group's first row: group-level sums count only these
)
COLUMNS = GROUP_COLUMNS + MIGRATION_COLUMNS + STRATEGY_COLUMNS
COLUMN_NAMES = tuple(name for name, _ in COLUMNS)


def running_strategy(snapshot: GroupSnapshot) -> str | None:
    """What assigns the group now: its strategy, or (consumer protocol) the server assignor the
    coordinator runs, qualified as the audit's strategies are (``server:uniform``)."""
    if snapshot.group_type == "consumer":
        return server_name(coordinator_assignor(snapshot)[0])
    return snapshot.protocol


def current_metrics(snapshot: GroupSnapshot) -> dict[str, Any]:
    """Validity and metrics of the assignment the group has now (the core's one record)."""
    return snapshot_metrics(snapshot).as_dict()


def badness(row: Mapping[str, Any]) -> tuple[int, int, int, int]:
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
    clients: GroupClients | None = None,
) -> list[dict[str, Any]]:
    """One row per strategy, each repeating the group's columns."""
    base = group_record(input_row, snapshot, current, outcomes, recommendation, migration, clients)
    return [
        base | strategy_columns(o, recommendation) | {"first_of_group": i == 0}
        for i, o in enumerate(outcomes)
    ]


def group_record(
    input_row: int,
    snapshot: GroupSnapshot,
    current: dict[str, Any],
    outcomes: Sequence[StrategyOutcome],
    recommendation: Recommendation,
    migration: Mapping[str, Any] | None = None,
    clients: GroupClients | None = None,
) -> dict[str, Any]:
    """The group's own columns (:data:`GROUP_COLUMNS` and :data:`MIGRATION_COLUMNS`)."""
    topics = {t for m in snapshot.members.values() for t in m.topics}
    record = {
        "input_row": input_row,
        "group_id": snapshot.group_id,
        "group_type": snapshot.group_type,
        "generation": snapshot.generation,
        "protocol": snapshot.protocol,
        "current_strategy": running_strategy(snapshot),
        "group_state": snapshot.group_state,
        "clients": clients.describe() if clients else None,
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
        "reconciling_members": None if snapshot.target is None else len(snapshot.reconciling()),
        "recommendation": recommendation.strategy,
        "reason": recommendation.reason,
        "recommendation_tie": recommendation.tie,
    }
    record |= _migration_columns(migration)
    record["attention"] = ",".join(_attention(record, current, outcomes, recommendation))
    return record


def _attention(
    record: Mapping[str, Any],
    current: Mapping[str, Any],
    outcomes: Sequence[StrategyOutcome],
    recommendation: Recommendation,
) -> list[str]:
    """Keys of :data:`ATTENTION` that apply to the group."""
    found = []
    if not current["valid"]:
        found.append("invalid")
    chosen = next((o for o in outcomes if o.strategy == recommendation.strategy), None)
    if chosen is not None and chosen.metrics and _balances_better(chosen.metrics, current):
        found.append("better_strategy")
    if record["upgrade_refused"]:
        found.append("upgrade_refused")
    if record["reconciling_members"]:
        found.append("reconciling")
    return found


def _balances_better(recommended: Mapping[str, Any], current: Mapping[str, Any]) -> bool:
    """Fewer idle members, or a narrower spread (lag spread aside: lag changes by itself)."""
    ours = (recommended.get("idle_members") or 0, recommended.get("spread") or 0)
    now = (current.get("idle_members") or 0, current.get("spread") or 0)
    return ours < now


def _migration_columns(migration: Mapping[str, Any] | None) -> dict[str, Any]:
    if migration is None:
        return {name: None for name, _ in MIGRATION_COLUMNS}
    refused_for = set(migration["refused_for"])
    columns: dict[str, Any] = {
        "migration_verdict": migration["verdict"],
        "upgrade_refused": migration["upgrade_refused"],
        "upgrade_refusal": migration["refusal"],
        "refused_user_data": "user_data" in refused_for,
        "refused_shared_partition": "shared_partition" in refused_for,
        "refused_client": "client" in refused_for,
        "unknown_clients": len(migration["unknown_clients"]),
    }
    for predicted in migration["predicted"]:
        prefix = predicted["assignor"].split(":")[-1]
        columns[f"{prefix}_valid"] = predicted.get("valid")
        # an invalid target's movement means nothing: never "0 moved"
        columns[f"{prefix}_moved"] = predicted.get("partitions_moved") if predicted.get(
            "valid"
        ) else None
        columns[f"{prefix}_max_unowned_ms"] = predicted.get("max_unowned_ms")
    return columns


def strategy_columns(outcome: StrategyOutcome, recommendation: Recommendation) -> dict[str, Any]:
    """A strategy's own columns (:data:`STRATEGY_COLUMNS` but ``first_of_group``)."""
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
