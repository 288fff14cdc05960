"""Print an audit summary for people: run facts, then one row per strategy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["print_summary"]


def print_summary(summary: Mapping[str, Any], console: Console, out_dir: str) -> None:
    current = summary["current"]
    rate = summary.get("groups_per_second")
    older = summary.get("older_generations_skipped") or 0
    console.print(
        f"[bold]audited {summary['groups']:,} groups[/bold] ({summary['engine']} engine"
        + (f", {rate} groups/s" if summary["groups"] and rate else "")
        + ")"
        + (f"; {older:,} older generations of the same groups passed over" if older else "")
        + "; "
        f"{current.get('invalid_groups', 0):,} invalid now, "
        f"{current.get('groups_with_idle', 0):,} with idle members; "
        f"{summary['malformed']:,} malformed rows"
    )
    for example in summary.get("malformed_examples", [])[:5]:
        console.print(f"  [yellow]line {example['line']}:[/yellow] {example['error']}")
    console.print(_strategy_table(summary))
    for name, figures in summary["strategies"].items():
        if figures.get("with_note"):
            console.print(
                f"  [yellow]{name}:[/yellow] {figures['with_note']:,} group(s) replayed with "
                "something unknown (the rows' note says what)"
            )
    console.print(f"rows, summary and malformed rows in {out_dir}")


def _strategy_table(summary: Mapping[str, Any]) -> Table:
    table = Table(title="per strategy (replayed on every group)", title_justify="left")
    columns = (
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
        table.add_row(name, *(_fmt(stats.get(key)) for key, _ in columns))
    return table


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:,}" if isinstance(value, int) else str(value)
