"""The live section: every group ``inspect`` read, of every type, in its triage order.

The audit's sections judge the groups that have a snapshot (classic and consumer-protocol
groups with members); this one counts every group the pass read: share and Streams groups,
groups without members, unreadable ones. Input: ``inspect --out``'s
``verdicts.json`` (its ``groups`` are :meth:`GroupVerdict.as_dict` rows, docs/cluster.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from .page import ReportPage, escape
from .tables import stat_cards, table

__all__ = ["add_live_section"]

#: how many rows the table shows (the rest are counted under it)
ROWS_SHOWN = 500


def add_live_section(page: ReportPage, verdicts: Mapping[str, Any] | None) -> None:
    """Add "Every group read" from a ``verdicts.json`` document (nothing when None)."""
    if verdicts is None:
        return
    groups: Sequence[Mapping[str, Any]] = verdicts.get("groups") or []
    types = Counter(str(g.get("group_type") or "unknown") for g in groups)
    with_members = sum(1 for g in groups if g.get("members"))
    troubled = sum(1 for g in groups if g.get("problems"))
    unreadable = sum(1 for g in groups if g.get("unreadable"))
    without_members = sum(1 for g in groups if not g.get("members") and not g.get("unreadable"))
    cards = stat_cards([
        ("groups read", len(groups), False),
        ("with members", with_members, False),
        ("with problems", troubled, bool(troubled)),
        ("unreadable", unreadable, bool(unreadable)),
        ("without members", without_members, False),
    ])
    by_type = ", ".join(f"{count} {kind}" for kind, count in sorted(types.items()))
    intro = (f'<p class="muted">Read from {escape(verdicts.get("bootstrap", "?"))}: '
             f"{escape(by_type or 'no group')}. Unreadable groups first, then groups with "
             "members worst first, then groups without members (the order of "
             "<code>inspect</code>'s table).</p>")
    shown = groups[:ROWS_SHOWN]
    rows = [_row(g) for g in shown]
    classes = ["bad" if g.get("problems") or g.get("unreadable") else "" for g in shown]
    more = len(groups) - len(shown)
    body = intro + cards + table(
        ["group", "type", "state", "members", "partitions / tasks", "max-min", "lag / backlog",
         "problems"], rows, classes, css_class="live")
    if more:
        body += f'<p class="muted">and {more:,} more group(s) in verdicts.json</p>'
    page.add_section("live", f"Every group read ({len(groups)})", body)


def _row(group: Mapping[str, Any]) -> list[Any]:
    problems = [str(p) for p in group.get("problems") or []]
    if group.get("unreadable"):
        problems.insert(0, f"unreadable: {group['unreadable']}")
    return [str(group.get("group_id")), str(group.get("group_type") or "–"),
            str(group.get("state") or "–"), group.get("members"), group.get("partitions"),
            group.get("spread"), _behind(group), "; ".join(problems) or "–"]


def _behind(group: Mapping[str, Any]) -> int | None:
    """Records behind: the consumer lag, or a share group's backlog."""
    detail = group.get("detail") or {}
    if group.get("lag") is None and detail.get("group_type") == "share":
        return detail.get("backlog")
    return group.get("lag")
