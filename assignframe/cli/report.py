"""``assignframe report``: one self-contained HTML page from audit, simulation and decode output.

Thin: reads the files and calls :func:`assignframe.report.write_report`.
"""

from __future__ import annotations

import argparse
import json
import sys
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
        description=(
            "Write one self-contained HTML page from audit, simulation and decode output,\n"
            "'assignframe inspect --out' verdicts (every group read, of every type), and\n"
            "'assignframe watch' histories as a timeline per group."
        ),
        examples=(
            "assignframe report --audit audit-out --simulation sim.json "
            "--snapshots snapshots.jsonl --out report.html",
            "assignframe report --history groups-history.jsonl --out history.html",
            "assignframe report --verdicts inspect-out/verdicts.json --audit inspect-out/audit "
            "--out cluster.html",
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
    parser.add_argument(
        "--history",
        type=Path,
        metavar="FILE",
        help="an `assignframe watch --history` file: a timeline per group",
    )
    parser.add_argument(
        "--verdicts",
        type=Path,
        metavar="DIR|verdicts.json",
        help="an `assignframe inspect --out` folder or its verdicts.json: every group read",
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
    history, torn = _history(args.history) if args.history else ([], None)
    live = _verdicts(args.verdicts) if args.verdicts else None
    report = write_report(
        args.out, audit_summary=summary, simulations=simulations, captures=captures,
        history=history, history_source=args.history.name if args.history else "", live=live,
    )
    print(f"report written to {report.resolve()}")
    if torn:
        print(f"assignframe: skipped: {torn}", file=sys.stderr)
        return 1
    return 0


def _history(path: Path) -> tuple[list[dict[str, Any]], str | None]:
    """The events of a watch history, and a note when its last line is torn (a watch stopped
    while writing it: skipped, as ``watch`` itself skips it on resume; the file is not touched)."""
    events: list[dict[str, Any]] = []
    lines = read_text(path).split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = loads(line)
            if not (isinstance(event, dict) and isinstance(event.get("group_id"), str)
                    and isinstance(event.get("event"), str)
                    and isinstance(event.get("time"), (int, float))
                    and not isinstance(event.get("time"), bool)):
                raise ValueError("expected an object with time, group_id and event")
        except ValueError as exc:
            if number == len(lines):  # no newline after it: torn
                return events, f"the last line is torn; skipped ({path} line {number})"
            raise InputError(f"not a watch history event: {exc}", f"{path} line {number}") from None
        events.append(event)
    if not events:
        raise InputError("no watch history event in the file", str(path))
    return events, None


def _verdicts(path: Path) -> dict[str, Any]:
    """``inspect --out``'s verdicts document, checked to be one."""
    path = path / "verdicts.json" if path.is_dir() else path
    document = read_json(path)
    groups = document.get("groups") if isinstance(document, dict) else None
    if not (isinstance(groups, list) and all(isinstance(g, dict) and "group_id" in g
                                             for g in groups)):
        raise InputError("not an inspect verdicts.json: expected an object whose groups are "
                         "objects with a group_id", str(path))
    return document


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
