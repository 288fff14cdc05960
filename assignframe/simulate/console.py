"""Print simulation results for people: a step x run matrix, then totals per run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["print_simulation"]


def print_simulation(result: Mapping[str, Any], console: Console) -> None:
    """One scenario: what each step did under each run, then the totals."""
    console.print(f"[bold]{result['scenario']}[/bold]  {result.get('source', '')}")
    runs = [r for r in result["runs"] if not r.get("error")]
    for run in result["runs"]:
        if run.get("error"):
            console.print(f"  [red]{run['label']} failed:[/red] {run['error']}")
    if len(runs) == 1:
        console.print(_steps_table(runs[0]))
    elif runs:
        console.print(_matrix(runs))
    console.print(_totals(result["runs"]))


def _cell(step: Mapping[str, Any]) -> str:
    m = step["metrics"]
    if not step.get("members"):
        return "-"
    valid = "" if m.get("valid", True) else " INVALID"
    moved = m.get("partitions_moved") or 0
    lag = "" if m.get("lag_spread") is None else f" / lag {m['lag_spread']:,}"
    return f"{m.get('spread')} / {m.get('idle_members')} / {moved} / {m.get('rounds')}{lag}{valid}"


def _matrix(runs: Sequence[Mapping[str, Any]]) -> Table:
    table = Table(
        title="per step: max-min / idle / moved / rounds (/ lag spread)",
        title_justify="left",
    )
    table.add_column("step")
    for run in runs:
        table.add_column(run["label"], justify="right")
    for index, step in enumerate(runs[0]["steps"]):
        cells = [_cell(run["steps"][index]) if index < len(run["steps"]) else "" for run in runs]
        table.add_row(f"{index}: {step['name']}", *cells)
    return table


def _steps_table(run: Mapping[str, Any]) -> Table:
    table = Table(title=f"{run['label']}: per step", title_justify="left")
    columns = ("step", "protocol", "rebalance", "rounds", "max-min", "idle", "moved", "unowned")
    for column in (*columns, "notes"):
        table.add_column(column)
    for step in run["steps"]:
        m = step["metrics"]
        table.add_row(
            f"{step['index']}: {step['name']}",
            str(step.get("protocol") or "-"),
            str(step.get("rebalance_protocol") or "-"),
            str(m.get("rounds")),
            str(m.get("spread")),
            str(m.get("idle_members")),
            str(m.get("partitions_moved") or 0),
            _unowned(step),
            "; ".join(step.get("notes") or []),
        )
    return table


def _unowned(step: Mapping[str, Any]) -> str:
    """Consumer-protocol steps: partitions without an owner during the hand-over, and the
    longest such gap."""
    if step.get("group_type") != "consumer":
        return "-"
    return f"{step.get('unowned_partitions', 0)} (max {step.get('max_unowned_ms', 0) / 1000:g} s)"


def _totals(runs: Sequence[Mapping[str, Any]]) -> Table:
    table = Table(title="totals", title_justify="left")
    columns = (
        "rebalances",
        "rounds",
        "partitions_moved",
        "max_spread",
        "final_spread",
        "idle_member_steps",
        "max_lag_spread",
        "invalid_steps",
        "max_unowned_ms",
    )
    table.add_column("run")
    for column in columns:
        table.add_column(column.replace("_", " "), justify="right")
    for run in runs:
        totals = run.get("totals") or {}
        table.add_row(
            run["label"], *("-" if totals.get(c) is None else f"{totals[c]:,}" for c in columns)
        )
    return table
