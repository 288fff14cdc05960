"""``assignframe demo``: decode, simulate, audit and report on the sample data shipped inside.

Thin: calls :func:`assignframe.report.demo.run_demo` and prints where the report is.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..audit import ENGINES
from ..report.demo import DemoOptions, run_demo
from ._common import positive_int

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo", help="every tool on shipped sample data, one report", description=__doc__
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("assignframe-demo"),
        metavar="DIR",
        help="output folder (default: %(default)s)",
    )
    parser.add_argument("--engine", choices=ENGINES, default="local")
    parser.add_argument(
        "--groups", type=positive_int, default=DemoOptions.groups, help="sample fleet size"
    )
    parser.add_argument("--seed", type=int, default=DemoOptions.seed, help="sample fleet seed")
    parser.add_argument(
        "--processes", type=positive_int, help="local engine workers (default: CPU count)"
    )
    parser.add_argument("--master", default="local[*]", help="Spark master URL (spark engine)")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    options = DemoOptions(
        args.out,
        args.engine,
        args.groups,
        args.seed,
        args.processes,
        args.master,
        progress=sys.stderr.isatty(),
    )
    result = run_demo(options)
    print(f"done in {time.perf_counter() - started:.0f} s")
    print(f"report: {Path(result['report']).resolve()}")
    return 0
