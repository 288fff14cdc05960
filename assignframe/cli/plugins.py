"""``assignframe plugins``: installed strategies and server assignors, and where they come from."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..plugins.manager import StrategyInfo, get_plugin_manager
from ._common import add_command, console, print_json

if TYPE_CHECKING:
    from rich.table import Table


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "plugins",
        description=(
            "List the installed strategies (name, distribution, version, rebalance protocols)\n"
            "and the installed server assignors (consumer, share and Streams groups)."
        ),
        examples=("assignframe plugins", "assignframe plugins --json"),
    )
    parser.add_argument("--json", action="store_true", help="machine-readable JSON output")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    pm = get_plugin_manager()
    infos = pm.strategy_info()
    servers = pm.server_assignor_info()
    if args.json:
        # One array: client strategies, then server assignors ("server:<name>", kind "server").
        print_json(
            [info.as_dict() for info in infos]
            + [
                {**info.as_dict(), "kind": "server", "group_types": list(info.protocols)}
                for info in servers
            ]
        )
        return 0
    from rich.table import Table  # rich only for the table people read (not --json)

    table = Table(
        "strategy", "distribution", "version", "protocols", "class", title="Installed strategies"
    )
    for info in infos:
        table.add_row(
            info.name,
            info.distribution or f"(plugin {info.plugin})",
            info.version or "-",
            ", ".join(info.protocols),
            info.class_path,
        )
    console().print(
        table if infos else "No strategies installed (pip install assignframe-range ...)."
    )
    if servers:
        console().print(_server_table(servers))
    return 0


def _server_table(servers: tuple[StrategyInfo, ...]) -> Table:
    """Server assignors (KIP-848, KIP-932, KIP-1071): the broker assigns with one of these."""
    from rich.table import Table

    table = Table(
        "server assignor",
        "distribution",
        "version",
        "group types",
        "class",
        title="Installed server assignors (computed by the broker)",
    )
    for info in servers:
        table.add_row(
            info.name,
            info.distribution or f"(plugin {info.plugin})",
            info.version or "-",
            ", ".join(info.protocols),
            info.class_path,
        )
    return table
