"""The simulator's section: one card per scenario, runs compared step by step.

Input: the simulation results ``assignframe simulate --json`` writes (docs/simulate.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import visuals
from .groups import METRIC_COLUMNS
from .migration import unowned_cell, unowned_chart
from .page import ReportPage, escape
from .tables import table

__all__ = ["add_simulation_section"]

_TOTAL_COLUMNS = (
    ("rebalances", "rebalances"),
    ("rounds", "rounds"),
    ("partitions_moved", "partitions moved"),
    ("max_spread", "worst max-min"),
    ("final_spread", "final max-min"),
    ("idle_member_steps", "idle member-steps"),
    ("max_lag_spread", "worst lag spread"),
)


def add_simulation_section(page: ReportPage, simulations: Sequence[Mapping[str, Any]]) -> None:
    """Add a "Simulations" section with one card per scenario result."""
    if simulations:
        body = "".join(_scenario_card(page, s) for s in simulations)
        page.add_section("simulations", f"Simulations ({len(simulations)})", body)


def _scenario_card(page: ReportPage, result: Mapping[str, Any]) -> str:
    runs = [r for r in result.get("runs") or [] if not r.get("error")]
    source = (
        f' <span class="muted">({escape(result["source"])})</span>' if result.get("source") else ""
    )
    return (
        f'<div class="card scenario" data-scenario="{escape(result["scenario"])}">'
        f"<h3>{escape(result['scenario'])}{source}</h3>"
        f"<p>{escape(result.get('description', ''))}</p>"
        f"{_errors(result)}{_totals(result)}"
        f"{_charts(page, runs)}"
        f"{''.join(_run_details(page, result, run, i == 0) for i, run in enumerate(runs))}</div>"
    )


def _errors(result: Mapping[str, Any]) -> str:
    failed = [r for r in result.get("runs") or [] if r.get("error")]
    items = "".join(f"<li>{escape(r['label'])}: {escape(r['error'])}</li>" for r in failed)
    return f'<ul class="problems">{items}</ul>' if items else ""


def _totals(result: Mapping[str, Any]) -> str:
    rows = [
        [run["label"]] + [(run.get("totals") or {}).get(key) for key, _ in _TOTAL_COLUMNS]
        for run in result.get("runs") or []
        if not run.get("error")
    ]
    return table(["run"] + [h for _, h in _TOTAL_COLUMNS], rows, css_class="totals")


def _charts(page: ReportPage, runs: Sequence[Mapping[str, Any]]) -> str:
    if not runs:
        return ""
    labels = [step["name"] for step in runs[0]["steps"]]

    def per_step(key: str) -> dict[str, list[Any]]:
        return {r["label"]: [s["metrics"].get(key) for s in r["steps"]] for r in runs}

    spread = visuals.lines(
        "Balance: max-min partitions per member",
        labels,
        per_step("spread"),
        counts=True,
        when_all_zero="Balance: every run has max-min 0 at every step.",
    )
    moved = visuals.lines(
        "Partitions moved per step",
        labels,
        per_step("partitions_moved"),
        counts=True,
        when_all_zero="No movement: no run moves a partition in any step.",
    )
    rounds = visuals.bars(
        "Rebalance rounds per step",
        labels,
        per_step("rounds"),
        counts=True,
        when_all_zero="No rebalance round in any step.",
    )
    unowned = unowned_chart(runs)
    extra = page.visual(unowned) if unowned is not None else ""
    return page.visual(spread) + page.visual(moved) + page.visual(rounds) + extra


def _run_details(
    page: ReportPage, result: Mapping[str, Any], run: Mapping[str, Any], is_open: bool
) -> str:
    steps = run["steps"]
    members = sorted({m for step in steps for m in step.get("members", [])})
    views = [(f"{s['index']}: {s['name']}", s.get("assignment") or {}) for s in steps]
    spec = visuals.heatmap(f"{result['scenario']} · {run['label']}", members, views)
    spec["views"].reverse()  # the final step first: where the run ends up
    rows = [_step_row(s) for s in steps]
    headers = ["step", "events", "protocol"] + [h for _, h in METRIC_COLUMNS]
    headers += ["unowned (longest)", "notes"]
    return (
        f"<details{' open' if is_open else ''}>"
        f"<summary>{escape(run['label'])}: steps and assignments</summary>"
        f"{table(headers, rows, css_class='steps')}{page.visual(spec)}</details>"
    )


def _step_row(step: Mapping[str, Any]) -> list[Any]:
    metrics = step.get("metrics") or {}
    return (
        [
            f"{step['index']}: {step['name']}",
            "; ".join(step.get("events") or []),
            step.get("protocol"),
        ]
        + [metrics.get(key) for key, _ in METRIC_COLUMNS]
        + [unowned_cell(step)]
        + ["; ".join(step.get("notes") or [])]
    )
