"""``assignframe assign GROUP_FILE``: run one strategy on a group described in JSON or YAML.

A classic group runs a client strategy; a consumer-protocol group (``group_type: consumer``) a
broker assignor (``server:uniform``, ``server:range``), which computes each member's target from
what it owns now. The output says when the balance score is the least the group's
subscriptions allow (:func:`assignframe.audit.balance.least_balance_score`).
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.table import Table

from ..audit.balance import least_balance_score
from ..errors import UnknownStrategyError
from ..kip848.group import target_assignment
from ..metrics import RoundMetrics, round_metrics
from ..model import GroupAssignment, GroupSubscription
from ..plugins.manager import PluginManager, get_plugin_manager
from ..replay.groupfile import GroupFile, group_subscription, read_group_file
from ..server_assignor import SERVER_PREFIX
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
        description=(
            "Run one strategy on one group (members, their topics, partition counts; JSON or\n"
            "YAML) and print the assignment and its metrics. A consumer-protocol group\n"
            "(group_type: consumer) runs a broker assignor, e.g. server:uniform."
        ),
        examples=(
            "assignframe assign group.yaml --strategy sticky",
            "assignframe assign group.json --strategy redundant --option replicas=2 --json",
            "assignframe assign consumer-group.yaml --strategy server:uniform",
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
    options = {**group_file.options, **parse_options(args.option)}
    if name.startswith(SERVER_PREFIX) or group_file.group_type == "consumer":
        group, assignment, metrics = _server(pm, group_file, name, options)
        user_data: dict[str, Any] = {}
    else:
        options = checked_options(pm, name, options)
        strategy = pm.strategy(name, **options)
        group = group_subscription(group_file, strategy, pm)
        assignment = pm.assign(strategy, group)
        metrics = round_metrics(group, assignment, None, strategy.owners_per_partition(group))
        user_data = {
            m: None if a.user_data is None else a.user_data.hex()
            for m, a in assignment.assignments.items()
        }
    least = _least(group, metrics)
    if args.json:
        print_json(
            {
                "strategy": name,
                "generation": group.generation,
                "assignment": {
                    m: [[tp.topic, tp.partition] for tp in a.partitions]
                    for m, a in assignment.assignments.items()
                },
                "user_data": user_data,
                "metrics": metrics.as_dict(),
                "least_balance_score": least,
            }
        )
        return 0
    _print(name, group, assignment, metrics, least)
    return 0


def _server(
    pm: PluginManager, group_file: GroupFile, name: str, options: dict[str, Any]
) -> tuple[GroupSubscription, GroupAssignment, RoundMetrics]:
    """A consumer-protocol group's targets by the broker assignor ``name``, from what each
    member owns now (its ``owned_partitions``)."""
    if group_file.group_type != "consumer":
        raise CommandLineError(
            f"{name} is the broker's assignor for consumer-protocol groups: add "
            "`group_type: consumer` to the group file to see what it would assign",
            "--strategy",
        )
    if not name.startswith(SERVER_PREFIX):
        raise CommandLineError(
            f"a consumer-protocol group is assigned by the broker, not by {name!r}: give a "
            "server assignor (`assignframe plugins` lists them, e.g. server:uniform)",
            "--strategy",
        )
    if options:
        raise CommandLineError(f"{name} takes no options here", "--option")
    try:
        pm.server_assignor(name)
    except UnknownStrategyError as exc:  # names the installed ones
        raise CommandLineError(str(exc), "--strategy") from None
    group = group_subscription(group_file, None, pm)
    owned = GroupAssignment.from_partitions(
        {m: member.owned_partitions for m, member in group.members.items()}
    )
    target = target_assignment(group, owned, name, pm)
    return group, target, round_metrics(group, target, owned)


def _least(group: GroupSubscription, metrics: RoundMetrics) -> int | None:
    """The least balance score the subscriptions allow, for a valid one-owner assignment."""
    if not metrics.validity.is_valid or metrics.validity.expected_owners != 1:
        return None
    return least_balance_score(group)


def _print(
    name: str,
    group: GroupSubscription,
    assignment: GroupAssignment,
    metrics: RoundMetrics,
    least: int | None,
) -> None:
    table = Table("member", "partitions", "count", title=f"{name}: generation {group.generation}")
    for member_id, member_assignment in assignment.assignments.items():
        table.add_row(
            member_id,
            compact_partitions(member_assignment.partitions),
            str(len(member_assignment.partitions)),
        )
    out = console()
    out.print(table)
    score = f"balance score {metrics.balance_score}"
    if least is not None:
        score += (
            " (the least possible for this group)"
            if least == metrics.balance_score
            else f" (the least possible for this group is {least})"
        )
    out.print(
        f"{score}, spread {metrics.spread}, idle {len(metrics.idle_members)}, "
        f"{metrics.validity.describe()}"
    )
