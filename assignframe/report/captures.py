"""Decoded captures: one card per group, one heatmap view per generation or epoch.

Input: snapshots as ``assignframe.audit`` reads them from ``assignframe decode --json`` output,
summarised by :func:`assignframe.audit.snapshot_view` (group_id, group_type, generation, protocol,
assignor, leader, members, assignment, target, reconciling, metrics, problems, notes,
handovers) plus the ``source`` file name. A consumer-protocol group's rows are epochs, with their
target assignments and the partitions nobody consumed; a note is not a problem.
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


#: how a capture card names the group types whose broker assigns (classic groups: nothing)
_KINDS = {"consumer": "consumer protocol (KIP-848), ", "share": "share group (KIP-932), ",
          "streams": "Streams group (KIP-1071), "}


def _group_card(page: ReportPage, source: str, group_id: str, snapshots: list) -> str:
    snapshots = sorted(snapshots, key=lambda s: s.get("generation") or 0)
    kind = next((_KINDS[t] for s in snapshots if (t := s.get("group_type")) in _KINDS), "")
    consumer = bool(kind)  # the broker assigns: epochs, a server assignor, reconciliation
    word = "epoch" if consumer else "generation"
    names = _names(snapshots)
    members = sorted({names.get(m, m) for s in snapshots for m in s.get("members") or []})
    views = []
    for s in snapshots:
        if s.get("target") is not None:
            views.append((f"{word} {s.get('generation')} target", _named(s["target"], names)))
        views.append((f"{word} {s.get('generation')}", _named(s.get("assignment") or {}, names)))
    spec = visuals.heatmap(f"{group_id} ({source})", members, views)
    spec["views"].reverse()  # the latest first
    rows = [_row(s, consumer) for s in snapshots]
    headers = [word, "assignor" if consumer else "strategy", "leader" if not consumer else
               "members reconciling", "members"] + [h for _, h in METRIC_COLUMNS[:4]]
    problems = sorted({p for s in snapshots for p in s.get("problems") or []})
    notes = sorted({n for s in snapshots for n in s.get("notes") or []})
    return (
        f'<div class="card capture"><h3>{escape(group_id)} <span class="muted">'
        f"{kind}from {escape(source)}</span></h3>"
        + _list("problems", problems)
        + _handovers(snapshots, names)
        + _list("notes", notes)
        + table(headers, rows, css_class="generations")
        + page.visual(spec)
        + "</div>"
    )


def _names(snapshots: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """member id -> ``client id (member id)`` where the client id is known (people know their
    consumers by client id; the id keeps two of one client apart)."""
    names: dict[str, str] = {}
    for snapshot in snapshots:
        for member, client in (snapshot.get("member_names") or {}).items():
            if client and client != member and not member.startswith(f"{client}-"):
                names[member] = f"{client} ({member})"
    return names


def _named(assignment: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    return {names.get(member, member): owned for member, owned in assignment.items()}


def _list(css_class: str, items: Sequence[str]) -> str:
    """Problems in red; notes (a follow-up round, an inferred count) in grey: they are normal."""
    if not items:
        return ""
    return f'<ul class="{css_class}">' + "".join(f"<li>{escape(i)}</li>" for i in items) + "</ul>"


def _handovers(snapshots: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> str:
    """Partitions nobody consumed (decode's hand-overs): problems in red, reconciliation grey."""
    seen: dict[tuple[Any, ...], Mapping[str, Any]] = {}
    for snapshot in snapshots:
        for gap in snapshot.get("handovers") or ():
            seen[(tuple(gap["partition"]), gap["from"])] = gap
    problems = [_gap(g, names) for g in seen.values() if not g["normal"]]
    normal = [_gap(g, names) for g in seen.values() if g["normal"]]
    return _list("problems", problems) + _list("in-flight", normal)


def _gap(gap: Mapping[str, Any], names: Mapping[str, str]) -> str:
    topic, partition = gap["partition"]
    gap = {**gap, "released_by": _short(gap["released_by"], names),
           "taken_by": gap.get("taken_by") and _short(gap["taken_by"], names)}
    cause = {"revoked": "revoked by", "left": "left:", "vanished": "vanished without leaving:",
             "fenced": "fenced:"}.get(gap["how"], gap["how"])
    taken = f", then {gap['taken_by']}" if gap.get("taken_by") else ", nobody by the end"
    verdict = "normal reconciliation" if gap["normal"] else "nobody consumed it meanwhile"
    return (
        f"{topic}-{partition} unconsumed {gap['seconds']:.1f} s ({cause} {gap['released_by']}"
        f"{taken}): {verdict}"
    )


def _short(member: str, names: Mapping[str, str]) -> str:
    return names.get(member, member).split(" (", 1)[0]


def _row(snapshot: Mapping[str, Any], consumer: bool) -> list[Any]:
    metrics = snapshot.get("metrics") or {}
    assignor = (snapshot.get("assignor") or {}).get("name") if consumer else None
    return [
        snapshot.get("generation"),
        assignor or snapshot.get("protocol"),
        _reconciling(snapshot) if consumer else snapshot.get("leader"),
        len(snapshot.get("members") or []),
    ] + [metrics.get(key) for key, _ in METRIC_COLUMNS[:4]]


def _reconciling(snapshot: Mapping[str, Any]) -> str:
    if snapshot.get("group_type") == "share":  # no target: members behind the epoch
        return ", ".join(snapshot.get("reconciling") or []) or "none"
    if snapshot.get("target") is None:
        return "not known (no ConsumerGroupDescribe)"
    return ", ".join(snapshot.get("reconciling") or []) or "none"
