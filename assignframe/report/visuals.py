"""Specs of the pictures the report's script draws: heatmaps, bar charts and line charts.

Python decides what to draw; ``static/report.js`` only draws it. Assignments arrive as
``{member: [[topic, partition], ...]}`` and leave as indexes into one sorted partition list.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["bars", "heatmap", "lines", "partition_labels"]

Pair = Sequence[Any]


def partition_labels(
    assignments: Iterable[Mapping[str, Iterable[Pair]]], partitions: Iterable[Pair] = ()
) -> list[tuple[str, int]]:
    """Every partition named by ``partitions`` or any assignment, sorted by (topic, partition)."""
    seen = {(str(t), int(p)) for t, p in partitions}
    for assignment in assignments:
        seen.update((str(t), int(p)) for owned in assignment.values() for t, p in owned)
    return sorted(seen)


def heatmap(
    title: str,
    members: Sequence[str],
    views: Sequence[tuple[str, Mapping[str, Iterable[Pair]]]],
    partitions: Iterable[Pair] = (),
    recommended: str | None = None,
    redundant: bool = False,
) -> dict[str, Any]:
    """A members x partitions heatmap with one selectable view per named assignment."""
    labels = partition_labels((a for _, a in views), partitions)
    index = {tp: i for i, tp in enumerate(labels)}
    return {
        "type": "heatmap",
        "title": title,
        "members": list(members),
        "partitions": [f"{t}-{p}" for t, p in labels],
        "views": [{"name": name, "assignment": _indexed(a, index)} for name, a in views],
        "recommended": recommended,
        "redundant": redundant,
    }


def _indexed(
    assignment: Mapping[str, Iterable[Pair]], index: Mapping[tuple[str, int], int]
) -> dict:
    return {m: sorted(index[(str(t), int(p))] for t, p in owned) for m, owned in assignment.items()}


def bars(
    title: str,
    categories: Sequence[str],
    series: Mapping[str, Sequence[Any]],
    y_label: str = "",
    *,
    counts: bool = False,
    when_all_zero: str = "",
) -> dict[str, Any]:
    """Grouped bars: one group per category, one bar per series.

    :param counts: the values are counts (the axis shows whole numbers only)
    :param when_all_zero: said instead of drawing a chart whose every value is 0
    """
    return _chart("bars", title, categories, series, y_label, counts, when_all_zero)


def lines(
    title: str,
    labels: Sequence[str],
    series: Mapping[str, Sequence[Any]],
    y_label: str = "",
    *,
    counts: bool = False,
    when_all_zero: str = "",
) -> dict[str, Any]:
    """One line per series over the x labels (e.g. simulation steps); many series are drawn as
    small multiples, one panel each (see ``static/report.js``). Parameters as :func:`bars`."""
    return _chart("lines", title, labels, series, y_label, counts, when_all_zero)


def _chart(
    kind: str,
    title: str,
    labels: Sequence[str],
    series: Mapping[str, Sequence[Any]],
    y_label: str,
    counts: bool,
    when_all_zero: str,
) -> dict[str, Any]:
    return {
        "type": kind,
        "title": title,
        "labels": list(labels),
        "series": [{"name": n, "values": [_number(v) for v in vs]} for n, vs in series.items()],
        "y_label": y_label,
        "counts": counts,
        "when_all_zero": when_all_zero or f"{title}: every value is 0",
    }


def _number(value: Any) -> float | None:
    """A plotted value; None (JSON null) when there is none, which the page marks "–", never 0."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
