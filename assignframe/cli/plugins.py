"""``assignframe plugins``: the installed strategies and where they come from."""

from __future__ import annotations

import argparse

from rich.table import Table

from ..plugins import get_plugin_manager
from ._common import console, print_json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("plugins", help="list installed strategies")
    parser.add_argument("--json", action="store_true", help="machine-readable JSON output")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    infos = get_plugin_manager().strategy_info()
    if args.json:
        print_json([info.as_dict() for info in infos])
        return 0
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
    return 0
