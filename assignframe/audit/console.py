"""Print an audit summary for people: what needs attention, the migration verdict, then one row
per strategy. Malformed rows are the CLI's to report (on stderr, one line each)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..snapshot.schema import group_types_phrase

__all__ = ["migration_lines", "print_summary"]


def print_summary(summary: Mapping[str, Any], console: Console, out_dir: str) -> None:
    console.print(_headline(summary))
    for line in _attention_lines(summary):
        console.print(line)
    for line in migration_lines(summary, out_dir):
        console.print(line)
    console.print(_strategy_table(summary))
    ties = summary.get("recommended_on_a_tie") or 0
    if ties:
        console.print(
            f"  {ties:,} recommendation(s) settled a tie on every metric (the reason says what "
            "broke it: the current strategy, the clients' default, the broker's order)"
        )
    for name, figures in summary["strategies"].items():
        if figures.get("with_note"):
            console.print(
                f"  [yellow]{escape(name)}:[/yellow] {figures['with_note']:,} group(s) with a "
                "note on the replay (what it could not know, or how it compares with the "
                "broker's: the rows' note says)"
            )
    console.print(f"rows, groups, migration.csv, summary and malformed rows in {escape(out_dir)}")


def _headline(summary: Mapping[str, Any]) -> str:
    current, groups = summary["current"], summary["groups"]
    rate = summary.get("groups_per_second")
    older = summary.get("older_generations_skipped") or 0
    kinds = group_types_phrase(summary.get("group_types") or {})
    return (
        f"[bold]audited {groups:,} groups[/bold]{kinds} ({summary['engine']} engine"
        + (f", {rate} groups/s" if groups and rate else "")
        + ")"
        + (f"; {older:,} older generations of the same groups passed over" if older else "")
        + f"; {current.get('invalid_groups', 0):,} invalid now, "
        f"{current.get('groups_with_idle', 0):,} with idle members; "
        f"{summary['malformed']:,} malformed rows"
    )


def _attention_lines(summary: Mapping[str, Any]) -> list[str]:
    attention = summary.get("attention") or {}
    needing = attention.get("groups", 0)
    if not needing:
        return ["[green]no group needs attention[/green]"]
    lines = [f"[bold]{needing:,} group(s) need attention[/bold]:"]
    for problem in (attention.get("problems") or {}).values():
        if problem["groups"]:
            named = ", ".join(g["group_id"] for g in problem["named"][:3])
            more = " ..." if problem["groups"] > 3 else ""
            lines.append(
                f"  {problem['groups']:>7,}  {escape(problem['label'])} "
                f"[dim]({escape(named)}{more})[/dim]"
            )
    return lines


def migration_lines(summary: Mapping[str, Any], out_dir: str | None = None) -> list[str]:
    """The fleet's migration verdict in a few lines (classic groups only)."""
    migration = summary.get("migration") or {}
    classic = migration.get("classic_groups", 0)
    if not classic:
        return []
    refused = migration.get("refused", 0)
    lines = [
        f"[bold]upgrade to the consumer protocol[/bold] ({classic:,} classic groups): "
        f"[green]{migration.get('allowed', 0):,} allowed[/green], "
        + (f"[red]{refused:,} refused[/red]" if refused else "0 refused")
    ]
    reasons = [
        f"{kind['label']}: {kind['groups']:,}"
        for kind in (migration.get("refused_for") or {}).values()
        if kind["groups"]
    ]
    if reasons:
        lines.append(f"  refused because {escape('; '.join(reasons))}")
    unknown = migration.get("groups_with_unknown_clients", 0)
    if unknown:
        lines.append(
            f"  [yellow]{unknown:,} group(s) have members whose client is unknown: check that "
            "it speaks the consumer protocol[/yellow]"
        )
    predicted = [
        f"{name} moves {figures['partitions_moved']:,} partitions, a partition waits at most "
        f"{figures['max_unowned_ms'] / 1000:.1f} s"
        + (f" ({figures['invalid']:,} invalid prediction(s))" if figures["invalid"] else "")
        for name, figures in (migration.get("predicted") or {}).items()
    ]
    if predicted and migration.get("allowed"):
        lines.append(f"  upgrading the allowed groups: {escape('; '.join(predicted))}")
    if out_dir:
        lines.append(f"  each group's verdict and prediction: {escape(out_dir)}/migration.csv")
    return lines


def _strategy_table(summary: Mapping[str, Any]) -> Table:
    table = Table(title="per strategy (replayed on the groups that can run it)",
                  title_justify="left")
    columns = (
        ("groups", "groups"),
        ("recommended", "recommended"),
        ("errors", "errors"),
        ("invalid", "invalid"),
        ("mean_spread", "mean max-min"),
        ("mean_balance_score", "mean balance"),
        ("groups_with_idle", "groups w/ idle"),
        ("partitions_moved", "moved"),
        ("mean_rounds", "mean rounds"),
    )
    table.add_column("strategy")
    for _, heading in columns:
        table.add_column(heading, justify="right")
    current = summary["current"]
    table.add_row(
        "(current)",
        f"{summary.get('groups', 0):,}",
        "",
        "",
        f"{current.get('invalid_groups', 0):,}",
        str(current.get("mean_spread")),
        str(current.get("mean_balance_score")),
        f"{current.get('groups_with_idle', 0):,}",
        "",
        "",
    )
    for name, stats in summary["strategies"].items():
        if stats.get("groups"):  # a strategy no group could run (share groups only): no row
            table.add_row(escape(name), *(_fmt(stats.get(key)) for key, _ in columns))
    return table


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:,}" if isinstance(value, int) else str(value)
