"""``assignframe replay`` on KIP-848 files: one table (or JSON line) per server-assignor scenario
or member reconciliation case."""

from __future__ import annotations

import argparse
import sys
from typing import IO, Any

from rich.table import Table

from ..model import TopicPartition
from ..plugins.manager import PluginManager
from ..replay.reconcile import read_cases, replay_case
from ..replay.server import ServerReplay, replay_server_scenario
from ..replay.server_input import read_server_scenarios
from ._common import CommandLineError, compact_partitions, console, print_json

__all__ = ["run_reconcile", "run_server"]


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
            f"{metrics['partitions_assigned']} "
            f"({metrics['min_partitions']}-{metrics['max_partitions']})",
            str(metrics["partitions_moved"]),
            java,
            "valid" if not result.violations else "INVALID: " + "; ".join(result.violations),
        )
    console().print(table)


def run_reconcile(args: argparse.Namespace, stream: IO[str]) -> int:
    """Reconcile every step of every case from its recorded input; compare with its output."""
    for flag, given in (
        ("--strategy", args.strategy),
        ("--option", args.option),
        ("--chain", args.chain),
    ):
        if given:
            raise CommandLineError(f"{flag} does not apply to reconciliation cases", flag)
    name = getattr(stream, "name", "<stdin>")
    cases = steps = same = 0
    for line_number, case in read_cases(stream, name):
        replay = replay_case(case, f"{name}:{line_number}")
        cases += 1
        steps += len(replay["steps"])
        same += sum(1 for step in replay["steps"] if "difference" not in step)
        if args.json:
            print_json(replay)
        else:
            _print_case(case, replay)
    if not cases:
        raise CommandLineError("no reconciliation case in the input", name)
    if not args.json:
        console().print(
            f"{cases} cases, {steps} steps: {same} equal to the recorded output, "
            f"{steps - same} different"
        )
    sys.stdout.flush()
    return 0


def _print_case(case: dict[str, Any], replay: dict[str, Any]) -> None:
    table = Table(
        "step",
        "state",
        "epoch",
        "assigned",
        "pending revocation",
        "recorded",
        title=f"{replay['id']} ({case.get('category', case.get('kind', ''))})",
    )
    for index, (step, ours) in enumerate(zip(case["steps"], replay["steps"], strict=True)):
        member, output = step["input"]["member"], ours["output"]
        recorded = (
            "same" if "difference" not in ours else ("DIFFERENT: " + ", ".join(ours["difference"]))
        )
        if "error" in output:
            table.add_row(
                str(index),
                f"{member['state']} -> fenced",
                str(member["member_epoch"]),
                output["error"]["message"],
                "",
                recorded,
            )
            continue
        unchanged = " (unchanged)" if output["unchanged"] else ""
        table.add_row(
            str(index),
            f"{member['state']} -> {output['state']}{unchanged}",
            f"{member['member_epoch']} -> {output['member_epoch']}",
            _shown_pairs(output["assigned"]),
            _shown_pairs(output["pending_revocation"]),
            recorded,
        )
    console().print(table)


def _shown_pairs(pairs: list[list[Any]]) -> str:
    return compact_partitions(TopicPartition(topic, partition) for topic, partition in pairs)
