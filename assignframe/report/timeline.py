"""A ``watch`` history as a timeline: one card per group, the troubled groups first.

Input: the history's events in file order, each ``{"time", "group_id", "event", ...}`` as
docs/cluster.md lists them (``seen``, ``epoch``, ``state``, ``joined``, ``left``, ``moved``,
``settled``, ``stuck``, ``unreadable``, ``readable``, ``vanished``). Each card has the group's
counts (rebalances, members joined and left, partitions moved, the longest time to settle, stuck
episodes), a strip with one mark per event on the history's own time axis (drawn here as inline
SVG: the page fetches nothing), and the events themselves, newest first, at most
:data:`ROWS_PER_GROUP` of them (the card says how many more the file holds).
"""

from __future__ import annotations

import time as _time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from .page import ReportPage, escape
from .tables import fmt, table

__all__ = ["ROWS_PER_GROUP", "add_history_section"]

ROWS_PER_GROUP = 200
#: mark colour per event kind on the strip (trouble red, changes amber, joins green, ends blue)
_COLOURS = {"stuck": "#b91c1c", "unreadable": "#b91c1c", "vanished": "#7f1d1d",
            "left": "#dc2626", "joined": "#16a34a", "moved": "#d97706", "epoch": "#d97706",
            "added": "#16a34a", "revoked": "#dc2626",
            "state": "#a16207", "settled": "#2563eb", "seen": "#64748b", "readable": "#2563eb"}
_STRIP_WIDTH, _STRIP_HEIGHT = 1000, 36


def add_history_section(page: ReportPage, events: Sequence[Mapping[str, Any]],
                        source: str = "") -> None:
    """Add a "Watch history" section (nothing when there are no events)."""
    if not events:
        return
    by_group: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for event in events:
        by_group[str(event["group_id"])].append(event)
    start = min(float(e["time"]) for e in events)
    end = max(float(e["time"]) for e in events)
    counts = {group: _counts(group_events) for group, group_events in by_group.items()}
    order = sorted(by_group, key=lambda g: (-counts[g]["stuck"], -counts[g]["unreadable"],
                                            -counts[g]["rebalances"], -counts[g]["moved"], g))
    troubled = sum(1 for g in order if counts[g]["stuck"] or counts[g]["unreadable"])
    intro = (f'<p>{len(events):,} events of {len(by_group):,} group(s) '
             f'{"in " + escape(source) + " " if source else ""}from {_when(start)} to '
             f'{_when(end)} ({fmt(round(end - start, 1))} s); {troubled} group(s) were stuck or '
             'unreadable at some point. Groups with the most trouble first.</p>'
             + table(["group", "rebalances", "joined", "left", "partitions moved",
                      "longest settle (s)", "stuck", "unreadable"],
                     [[g, counts[g]["rebalances"], counts[g]["joined"], counts[g]["left"],
                       counts[g]["moved"], counts[g]["settle_max"], counts[g]["stuck"],
                       counts[g]["unreadable"]] for g in order],
                     css_class="history"))
    cards = "".join(_card(g, by_group[g], counts[g], start, end) for g in order)
    page.add_section("history", f"Watch history ({len(by_group)})", intro + cards)


def _counts(events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    kinds = [e["event"] for e in events]
    settles = [float(e.get("seconds", 0)) for e in events if e["event"] == "settled"]
    # an epoch event says how many generations went by (a jump of two is two rebalances);
    # histories written before it said so count one each
    rebalances = sum(int(e.get("rebalances") or 1) for e in events if e["event"] == "epoch")
    return {"rebalances": rebalances, "joined": kinds.count("joined"),
            "left": kinds.count("left"), "stuck": kinds.count("stuck"),
            "unreadable": kinds.count("unreadable"),
            "moved": sum(1 for e in events if e["event"] == "moved"
                         for entry in e.get("partitions") or [] if _handed_over(entry)),
            "settle_max": max(settles) if settles else None}


def _handed_over(entry: Sequence[Any]) -> bool:
    """A ``moved`` entry that is a hand-over (:mod:`assignframe.movement`): histories written
    before ``added`` and ``revoked`` events existed also wrote those as ``moved`` with null."""
    return len(entry) == 3 and entry[1] is not None and entry[2] is not None


def _card(group: str, events: Sequence[Mapping[str, Any]], counts: Mapping[str, Any],
          start: float, end: float) -> str:
    newest = list(reversed(events))[:ROWS_PER_GROUP]
    rows = [[_when(float(e["time"])), e["event"], _detail(e)] for e in newest]
    more = len(events) - len(newest)
    return (f'<div class="card history"><h3>{escape(group)}</h3>'
            f'<p class="muted">{counts["rebalances"]} rebalance(s), {counts["joined"]} joined, '
            f'{counts["left"]} left, {counts["moved"]} partition(s) moved</p>'
            + _strip(events, start, end)
            + table(["time (UTC)", "event", "what"], rows, css_class="events")
            + (f'<p class="muted">and {more:,} earlier event(s) in the history file</p>'
               if more else "")
            + "</div>")


def _strip(events: Sequence[Mapping[str, Any]], start: float, end: float) -> str:
    span = max(end - start, 1e-9)
    marks = []
    for e in events:
        x = 4 + (float(e["time"]) - start) / span * (_STRIP_WIDTH - 8)
        colour = _COLOURS.get(str(e["event"]), "#64748b")
        label = escape(f'{_when(float(e["time"]))} {e["event"]} {_detail(e)}')
        marks.append(f'<rect x="{x - 2:.1f}" y="6" width="4" height="24" fill="{colour}">'
                     f"<title>{label}</title></rect>")
    return (f'<svg class="strip" viewBox="0 0 {_STRIP_WIDTH} {_STRIP_HEIGHT}" '
            f'width="100%" height="{_STRIP_HEIGHT}" preserveAspectRatio="none" role="img" '
            'aria-label="events over time">'
            f'<line x1="0" y1="18" x2="{_STRIP_WIDTH}" y2="18" stroke="#cbd5e1"/>'
            + "".join(marks) + "</svg>")


def _detail(event: Mapping[str, Any]) -> str:
    kind = event["event"]
    if kind in ("epoch", "state", "type"):
        return f"{event.get('from')} → {event.get('to')}"
    if kind in ("joined", "left"):
        return str(event.get("member_id", ""))
    if kind in ("moved", "added", "revoked"):
        parts = event.get("partitions") or []
        shown = "; ".join(_change(kind, entry) for entry in parts[:8])
        return shown + (f"; and {len(parts) - 8} more" if len(parts) > 8 else "")
    if kind == "settled":
        at_most = event.get("at_most")
        bound = "" if at_most is None else f" (at most {fmt(at_most)} s since the last " \
            "poll that saw it settled)"
        return f"after {fmt(event.get('seconds'))} s{bound}"
    if kind == "stuck":
        waiting = "".join(f"; {m.get('member_id')} ({m.get('client_id') or 'client unknown'}, "
                          f"epoch {m.get('epoch')}) reconciling for {fmt(m.get('seconds'))} s"
                          + (f", has not given up {', '.join(m['not_given_up'][:5])}"
                             if m.get("not_given_up") else "")
                          for m in (event.get("members") or [])[:3])
        return (f"{event.get('state')} for {fmt(event.get('seconds'))} s, "
                f"{event.get('reconciling', 0)} member(s) reconciling{waiting}")
    if kind == "unreadable":
        return str(event.get("why", ""))
    if kind == "readable":
        return f"read again after {fmt(event.get('seconds'))} s"
    if kind == "seen":
        return f"generation/epoch {event.get('generation')}, {event.get('state')}"
    return ""


def _change(kind: str, entry: Sequence[Any]) -> str:
    """One partition of a ``moved`` (``[p, from, to]``), ``added`` (``[p, to]``) or
    ``revoked`` (``[p, from]``) event; a history written before ``added`` and ``revoked``
    existed has ``moved`` entries with null for nobody."""
    if kind == "added":
        return f"{entry[0]} nobody → {entry[1]}"
    if kind == "revoked":
        return f"{entry[0]} {entry[1]} → nobody"
    return f"{entry[0]} {entry[1] or 'nobody'} → {entry[2] or 'nobody'}"


def _when(seconds: float) -> str:
    return _time.strftime("%Y-%m-%d %H:%M:%S", _time.gmtime(seconds))
