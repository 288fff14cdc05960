"""``assignframe report``: one self-contained HTML page from audit, simulation and decode output.

Thin: reads the files and calls :func:`assignframe.report.write_report`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..audit import snapshot_view
from ..errors import InputError, ScenarioError
from ..jsonview import loads
from ..report import write_report
from ._common import add_command, read_json, read_text

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "report",
        summary="write the HTML report",
        description=(
            "Write one self-contained HTML page from audit, simulation and decode output."
        ),
        examples=(
            "assignframe report --audit audit-out --simulation sim.json "
            "--snapshots snapshots.jsonl --out report.html",
        ),
    )
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
        summary = read_json(path)
    simulations = []
    for path in args.simulation:
        loaded = read_json(path)
        simulations += loaded if isinstance(loaded, list) else [loaded]
    captures = [view for path in args.snapshots for view in _snapshot_views(path)]
    report = write_report(
        args.out, audit_summary=summary, simulations=simulations, captures=captures
    )
    print(f"report written to {report.resolve()}")
    return 0


def _snapshot_views(path: Path) -> list[dict[str, Any]]:
    views = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            views.append(snapshot_view(loads(line), path.name))
        except (json.JSONDecodeError, ScenarioError, KeyError, TypeError, AttributeError) as exc:
            raise InputError(f"not a decode snapshot: {exc}", f"{path} line {number}") from None
    if not views:
        raise InputError("no decode snapshot in the file", str(path))
    return views
