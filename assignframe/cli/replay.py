"""``assignframe replay FILE``: play recorded scenarios (golden ``assign.jsonl`` format).

KIP-848 server-assignor scenarios (``golden/kip848/assign.jsonl``) are detected and replayed by
:mod:`assignframe.replay.server`, member reconciliation cases (``golden/kip848/reconcile.jsonl``)
by :mod:`assignframe.replay.reconcile`; everything else goes through the group runner.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import IO, Any

from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn
from rich.table import Table

from ..plugins.manager import PluginManager, get_plugin_manager
from ..rebalance.runner import DEFAULT_MAX_FOLLOWUPS
from ..replay.classic import Replay, replay_scenario
from ..replay.reconcile import starts_with_reconcile_case
from ..replay.scenario import read_scenarios
from ..replay.server_input import open_scenarios
from ._common import (
    CommandLineError,
    add_command,
    add_strategy_arguments,
    checked_options,
    checked_strategies,
    compact_partitions,
    console,
    parse_options,
    print_json,
)
from ._server_replay import run_reconcile, run_server


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "replay",
        description=(
            "Play recorded rebalance scenarios (golden assign.jsonl layout, or KIP-848 server\n"
            "scenarios) through a strategy and compare each round with the recording; KIP-848\n"
            "member reconciliation cases (reconcile.jsonl) are reconciled step by step."
        ),
        examples=(
            "assignframe replay history.jsonl",
            "assignframe replay history.jsonl --strategy cooperative-sticky --json",
            "assignframe replay ../shared/golden/kip848/reconcile.jsonl --json",
        ),
    )
    parser.add_argument(
        "file", metavar="FILE", help="scenario file (JSON lines, JSON or YAML); - = stdin"
    )
    add_strategy_arguments(parser)
    parser.add_argument(
        "--max-followups",
        type=int,
        default=DEFAULT_MAX_FOLLOWUPS,
        help="follow-up rounds one rebalance may add (default %(default)s)",
    )
    parser.add_argument(
        "--chain",
        action="store_true",
        help="KIP-848 files: feed each round with the assignor's own previous results "
        "(needs an assignor that models Java's result order, e.g. server:uniform)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    pm = get_plugin_manager()
    options = parse_options(args.option)
    is_server, stream = open_scenarios(args.file)
    with stream:
        if is_server:
            return run_server(args, pm, options, stream)
        if starts_with_reconcile_case(stream):
            return run_reconcile(args, stream)
        return _run_classic(args, pm, options, stream)


def _run_classic(
    args: argparse.Namespace, pm: PluginManager, options: dict[str, Any], stream: IO[str]
) -> int:
    if args.strategy:
        checked_strategies(pm, [args.strategy], "--strategy")
    played = 0
    for scenario in _with_progress(read_scenarios(stream)):
        if options:
            checked_options(pm, args.strategy or scenario.get("assignor") or "", options)
        played += 1
        replay = replay_scenario(
            scenario, args.strategy, pm, options=options, max_followups=args.max_followups
        )
        if args.json:
            print_json(replay_as_dict(replay))
        else:
            _print_tables(replay)
    if not played:
        raise CommandLineError("no scenario in the input", args.file)
    return 0


def replay_as_dict(replay: Replay) -> dict[str, Any]:
    """The ``--json`` line of one scenario."""
    return {
        "id": replay.scenario_id,
        "strategy": replay.strategy,
        "settled": replay.settled,
        "rounds": [
            {
                "round": round_.index,
                "scenario_round": step.scenario_round,
                "followup": round_.followup,
                "generation": round_.generation,
                "result": round_.result_pairs(),
                "metrics": round_.metrics.as_dict(),
            }
            for step in replay.steps
            for round_ in step.rounds
        ],
    }


def _with_progress(scenarios: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Count scenarios on stderr while they stream (shown only on a terminal)."""
    stderr = Console(stderr=True)
    if not stderr.is_terminal:
        yield from scenarios
        return
    with Progress(
        SpinnerColumn(), TextColumn("{task.description}"), console=stderr, transient=True
    ) as bar:
        task = bar.add_task("replaying", total=None)
        for count, scenario in enumerate(scenarios, start=1):
            bar.update(task, description=f"replaying scenario {count}: {scenario.get('id', '')}")
            yield scenario


def _print_tables(replay: Replay) -> None:
    out = console()
    assignments = Table(
        "round", "gen", "member", "partitions", title=f"{replay.scenario_id} ({replay.strategy})"
    )
    metrics = Table("round", "gen", "balance score", "spread", "idle", "kept", "moved", "validity")
    for round_ in replay.rounds:
        label = f"{round_.index}{' (follow-up)' if round_.followup else ''}"
        for member_id, assignment in round_.assignment.assignments.items():
            assignments.add_row(
                label, str(round_.generation), member_id, compact_partitions(assignment.partitions)
            )
            label = ""
        m = round_.metrics
        metrics.add_row(
            str(round_.index),
            str(round_.generation),
            str(m.balance_score),
            str(m.spread),
            str(len(m.idle_members)),
            _dash(m.partitions_kept),
            _dash(m.partitions_moved),
            m.validity.describe(),
        )
    out.print(assignments)
    out.print(metrics)
    if not replay.settled:
        out.print("[bold red]unsettled:[/] members were still rejoining after the follow-up limit")
    sys.stdout.flush()


def _dash(value: int | None) -> str:
    return "-" if value is None else str(value)
