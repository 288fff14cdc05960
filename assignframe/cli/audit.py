"""``assignframe audit``: check a fleet's assignments, replay every strategy, recommend one.

Thin: parses arguments and calls :mod:`assignframe.audit`. Input, output and the
recommendation rule: docs/audit.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

from ..audit import ENGINES, AuditOptions, run_audit
from ..audit.chunks import input_format
from ..audit.console import print_summary
from ..errors import InputError
from ..plugins.manager import get_plugin_manager
from ._common import add_command, checked_strategies, console, positive_int, print_json

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "audit",
        description=(
            "Check a fleet's assignments from group snapshots (decode --json output, or\n"
            "Parquet), replay strategies on every group and recommend one per group. One\n"
            "group id is audited once, at its latest generation (--all-generations: every row)."
        ),
        examples=(
            "assignframe audit snapshots.jsonl --out audit-out --html audit.html",
            "assignframe audit fleet.parquet --engine spark --strategies all",
        ),
        docs="docs/audit.md",
    )
    parser.add_argument(
        "input",
        type=Path,
        metavar="INPUT",
        help="`assignframe decode --json` output or Parquet (file or folder)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("audit-out"),
        metavar="DIR",
        help="output folder (default: %(default)s)",
    )
    parser.add_argument("--engine", choices=ENGINES, default="local")
    parser.add_argument(
        "--strategies",
        type=lambda t: tuple(n.strip() for n in t.split(",") if n.strip()),
        help="comma-separated strategy names, or 'all' for every installed one "
        "(default: range, roundrobin, sticky, cooperative-sticky, fair)",
    )
    parser.add_argument(
        "--processes", type=positive_int, help="local engine workers (default: CPU count)"
    )
    parser.add_argument(
        "--chunk-size", type=positive_int, default=200, help="groups per unit of work"
    )
    parser.add_argument("--master", default="local[*]", help="Spark master URL (spark engine)")
    parser.add_argument(
        "--worst", type=int, default=10, help="worst groups detailed in the summary"
    )
    parser.add_argument(
        "--all-generations",
        action="store_true",
        help="audit every row; by default a group id in several rows (one per generation, as "
        "`decode --json` writes them) is audited once, at its latest generation",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.add_argument("--no-parquet", action="store_true", help="local engine: JSON lines only")
    parser.add_argument("--html", type=Path, metavar="PATH", help="also write the HTML report")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object per group (verdict, recommendation, migration), then "
        'the fleet roll-up as {"summary": ...}',
    )
    parser.set_defaults(handler=_run)


#: Why --strategies takes no broker assignor (said in the error when one is given).
SERVER_NOTE = (
    "the audit replays every consumer-protocol group through the broker's assignors and "
    "predicts each classic group's upgrade with them; --strategies names client strategies"
)


def _run(args: argparse.Namespace) -> int:
    """Exit 0: every row audited; 1: malformed rows skipped (listed); 2: nothing auditable."""
    if args.strategies and args.strategies != ("all",):
        checked_strategies(get_plugin_manager(), args.strategies, "--strategies", SERVER_NOTE)
    options = AuditOptions(
        strategies=args.strategies,
        processes=args.processes,
        chunk_size=args.chunk_size,
        all_generations=args.all_generations,
        worst=args.worst,
        progress=not args.no_progress and sys.stderr.isatty(),
        parquet=not args.no_parquet,
        master=args.master,
    )
    try:
        summary = run_audit(args.input, args.out, options, args.engine)
    except ModuleNotFoundError as exc:  # an engine's optional dependency (pyspark)
        raise InputError(
            f"the {args.engine} engine needs the package {exc.name} (pip install {exc.name})",
            "--engine",
        ) from None
    if not summary["groups"]:
        raise InputError(_nothing_audited(summary), str(args.input))
    for row, error in _malformed(args.out):  # each skip: one line on stderr (docs/cli.md)
        print(f"assignframe: skipped: {error} ({args.input} {_where(args.input)} {row})",
              file=sys.stderr)
    if args.json:
        for line in _part_lines(args.out / "groups.jsonl"):
            sys.stdout.write(line if line.endswith("\n") else line + "\n")
        print_json({"summary": {k: v for k, v in summary.items() if k != "worst_groups"}})
    else:
        print_summary(summary, console(), str(args.out))
    if args.html:
        from ..report import write_report

        write_report(args.html, audit_summary=summary)
    return 1 if summary["malformed"] else 0


def _where(path: Path) -> str:
    return "row" if input_format(path) == "parquet" else "line"


def _part_lines(path: Path) -> Iterator[str]:
    """The lines of an output file, or of the part files of a Spark output folder."""
    parts = sorted(p for p in path.iterdir() if p.name.startswith("part-")) if path.is_dir() else [
        path
    ]
    for part in parts:
        with part.open(encoding="utf-8") as handle:
            yield from (line for line in handle if line.strip())


def _malformed(out: Path) -> Iterator[tuple[int, str]]:
    rows = (json.loads(line) for line in _part_lines(out / "malformed.jsonl"))
    yield from sorted((int(row["input_row"]), str(row["error"])) for row in rows)


def _nothing_audited(summary: dict) -> str:
    examples = summary.get("malformed_examples") or []
    if not examples:
        return "no group snapshot in the input"
    first = examples[0]
    return (
        f"no group snapshot could be read ({summary['malformed']} malformed rows; "
        f"line {first['line']}: {first['error']})"
    )
