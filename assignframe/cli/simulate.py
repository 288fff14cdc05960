"""``assignframe simulate``: play scenario timelines through every strategy and compare.

Thin: parses arguments and calls :mod:`assignframe.simulate`. Scenario schema: docs/simulate.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path

from ..plugins.manager import get_plugin_manager
from ..simulate import (
    Scenario,
    load_scenario,
    missing_server_assignors,
    shipped_scenarios,
    simulate,
)
from ..simulate.console import print_simulation
from ._common import CommandLineError, add_command, checked_strategies, console, print_json

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "simulate",
        description=(
            "Play scenario timelines (members joining, leaving, crashing; topics growing; lag)\n"
            "through every installed strategy, or --strategies, and compare them step by step."
        ),
        examples=(
            "assignframe simulate --shipped --html sim.html",
            "assignframe simulate scenario.yaml --strategies sticky,cooperative-sticky --json",
        ),
        docs="docs/simulate.md",
    )
    parser.add_argument(
        "scenarios",
        nargs="*",
        metavar="SCENARIO",
        help="scenario files (YAML or JSON); none with --shipped",
    )
    parser.add_argument("--shipped", action="store_true", help="run every shipped scenario")
    parser.add_argument(
        "--strategies", type=_names, help="comma-separated (default: all installed)"
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--out", type=Path, metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--html", type=Path, metavar="PATH", help="also write the HTML report")
    parser.set_defaults(handler=_run)


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def _playable(scenarios: Iterable[Scenario]) -> list[Scenario]:
    """Shipped scenarios whose server assignors are installed; the others are skipped, said on
    stderr (a scenario file given by name is played and fails loudly instead)."""
    pm, playable = get_plugin_manager(), []
    for scenario in scenarios:
        missing = missing_server_assignors(scenario, pm)
        if missing:
            print(
                f"skipped {scenario.name}: needs {', '.join(missing)} (not installed)",
                file=sys.stderr,
            )
        else:
            playable.append(scenario)
    return playable


def _run(args: argparse.Namespace) -> int:
    paths = list(args.scenarios) + (shipped_scenarios() if args.shipped else [])
    if not paths:
        raise CommandLineError("give SCENARIO files or --shipped")
    if args.strategies:
        note = (
            "a scenario moves members to it with `upgrade: ID` steps and their `assignor` "
            "(docs/simulate.md); --strategies names client strategies"
        )
        checked_strategies(get_plugin_manager(), args.strategies, "--strategies", note)
    scenarios = [load_scenario(path) for path in args.scenarios]
    if args.shipped:
        scenarios += _playable(load_scenario(path) for path in shipped_scenarios())
    results = [simulate(scenario, args.strategies) for scenario in scenarios]
    if args.json:
        print_json(results)
    else:
        out = console()
        for result in results:
            print_simulation(result, out)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1), encoding="utf-8")
    if args.html:
        from ..report import write_report

        write_report(args.html, simulations=results)
    return 1 if any(run.get("error") for r in results for run in r["runs"]) else 0
