"""The audit's sections: the fleet verdict and the groups needing attention first
(:mod:`.verdict`), then the worst of them in detail, then the fleet's figures per strategy.

Input: the audit summary (``summary.json``, schema in docs/audit.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import visuals
from .groups import group_card
from .page import ReportPage, escape
from .tables import stat_cards, table
from .verdict import add_verdict_sections

__all__ = ["add_fleet_sections"]

_STRATEGY_COLUMNS = (
    ("groups", "groups"),
    ("recommended", "recommended for"),
    ("invalid", "invalid results"),
    ("errors", "errors"),
    ("mean_balance_score", "mean balance score"),
    ("mean_spread", "mean max-min"),
    ("groups_with_idle", "groups with idle members"),
    ("partitions_moved", "partitions moved"),
)


def add_fleet_sections(page: ReportPage, summary: Mapping[str, Any]) -> None:
    """Add the verdict, the groups needing attention, the worst in detail, the fleet figures."""
    worst = summary.get("worst_groups") or []
    add_verdict_sections(page, summary, {str(group["group_id"]) for group in worst})
    if worst:
        body = "".join(group_card(page, group) for group in worst)
        intro = (
            '<p class="muted">Groups needing attention, worst first: invalid assignments, then '
            "the widest spread of partitions per member, then idle members (docs/audit.md).</p>"
        )
        page.add_section("worst", f"Worst groups in detail ({len(worst)})", intro + body)
    page.add_section("fleet", "Fleet figures", _summary_html(page, summary))


def _summary_html(page: ReportPage, summary: Mapping[str, Any]) -> str:
    current = summary.get("current") or {}
    cards = stat_cards(
        [
            ("groups audited", summary.get("groups", 0), False),
            ("consumer-protocol groups", summary.get("consumer_groups", 0), False),
            *((f"{name} groups", summary[key], False) for key, name in (
                ("share_groups", "share"), ("streams_groups", "Streams")) if summary.get(key)),
            (
                "invalid groups",
                current.get("invalid_groups", 0),
                bool(current.get("invalid_groups")),
            ),
            ("groups with idle members", current.get("groups_with_idle", 0), False),
            ("malformed rows", summary.get("malformed", 0), bool(summary.get("malformed"))),
            ("groups / s", summary.get("groups_per_second"), False),
        ]
    )
    source = (
        f'<p class="muted">Input <code>{escape(summary.get("input", "?"))}</code>, engine '
        f"<code>{escape(summary.get('engine', '?'))}</code>, strategies "
        f"{escape(', '.join(summary.get('strategy_names') or []))}.</p>"
    )
    return cards + source + _strategy_table(summary) + _charts(page, summary) + _malformed(summary)


def _strategy_table(summary: Mapping[str, Any]) -> str:
    strategies = summary.get("strategies") or {}
    rows = [
        [name] + [stats.get(key) for key, _ in _STRATEGY_COLUMNS]
        for name, stats in strategies.items()
    ]
    headers = ["strategy"] + [heading for _, heading in _STRATEGY_COLUMNS]
    return table(headers, rows, css_class="strategies")


def _charts(page: ReportPage, summary: Mapping[str, Any]) -> str:
    strategies = summary.get("strategies") or {}
    if not strategies:
        return ""
    names = list(strategies)
    recommended = visuals.bars(
        "Recommended for how many groups",
        names,
        {"groups": [strategies[n].get("recommended") for n in names]},
        counts=True,
        when_all_zero="No strategy was recommended for any group.",
    )
    # Two scales, two charts: max-min is partitions per member, the balance score a sum of pairs.
    spread = visuals.bars(
        "Mean max-min partitions per member (lower is better)",
        names,
        {"mean max-min": [strategies[n].get("mean_spread") for n in names]},
        when_all_zero="Every strategy balances every group perfectly (mean max-min 0).",
    )
    balance = visuals.bars(
        "Mean balance score, KIP-54 (lower is better)",
        names,
        {"mean balance score": [strategies[n].get("mean_balance_score") for n in names]},
        when_all_zero="Every strategy balances every group perfectly (balance score 0).",
    )
    return "".join(page.visual(spec) for spec in (recommended, spread, balance))


def _malformed(summary: Mapping[str, Any]) -> str:
    examples = summary.get("malformed_examples") or []
    if not examples:
        return ""
    rows = [[e.get("line"), e.get("error")] for e in examples]
    return "<h3>Malformed rows (first ones)</h3>" + table(["line", "error"], rows)
