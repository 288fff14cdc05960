"""The report's first screen: the fleet verdict, then every group that needs attention.

Three answers side by side: which groups need attention (by problem, each problem linked to its
groups), what to switch to (the recommendations that change a group's strategy), and whether the
upgrade to the consumer protocol is safe (allowed / refused and why, what the allowed groups'
upgrade would move and how long a partition would wait). Then the groups themselves, by problem,
each linked to its detailed card when the audit detailed it.

Input: the audit summary (``summary.json``: ``attention``, ``switches``, ``migration``;
docs/audit.md).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ..snapshot.schema import group_types_phrase
from .page import ReportPage, escape
from .tables import fmt

__all__ = ["add_verdict_sections", "group_anchor"]

#: Switches listed on the first screen (the rest are counted).
SHOWN_SWITCHES = 6


def group_anchor(group_id: str) -> str:
    """The id of a group's detailed card."""
    return f"group-{group_id}"


def add_verdict_sections(
    page: ReportPage, summary: Mapping[str, Any], detailed: Collection[str]
) -> None:
    """Add "Fleet verdict" and "Groups needing attention".

    :param detailed: ids of the groups that have a detailed card on the page
    """
    page.add_section("verdict", "Fleet verdict", _verdict(summary))
    attention = summary.get("attention") or {}
    if attention.get("groups"):
        page.add_section(
            "attention",
            f"Groups needing attention ({attention['groups']:,})",
            _attention(attention, detailed),
        )


def _verdict(summary: Mapping[str, Any]) -> str:
    return (
        '<div class="verdict-grid">'
        + _card("Which groups need attention", _needs_attention(summary))
        + _card("What to switch to", _switches(summary))
        + _card("Is the upgrade to the consumer protocol safe?", _upgrade(summary))
        + "</div>"
    )


#: the upgrade cell of a group that has no migration verdict, by its type
_NO_UPGRADE = {"consumer": "(consumer protocol already)", "share": "(share group)",
               "streams": "(Streams protocol already)"}


def _card(title: str, body: str) -> str:
    return f'<div class="card verdict"><h3>{escape(title)}</h3>{body}</div>'


def _needs_attention(summary: Mapping[str, Any]) -> str:
    attention = summary.get("attention") or {}
    groups, needing = summary.get("groups", 0), attention.get("groups", 0)
    kinds = group_types_phrase(summary.get("group_types") or {})
    if not needing:
        return f'<p class="headline ok">None of the {groups:,} groups{kinds} needs attention.</p>'
    rows = "".join(
        f'<tr><td class="name"><a href="#attention-{escape(key)}">{escape(problem["label"])}'
        f'</a></td><td>{fmt(problem["groups"])}</td></tr>'
        for key, problem in (attention.get("problems") or {}).items()
        if problem.get("groups")
    )
    return (
        f'<p class="headline bad">{needing:,} of {groups:,} groups{kinds} need attention</p>'
        f'<table class="verdict-table"><thead><tr><th class="name">problem</th><th>groups</th>'
        f"</tr></thead><tbody>{rows}</tbody></table>"
        '<p class="muted">A group can have several problems. Each links to its groups.</p>'
    )


def _switches(summary: Mapping[str, Any]) -> str:
    switches: Sequence[Mapping[str, Any]] = summary.get("switches") or []
    groups = summary.get("groups", 0)
    moving = sum(s["groups"] for s in switches)
    unsure = (summary.get("current") or {}).get("no_recommendation", 0)
    keep = groups - moving - unsure
    rows = "".join(
        f'<tr><td class="name">{escape(s["from"])}</td><td class="name">{escape(s["to"])}</td>'
        f"<td>{fmt(s['groups'])}</td></tr>"
        for s in switches[:SHOWN_SWITCHES]
    )
    more = len(switches) - SHOWN_SWITCHES
    table = (
        '<table class="verdict-table"><thead><tr><th class="name">now</th>'
        f'<th class="name">switch to</th><th>groups</th></tr></thead><tbody>{rows}</tbody></table>'
        + (f'<p class="muted">and {more} other switch(es) (groups.jsonl)</p>' if more > 0 else "")
        if switches
        else ""
    )
    head = (
        f'<p class="headline{" bad" if moving else " ok"}">{moving:,} group(s) would do better '
        "on another strategy their clients run</p>"
        if moving
        else '<p class="headline ok">No group would do better on another strategy.</p>'
    )
    tail = (
        f'<p class="muted">{keep:,} keep their strategy: no strategy their clients can run does '
        "better"
        + (f" ({summary.get('recommended_on_a_tie', 0):,} on a tie)" if keep else "")
        + (f"; {unsure:,} without a recommendation" if unsure else "")
        + ".</p>"
    )
    return head + table + tail


def _upgrade(summary: Mapping[str, Any]) -> str:
    migration = summary.get("migration") or {}
    classic = migration.get("classic_groups", 0)
    if not classic:
        return '<p class="muted">No classic group in this audit.</p>'
    allowed, refused = migration.get("allowed", 0), migration.get("refused", 0)
    unknown = migration.get("groups_with_unknown_clients", 0)
    # allowed is said only for the clients identified: not all clear while some are unknown
    head = (
        f'<p class="headline{" bad" if refused else " warn" if unknown else " ok"}">Allowed '
        f"for {allowed:,} of {classic:,} classic groups"
        + (f"; {unknown:,} group(s) with members whose client is not identified"
           if unknown else "")
        + (f"; refused for {refused:,}" if refused else "")
        + "</p>"
    )
    reasons = "".join(
        f"<li>{escape(kind['label'])}: {fmt(kind['groups'])}</li>"
        for kind in (migration.get("refused_for") or {}).values()
        if kind.get("groups")
    )
    why = (
        f'<p>Refused because <a href="#attention-upgrade_refused">(the groups)</a>:</p>'
        f'<ul class="problems">{reasons}</ul>'
        if reasons
        else ""
    )
    rows = "".join(
        f'<tr><td class="name">{escape(name)}</td><td>{fmt(p["partitions_moved"])}</td>'
        f"<td>{fmt(p['max_unowned_ms'] / 1000)}</td><td>{fmt(p['invalid'])}</td></tr>"
        for name, p in (migration.get("predicted") or {}).items()
    )
    predicted = (
        f"<p>If the {allowed:,} allowed groups upgrade (the broker would choose "
        f"<b>{escape(migration.get('server_assignor'))}</b>; members heartbeating every 5 s):</p>"
        '<table class="verdict-table"><thead><tr><th class="name">assignor</th>'
        "<th>partitions moved</th><th>longest a partition waits (s)</th>"
        f"<th>invalid predictions</th></tr></thead><tbody>{rows}</tbody></table>"
        if allowed
        else ""
    )
    caveat = (
        f'<p class="muted">{unknown:,} group(s) have members whose client could not be '
        "identified: check that it speaks the consumer protocol.</p>"
        if unknown
        else ""
    )
    return head + why + predicted + caveat


def _attention(attention: Mapping[str, Any], detailed: Collection[str]) -> str:
    parts = [
        '<p class="muted">Per problem, the first groups in input order (summary.json names up to '
        "500 per problem; groups.jsonl and migration.csv list every group). A linked group has "
        "its detailed card below.</p>"
    ]
    for key, problem in (attention.get("problems") or {}).items():
        if not problem.get("groups"):
            continue
        named = problem.get("named") or []
        rows = "".join(_attention_row(key, group, detailed) for group in named)
        more = problem["groups"] - len(named)
        parts.append(
            f'<h3 id="attention-{escape(key)}">{escape(problem["label"])} '
            f"({problem['groups']:,})</h3>"
            '<table class="attention"><thead><tr><th class="name">group</th>'
            '<th class="name">clients</th><th class="name">strategy now</th>'
            '<th class="name">what is wrong</th><th class="name">recommended</th>'
            f'<th class="name">upgrade</th></tr></thead><tbody>{rows}</tbody></table>'
            + (f'<p class="muted">and {more:,} more</p>' if more > 0 else "")
        )
    return "".join(parts)


def _attention_row(key: str, group: Mapping[str, Any], detailed: Collection[str]) -> str:
    group_id = str(group["group_id"])
    name = (
        f'<a href="#{escape(group_anchor(group_id))}">{escape(group_id)}</a>'
        if group_id in detailed
        else escape(group_id)
    )
    wrong = {
        "invalid": group.get("current_problems"),
        "better_strategy": f"max-min {group.get('current_spread')}, "
        f"{group.get('current_idle_members')} idle now",
        "upgrade_refused": group.get("upgrade_refusal"),
        "reconciling": "members not yet at their target",
    }.get(key, "")
    cells = [
        group.get("clients") or "?",
        group.get("protocol") or ("consumer protocol" if group.get("group_type") == "consumer"
                                  else "?"),
        wrong or "",
        group.get("recommendation") or "none",
        group.get("migration_verdict") or _NO_UPGRADE.get(group.get("group_type") or "", "–"),
    ]
    return f'<tr><td class="name">{name}</td>' + "".join(
        f'<td class="name">{escape(c)}</td>' for c in cells
    ) + "</tr>"
