"""The HTML report: self-contained pages (inline CSS, JS and SVG; nothing fetched).

The main page answers an operator first: every group a live pass read, of every type
(:mod:`.live`), the fleet verdict (which groups need attention, what to switch to, whether the
upgrade to the consumer protocol is safe), the groups needing attention, the worst of them in
detail, the fleet's figures per strategy, groups decoded from captures, and a ``watch`` history
as a timeline per group.
Simulations, long step-by-step pages, get a page of their own beside it, linked from the main
one (alone, as ``simulate --html`` writes them, they are the page). Each part is optional.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .captures import add_capture_section
from .fleet import add_fleet_sections
from .live import add_live_section
from .page import ReportPage, escape
from .simulation import add_simulation_section
from .timeline import add_history_section

__all__ = ["ReportPage", "render_report", "simulation_page_path", "write_report"]


def render_report(
    audit_summary: Mapping[str, Any] | None = None,
    simulations: Sequence[Mapping[str, Any]] = (),
    captures: Sequence[Mapping[str, Any]] = (),
    title: str = "assignframe report",
    simulation_link: str | None = None,
    history: Sequence[Mapping[str, Any]] = (),
    history_source: str = "",
    live: Mapping[str, Any] | None = None,
) -> str:
    """One page as a string.

    :param simulation_link: where the simulations are, when on their own page (``simulations``
        is then only listed, by name)
    :param history: ``assignframe watch`` history events (:mod:`.timeline`), from
        ``history_source``
    :param live: ``inspect --out``'s ``verdicts.json``: every group read, of every type
        (:mod:`.live`), before the audit of those with a snapshot
    """
    page = ReportPage(title)
    add_live_section(page, live)
    if audit_summary is not None:
        add_fleet_sections(page, audit_summary)
    if simulation_link:
        _simulation_link(page, simulations, simulation_link)
    else:
        add_simulation_section(page, simulations)
    add_capture_section(page, captures)
    add_history_section(page, history, history_source)
    return page.render()


def simulation_page_path(path: str | Path) -> Path:
    """Where :func:`write_report` puts the simulations of the report at ``path``."""
    path = Path(path)
    return path.with_name(f"{path.stem}-simulations{path.suffix or '.html'}")


def write_report(path: str | Path, **parts: Any) -> Path:
    """Render the report (see :func:`render_report`) to ``path``; returns the path. With an
    audit or captures beside simulations, the simulations go to :func:`simulation_page_path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    simulations = parts.get("simulations") or ()
    if simulations and (parts.get("audit_summary") is not None or parts.get("captures")
                        or parts.get("history")):
        title = parts.get("title", "assignframe report")
        beside = simulation_page_path(path)
        beside.write_text(
            render_report(simulations=simulations, title=f"{title}: simulations"),
            encoding="utf-8",
        )
        parts["simulation_link"] = beside.name
    path.write_text(render_report(**parts), encoding="utf-8")
    return path


def _simulation_link(
    page: ReportPage, simulations: Sequence[Mapping[str, Any]], link: str
) -> None:
    names = ", ".join(str(s.get("scenario")) for s in simulations)
    page.add_section(
        "simulations",
        f"Simulations ({len(simulations)})",
        f'<p>Step by step, on their own page: <a href="{escape(link)}">{escape(link)}</a>'
        f'</p><p class="muted">{escape(names)}</p>',
    )
