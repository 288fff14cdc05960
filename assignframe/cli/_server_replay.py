"""``assignframe replay`` on KIP-848 server-assignor scenarios: one table (or JSON line) each."""

from __future__ import annotations

import argparse
import sys
from typing import IO, Any

from rich.table import Table

from ..plugins.manager import PluginManager
from ..replay.server import ServerReplay, read_server_scenarios, replay_server_scenario
from ._common import console, print_json

__all__ = ["run_server"]


def run_server(
    args: argparse.Namespace, pm: PluginManager, options: dict[str, Any], stream: IO[str]
) -> int:
    """Replay every scenario with ``--strategy`` (a server assignor) or the scenario's own."""
    totals = {"scenarios": 0, "rounds": 0, "matched": 0, "invalid": 0}
    name = getattr(stream, "name", "<stdin>")
    for scenario in read_server_scenarios(stream, name):
        assignor = pm.server_assignor(args.strategy or scenario["assignor"], **options)
        replay = replay_server_scenario(scenario, assignor, chain=args.chain)
        _count(totals, replay)
        if args.json:
            print_json(replay.as_dict())
        else:
            _print_table(replay)
    if not args.json:
        console().print(
            f"{totals['scenarios']} scenarios, {totals['rounds']} rounds: "
            f"{totals['matched']} equal to Java's result; "
            f"{totals['invalid']} break the assignor contract"
        )
    sys.stdout.flush()
    return 0


def _count(totals: dict[str, int], replay: ServerReplay) -> None:
    totals["scenarios"] += 1
    totals["rounds"] += len(replay.rounds)
    totals["matched"] += sum(1 for r in replay.rounds if r.matches_java)
    totals["invalid"] += sum(1 for r in replay.rounds if r.violations)


def _print_table(replay: ServerReplay) -> None:
    table = Table(
        "round",
        "event",
        "members",
        "partitions (min-max)",
        "moved",
        "Java",
        "validity",
        title=f"{replay.scenario_id} ({replay.assignor})",
    )
    for result in replay.rounds:
        metrics = result.metrics()
        java = {True: "same", False: "DIFFERENT", None: "-"}[result.matches_java]
        table.add_row(
            str(result.round.index),
            result.round.event,
            str(metrics["members"]),
            f"{metrics['partitions_assigned']} ({metrics['min']}-{metrics['max']})",
            str(metrics["moved"]),
            java,
            "valid" if not result.violations else "INVALID: " + "; ".join(result.violations),
        )
    console().print(table)
