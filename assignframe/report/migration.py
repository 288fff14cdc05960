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
    """A classic group's migration section ("" for a consumer group or an older detail)."""
    migration = group.get("migration")
    if not migration:
        return ""
    if migration.get("upgrade_refused"):
        verdict = f'<p class="problems">{escape(migration.get("refusal"))}</p>'
    else:
        verdict = (
            '<p class="ok">Online upgrade to the consumer protocol is allowed; the broker would '
            f"choose <b>{escape(migration.get('server_assignor'))}</b>.</p>"
        )
    current = group.get("current") or {}
    rows = [
        metrics_row(f"now ({migration.get('current_strategy') or '?'})", current.get("metrics"))
    ]
    rows += [metrics_row(p["assignor"], p.get("metrics")) for p in migration.get("predicted") or []]
    predicted = [p for p in migration.get("predicted") or [] if p.get("metrics")]
    moved = visuals.bars(
        f"group {group.get('group_id')}: partitions moved by migrating",
        [p["assignor"] for p in predicted],
        {"moved": [p["metrics"].get("partitions_moved") for p in predicted]},
        counts=True,
        when_all_zero="Migrating moves no partition under either server assignor.",
    )
    headers = ["assignment"] + [h for _, h in METRIC_COLUMNS]
    return (
        '<div class="migration"><h4>Migration to the consumer protocol (KIP-848)</h4>'
        f"{verdict}{table(headers, rows, css_class='migration')}{page.visual(moved)}</div>"
    )


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
