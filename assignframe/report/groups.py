"""One group's card: problems, recommendation, metrics per strategy, heatmap and charts.

A group detail is the JSON the audit writes for its worst groups (docs/audit.md)::

    {"group_id", "generation", "protocol", "problems": [str], "members": [str],
     "partitions": [[topic, partition], ...],
     "current": {"assignment": {member: [[topic, partition], ...]}, "metrics": {...}},
     "strategies": [{"strategy", "assignment", "metrics", "error", "note"}],
     "recommendation": {"strategy", "reason"}}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import visuals
from .migration import migration_card
from .page import ReportPage, escape
from .tables import METRIC_COLUMNS, metrics_row, table
from .verdict import group_anchor

__all__ = ["METRIC_COLUMNS", "group_card", "metrics_row"]


def group_card(page: ReportPage, group: Mapping[str, Any]) -> str:
    """The HTML of one group, registering its heatmap and charts on ``page``."""
    recommended = (group.get("recommendation") or {}).get("strategy")
    anchor = group_anchor(str(group["group_id"]))
    return (
        f'<div class="card group" id="{escape(anchor)}" data-group="{escape(group["group_id"])}">'
        f"<h3>{escape(_heading(group))}</h3>"
        f"{_clients(group.get('clients'))}{_consumer_protocol(group)}"
        f"{_problems(group.get('problems') or [])}"
        f"{_notes(group.get('notes') or [])}"
        f"{_recommendation(group.get('recommendation'))}"
        f"{_metrics_table(group, recommended)}"
        f"{_replay_notes(group.get('strategies') or [])}"
        f"{page.visual(_heatmap(group, recommended))}"
        f"{_charts(page, group)}{migration_card(page, group)}</div>"
    )


#: how a card's heading names each group type that is not classic
_TYPE_WORDS = {"consumer": "consumer-protocol ", "share": "share ", "streams": "Streams "}


def _heading(group: Mapping[str, Any]) -> str:
    consumer = group.get("group_type") in _TYPE_WORDS  # an epoch and a server assignor
    parts = [f"{_TYPE_WORDS.get(group.get('group_type') or '', '')}group {group['group_id']}"]
    if group.get("generation") is not None:
        parts.append(f"{'epoch' if consumer else 'generation'} {group['generation']}")
    if consumer:
        assignor = group.get("assignor") or {}
        parts.append(f"assignor {assignor.get('name') or group.get('protocol') or '?'}")
    elif group.get("protocol"):
        parts.append(f"strategy {group['protocol']}")
    if group.get("group_state"):
        parts.append(str(group["group_state"]))
    parts.append(f"{len(group.get('members') or [])} members")
    return " · ".join(parts)


def _clients(clients: Mapping[str, Any] | None) -> str:
    """Who runs the group, and how each client was known (on hover)."""
    if not clients:
        return ""
    evidence = "; ".join(
        f"{m['name']}: {m['client']} ({m['evidence']})" for m in clients["members"].values()
    )
    return (
        f'<p class="clients">Clients: <b title="{escape(evidence)}">'
        f"{escape(clients['summary'])}</b></p>"
    )


def _consumer_protocol(group: Mapping[str, Any]) -> str:
    """A group whose broker assigns (consumer protocol, share, Streams): how its assignor is
    known, and who is still reconciling (a Streams group's rows are its active tasks)."""
    if group.get("group_type") not in _TYPE_WORDS:
        return ""
    assignor = group.get("assignor") or {}
    parts = [f"Assignor {escape(assignor.get('name'))}: {escape(assignor.get('how'))}."]
    if group.get("group_type") == "streams":
        parts.append("Rows are active tasks (sub-topology and partition).")
    reconciling = group.get("reconciling") or []
    if group.get("group_type") == "share":
        parts.append(f"Behind the assignment epoch: {escape(', '.join(reconciling))}."
                     if reconciling else "Every member is at the assignment epoch.")
    elif group.get("target") is None:
        parts.append("Target assignment not known (no ConsumerGroupDescribe seen).")
    elif reconciling:
        parts.append(
            f"Reconciling: {escape(', '.join(reconciling))} not yet at their target "
            "(the heatmap's 'target' view shows where partitions are going)."
        )
    else:
        parts.append("Every member is at its target assignment.")
    return f'<p class="muted">{" ".join(parts)}</p>'


def _notes(notes: Sequence[str]) -> str:
    """What was inferred or seen, not a problem (a follow-up round, an inferred count)."""
    if not notes:
        return ""
    items = "".join(f"<li>{escape(n)}</li>" for n in notes)
    return f'<ul class="notes">{items}</ul>'



def _problems(problems: Sequence[str]) -> str:
    if not problems:
        return '<p class="ok">Current assignment is valid.</p>'
    items = "".join(f"<li>{escape(p)}</li>" for p in problems)
    return f'<ul class="problems">{items}</ul>'


def _replay_notes(results: Sequence[Mapping[str, Any]]) -> str:
    """What a replay could not know (e.g. the members' own options), one line per strategy."""
    notes = [r["note"] for r in results if r.get("note")]
    if not notes:
        return ""
    items = "".join(f"<li>{escape(note)}</li>" for note in notes)
    return f'<ul class="replay-notes">{items}</ul>'


def _recommendation(recommendation: Mapping[str, Any] | None) -> str:
    if not recommendation or not recommendation.get("strategy"):
        reason = (recommendation or {}).get("reason", "no strategy produced a valid assignment")
        return f'<p class="muted">No recommendation: {escape(reason)}</p>'
    return (
        f'<p class="reason">Recommended: <b>{escape(recommendation["strategy"])}</b> — '
        f"{escape(recommendation.get('reason', ''))}</p>"
    )


def _metrics_table(group: Mapping[str, Any], recommended: str | None) -> str:
    rows = [metrics_row("current", (group.get("current") or {}).get("metrics"))]
    classes = ["current"]
    for result in group.get("strategies") or []:
        name = result["strategy"] + (f" (error: {result['error']})" if result.get("error") else "")
        rows.append(metrics_row(name, result.get("metrics")))
        classes.append("recommended" if result["strategy"] == recommended else "")
    headers = ["assignment"] + [heading for _, heading in METRIC_COLUMNS]
    return table(headers, rows, classes, "metrics")


def _heatmap(group: Mapping[str, Any], recommended: str | None) -> dict[str, Any]:
    views = [("current", (group.get("current") or {}).get("assignment") or {})]
    if group.get("target") is not None:
        views.append(("target (where reconciliation is going)", group["target"]))
    views += [
        (r["strategy"], r.get("assignment") or {})
        for r in group.get("strategies") or []
        if not r.get("error")
    ]
    return visuals.heatmap(
        f"group {group['group_id']}",
        group.get("members") or [],
        views,
        group.get("partitions") or [],
        recommended,
    )


def _charts(page: ReportPage, group: Mapping[str, Any]) -> str:
    results = [r for r in group.get("strategies") or [] if not r.get("error")]
    if not results:
        return ""
    names = ["current"] + [r["strategy"] for r in results]
    metrics = [(group.get("current") or {}).get("metrics") or {}] + [r["metrics"] for r in results]
    balance = visuals.bars(
        "Balance per strategy (lower is better)",
        names,
        {
            "max-min partitions": [m.get("spread") for m in metrics],
            "idle members": [m.get("idle_members") for m in metrics],
        },
        counts=True,
        when_all_zero="Balance: every assignment has max-min 0 and no idle member.",
    )
    movement = visuals.bars(
        "Movement per strategy",
        names[1:],
        {
            "partitions moved": [m.get("partitions_moved") for m in metrics[1:]],
            "partitions kept": [m.get("partitions_kept") for m in metrics[1:]],
        },
        counts=True,
        when_all_zero="No movement: no partition was owned before, none kept or moved.",
    )
    return page.visual(balance) + page.visual(movement)
