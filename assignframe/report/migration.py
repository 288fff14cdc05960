"""What the report shows of the consumer protocol: a classic group's migration prediction and
the hand-over times of consumer-protocol simulation steps.

Inputs: the ``migration`` of an audit group detail (docs/audit.md) and the simulation steps'
``group_type``, ``unowned_partitions`` and ``max_unowned_ms`` (docs/simulate.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import visuals
from .page import ReportPage, escape
from .tables import METRIC_COLUMNS, metrics_row, table

__all__ = ["migration_card", "unowned_cell", "unowned_chart"]


def migration_card(page: ReportPage, group: Mapping[str, Any]) -> str:
    """A classic group's migration verdict ("" for a consumer group or an older detail).

    A refused upgrade says why, and its prediction is headed as what would happen once the
    causes are fixed; an invalid predicted target is said invalid, never "0 moved"."""
    migration = group.get("migration")
    if not migration:
        return ""
    refused = migration.get("upgrade_refused")
    if refused:
        verdict = f'<p class="problems">{escape(migration.get("refusal"))}</p>'
        intro = (
            '<p class="muted hypothetical">Not what happens now (the upgrade does not happen): '
            "what it would do once the causes above are fixed.</p>"
        )
    else:
        verdict = (
            '<p class="ok">Online upgrade to the consumer protocol is allowed; the broker would '
            f"choose <b>{escape(migration.get('server_assignor'))}</b>.</p>"
        )
        intro = ""
    unknown = migration.get("unknown_clients") or []
    if unknown:
        verdict += (
            f'<p class="muted">Client not identified for {escape(", ".join(unknown[:5]))}: '
            "check that it speaks the consumer protocol.</p>"
        )
    current = group.get("current") or {}
    predicted = migration.get("predicted") or []
    rows = [_row(f"now ({migration.get('current_strategy') or '?'})", current.get("metrics"))]
    rows += [_row(p["assignor"], p.get("metrics"), p) for p in predicted]
    valid = [p for p in predicted if p.get("valid")]
    moved = visuals.bars(
        f"group {group.get('group_id')}: partitions moved by migrating"
        + (" (if the refusal were fixed)" if refused else ""),
        [p["assignor"] for p in predicted],
        {"moved": [p.get("partitions_moved") if p in valid else None for p in predicted]},
        counts=True,
        when_all_zero="Migrating moves no partition under either server assignor.",
    )
    headers = ["assignment"] + [h for _, h in METRIC_COLUMNS] + ["longest unowned (s)"]
    return (
        '<div class="migration"><h4>Migration to the consumer protocol (KIP-848)</h4>'
        f"{verdict}{intro}{table(headers, rows, css_class='migration')}"
        f"{page.visual(moved)}</div>"
    )


def _row(name: str, metrics: Mapping[str, Any] | None, predicted: Mapping[str, Any] | None = None
         ) -> list[Any]:
    """A metrics row; an invalid predicted target shows why instead of a movement count."""
    row = metrics_row(name, metrics)
    if predicted is None:
        return row + ["–"]
    if predicted.get("error"):
        return [name, f"error: {predicted['error']}"] + ["–"] * (len(row) - 1)
    if not predicted.get("valid"):
        moved = [key for key, _ in METRIC_COLUMNS].index("partitions_moved") + 1
        row[moved] = f"invalid: {(metrics or {}).get('problems')}"
        return row + ["–"]
    wait = predicted.get("max_unowned_ms")
    return row + ["–" if wait is None else wait / 1000]  # None: the hand-over was not played


def unowned_cell(step: Mapping[str, Any]) -> str:
    """``8 (max 8.75 s)`` for a consumer-protocol step, "-" for a classic one."""
    if step.get("group_type") != "consumer":
        return "-"
    return (
        f"{step.get('unowned_partitions', 0)} (max {(step.get('max_unowned_ms') or 0) / 1000:g} s)"
    )


def unowned_chart(runs: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Longest time a partition had no owner, per step (None when no step is consumer-protocol)."""
    steps = [s for r in runs for s in r["steps"]]
    if not any(s.get("group_type") == "consumer" for s in steps):
        return None
    labels = [step["name"] for step in runs[0]["steps"]]
    series = {r["label"]: [(s.get("max_unowned_ms") or 0) / 1000 for s in r["steps"]] for r in runs}
    return visuals.lines(
        "Hand-over: longest time a partition had no owner (s)",
        labels,
        series,
        "seconds",
        when_all_zero="No partition was ever without an owner.",
    )
