"""``assignframe report``: one self-contained HTML page from audit, simulation and decode output.

Thin: reads the files and calls :func:`assignframe.report.write_report`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..audit import snapshot_view
from ..report import write_report

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("report", help="write the HTML report", description=__doc__)
    parser.add_argument(
        "--audit",
        type=Path,
        metavar="DIR|summary.json",
        help="an audit output folder or its summary.json",
    )
    parser.add_argument(
        "--simulation",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="`assignframe simulate --out` results (repeatable)",
    )
    parser.add_argument(
        "--snapshots",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="`assignframe decode capture --json` output (repeatable)",
    )
    parser.add_argument("--out", "-o", type=Path, default=Path("report.html"), metavar="PATH")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    summary = None
    if args.audit:
        path = args.audit / "summary.json" if args.audit.is_dir() else args.audit
        summary = json.loads(path.read_text(encoding="utf-8"))
    simulations = []
    for path in args.simulation:
        loaded = json.loads(path.read_text(encoding="utf-8"))
        simulations += loaded if isinstance(loaded, list) else [loaded]
    captures = [
        snapshot_view(json.loads(line), path.name)
        for path in args.snapshots
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    report = write_report(
        args.out, audit_summary=summary, simulations=simulations, captures=captures
    )
    print(f"report written to {report.resolve()}")
    return 0
