"""Small HTML building blocks: tables, stat cards, number formatting."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .page import escape

__all__ = ["METRIC_COLUMNS", "fmt", "metrics_row", "stat_cards", "table"]


def fmt(value: Any) -> str:
    """Numbers as people read them: thousands separators, at most 2 decimals, '–' for None."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.2f}".rstrip("0").rstrip(".") if value % 1 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[Any]],
    row_classes: Iterable[str] | None = None,
    css_class: str = "",
) -> str:
    """A table whose first column is a name (left aligned) and the rest numbers."""
    head = "".join(
        f'<th class="name">{escape(h)}</th>' if i == 0 else f"<th>{escape(h)}</th>"
        for i, h in enumerate(headers)
    )
    classes = iter(row_classes or ())
    body = "".join(_row(cells, next(classes, "")) for cells in rows)
    return f'<table class="{css_class}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _row(cells: Sequence[Any], css_class: str) -> str:
    tds = "".join(
        f'<td class="name">{escape(fmt(c))}</td>'
        if i == 0 or isinstance(c, str)
        else f"<td>{escape(fmt(c))}</td>"
        for i, c in enumerate(cells)
    )
    return f'<tr class="{css_class}">{tds}</tr>'


def stat_cards(stats: Iterable[tuple[str, Any, bool]]) -> str:
    """Big-number cards: (label, value, is_bad)."""
    cards = "".join(
        f'<div class="stat{" bad" if bad else ""}">'
        f"<b>{escape(fmt(v))}</b><span>{escape(label)}</span></div>"
        for label, v, bad in stats
    )
    return f'<div class="stats">{cards}</div>'


#: (metrics key, column heading) shown for every assignment.
METRIC_COLUMNS: tuple[tuple[str, str], ...] = (
    ("valid", "valid"),
    ("balance_score", "balance score"),
    ("spread", "max-min"),
    ("idle_members", "idle members"),
    ("partitions_moved", "moved"),
    ("lag_spread", "lag spread"),
    ("rounds", "rounds"),
)


def metrics_row(name: str, metrics: Mapping[str, Any] | None) -> list[Any]:
    """One assignment's row of :data:`METRIC_COLUMNS`."""
    metrics = metrics or {}
    return [name] + [metrics.get(key) for key, _ in METRIC_COLUMNS]
