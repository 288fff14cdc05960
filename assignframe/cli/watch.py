"""``assignframe watch``: poll a live cluster (read-only), record every change, serve metrics.

Thin: parses arguments and calls :mod:`assignframe.cluster.watch`. Reference: docs/cluster.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..cluster.exporter import WatchMetrics
from ..cluster.watch import WatchOptions, watch
from ..errors import BrokerError, InputError
from ._common import CommandLineError, add_command, port_number
from .inspect import add_cluster_arguments, cluster_settings

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "watch",
        description=(
            "Poll every consumer group of a running cluster, read-only, and record each change\n"
            "as one JSON line (epoch/generation changes, members joined and left, partitions\n"
            "moved from whom to whom, time until settled, stuck groups). Restarted on the same\n"
            "--history it resumes where it stopped. --metrics-port serves Prometheus metrics."
        ),
        examples=(
            "assignframe watch --bootstrap-server b1:9092 --history groups.jsonl "
            "--metrics-port 9308",
            "assignframe watch --bootstrap-server b1:9092 --interval 5 --duration 600",
        ),
        docs="docs/cluster.md",
    )
    add_cluster_arguments(parser)
    parser.add_argument("--interval", type=float, default=10.0, metavar="S",
                        help="seconds between polls (default: 10)")
    parser.add_argument("--duration", type=float, metavar="S",
                        help="stop after this many seconds (default: run until interrupted)")
    parser.add_argument("--history", type=Path, metavar="FILE",
                        help="append events here (JSON lines); resumes from it")
    parser.add_argument("--stuck-after", type=float, default=300.0, metavar="S",
                        help="a group not settled for this long is 'stuck' (default: 300)")
    parser.add_argument("--metrics-port", type=port_number, metavar="PORT",
                        help="serve Prometheus metrics on this port (0: any free port)")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    if args.interval <= 0:  # checked before the settings set up the logging of a live read
        raise CommandLineError("expected seconds > 0", "--interval")
    config, wanted = cluster_settings(args)
    options = WatchOptions(args.interval, args.duration, args.stuck_after, args.history,
                           args.timeout, args.generation_timeout)
    metrics = WatchMetrics()
    if args.metrics_port is not None:
        try:
            server = metrics.serve(args.metrics_port)
        except OSError as exc:  # in use, or a privileged port
            raise CommandLineError(f"cannot serve metrics on port {args.metrics_port}: "
                                   f"{exc.strerror or exc}", "--metrics-port") from None
        print(f"assignframe: metrics on http://127.0.0.1:{server.server_port}/metrics",
              file=sys.stderr, flush=True)

    def say(line: str) -> None:
        print(f"assignframe: warning: {line}", file=sys.stderr, flush=True)

    def show(group_id: str, event: dict) -> None:
        print(json.dumps({"group_id": group_id, **event}), flush=True)

    try:
        failed = watch(args.bootstrap_server, config, wanted, options, metrics, say, show)
    except BrokerError as exc:
        raise InputError(config.redact(str(exc)), "--bootstrap-server") from None
    return 1 if failed else 0
