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
    title: str, categories: Sequence[str], series: Mapping[str, Sequence[Any]], y_label: str = ""
) -> dict[str, Any]:
    """Grouped bars: one group per category, one bar per series."""
    return {
        "type": "bars",
        "title": title,
        "categories": list(categories),
        "series": [{"name": n, "values": [_number(v) for v in vs]} for n, vs in series.items()],
        "y_label": y_label,
    }


def lines(
    title: str, labels: Sequence[str], series: Mapping[str, Sequence[Any]], y_label: str = ""
) -> dict[str, Any]:
    """One line per series over the x labels (e.g. simulation steps)."""
    return {
        "type": "lines",
        "title": title,
        "labels": list(labels),
        "series": [{"name": n, "values": [_number(v) for v in vs]} for n, vs in series.items()],
        "y_label": y_label,
    }


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0
