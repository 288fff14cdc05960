"""The HTML report: one self-contained page (inline CSS, JS and SVG; nothing fetched).

It shows, in order: the fleet summary of an audit, its worst groups (problems, recommendation,
metrics per strategy, members x partitions heatmap, balance and movement charts), simulation
results step by step, and groups decoded from captures. Each part is optional.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .captures import add_capture_section
from .fleet import add_fleet_sections
from .page import ReportPage
from .simulation import add_simulation_section

__all__ = ["ReportPage", "render_report", "write_report"]


def render_report(
    audit_summary: Mapping[str, Any] | None = None,
    simulations: Sequence[Mapping[str, Any]] = (),
    captures: Sequence[Mapping[str, Any]] = (),
    title: str = "assignframe report",
) -> str:
    """The report page as a string."""
    page = ReportPage(title)
    if audit_summary is not None:
        add_fleet_sections(page, audit_summary)
    add_simulation_section(page, simulations)
    add_capture_section(page, captures)
    return page.render()


def write_report(path: str | Path, **parts: Any) -> Path:
    """Render the report (see :func:`render_report`) to ``path``; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(**parts), encoding="utf-8")
    return path
