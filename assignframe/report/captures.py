"""Decoded captures: one card per group, one heatmap view per generation.

Input: snapshots as ``assignframe.audit`` reads them from ``assignframe decode --json`` output,
summarised by :func:`assignframe.audit.snapshot_view` (group_id, generation, protocol, leader,
members, partitions, assignment, metrics, problems) plus the ``source`` file name.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from . import visuals
from .groups import METRIC_COLUMNS
from .page import ReportPage, escape
from .tables import table

__all__ = ["add_capture_section"]


def add_capture_section(page: ReportPage, snapshots: Sequence[Mapping[str, Any]]) -> None:
    """Add a "Captured groups" section (nothing when there are no snapshots)."""
    by_group: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for snapshot in snapshots:
        by_group[(snapshot.get("source", ""), snapshot["group_id"])].append(snapshot)
    if by_group:
        body = "".join(_group_card(page, src, gid, snaps) for (src, gid), snaps in by_group.items())
        page.add_section("captures", f"Captured groups ({len(by_group)})", body)


def _group_card(page: ReportPage, source: str, group_id: str, snapshots: list) -> str:
    snapshots = sorted(snapshots, key=lambda s: s.get("generation") or 0)
    members = sorted({m for s in snapshots for m in s.get("members") or []})
    views = [(f"generation {s.get('generation')}", s.get("assignment") or {}) for s in snapshots]
    spec = visuals.heatmap(f"{group_id} ({source})", members, views)
    spec["views"].reverse()  # the latest generation first
    rows = [_row(s) for s in snapshots]
    headers = ["generation", "protocol", "leader", "members"] + [h for _, h in METRIC_COLUMNS[:4]]
    problems = sorted({p for s in snapshots for p in s.get("problems") or []})
    problem_html = "".join(f"<li>{escape(p)}</li>" for p in problems)
    return (
        f'<div class="card capture"><h3>{escape(group_id)} <span class="muted">from '
        f"{escape(source)}</span></h3>"
        + (f'<ul class="problems">{problem_html}</ul>' if problem_html else "")
        + table(headers, rows, css_class="generations")
        + page.visual(spec)
        + "</div>"
    )


def _row(snapshot: Mapping[str, Any]) -> list[Any]:
    metrics = snapshot.get("metrics") or {}
    return [
        snapshot.get("generation"),
        snapshot.get("protocol"),
        snapshot.get("leader"),
        len(snapshot.get("members") or []),
    ] + [metrics.get(key) for key, _ in METRIC_COLUMNS[:4]]
