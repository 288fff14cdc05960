"""``assignframe assign GROUP_FILE``: run one strategy on a group described in JSON or YAML."""

from __future__ import annotations

import argparse

from rich.table import Table

from ..metrics import round_metrics
from ..plugins.manager import get_plugin_manager
from ..replay.groupfile import group_subscription, read_group_file
from ._common import (
    CommandLineError,
    add_command,
    add_strategy_arguments,
    checked_options,
    compact_partitions,
    console,
    parse_options,
    print_json,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "assign",
        summary="assign a group's partitions (group file schema: docs/cli.md)",
        description=(
            "Run one strategy on one group (members, their topics, partition counts; JSON or\n"
            "YAML) and print the assignment and its metrics."
        ),
        examples=(
            "assignframe assign group.yaml --strategy sticky",
            "assignframe assign group.json --strategy redundant --option replicas=2 --json",
        ),
    )
    parser.add_argument("group_file", metavar="GROUP_FILE", help="JSON or YAML group description")
    add_strategy_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    group_file = read_group_file(args.group_file)
    name = args.strategy or group_file.strategy
    if not name:
        raise CommandLineError("no strategy: give --strategy or a `strategy` key", args.group_file)
    pm = get_plugin_manager()
    options = checked_options(pm, name, {**group_file.options, **parse_options(args.option)})
    strategy = pm.strategy(name, **options)
    group = group_subscription(group_file, strategy, pm)
    assignment = pm.assign(strategy, group)
    metrics = round_metrics(group, assignment, None, strategy.owners_per_partition(group))
    if args.json:
        print_json(
            {
                "strategy": name,
                "generation": group.generation,
                "assignment": {
                    m: [[tp.topic, tp.partition] for tp in a.partitions]
                    for m, a in assignment.assignments.items()
                },
                "user_data": {
                    m: None if a.user_data is None else a.user_data.hex()
                    for m, a in assignment.assignments.items()
                },
                "metrics": metrics.as_dict(),
            }
        )
        return 0
    table = Table("member", "partitions", "count", title=f"{name}: generation {group.generation}")
    for member_id, member_assignment in assignment.assignments.items():
        table.add_row(
            member_id,
            compact_partitions(member_assignment.partitions),
            str(len(member_assignment.partitions)),
        )
    out = console()
    out.print(table)
    out.print(
        f"balance score {metrics.balance_score}, spread {metrics.spread}, "
        f"idle {len(metrics.idle_members)}, {metrics.validity.describe()}"
    )
    return 0
