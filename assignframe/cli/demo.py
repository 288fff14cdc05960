"""``assignframe demo``: every tool on the sample data shipped inside, ending in one report.

The demo is orchestration, so it lives here in the CLI layer (the report only draws what it is
given; it never runs the tools it shows):

1. decode the shipped captures (``assignframe/data/captures/*.pcap``, and the share group's in
   ``captures/share/``) into snapshots;
2. simulate every shipped scenario (``assignframe/data/scenarios``) with every strategy;
3. generate a sample fleet (deterministic, from a seed) and audit it;
4. start a local broker, run a few real groups on it and ``inspect`` them
   (:mod:`assignframe.cli.demo_live`; ``--no-broker`` leaves this out);
5. write ``report.html`` with the fleet, the simulations and the captured groups.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from ..audit import ENGINES, AuditOptions, run_audit, snapshot_view, write_fleet
from ..decode.capture import decode_capture
from ..decode.views.jsonl import consumer_snapshot_dicts, json_line, snapshot_dicts
from ..report import write_report
from ..simulate import load_scenario, shipped_scenarios, simulate
from ._common import add_command, positive_int
from .demo_live import live_stage
from .inspect import print_inspection, write_inspection

__all__ = ["DemoOptions", "register", "run_demo", "shipped_captures"]


@dataclass(frozen=True)
class DemoOptions:
    """:param groups: size of the sample fleet; :param seed: its seed; the rest go to the audit."""

    out_dir: Path = Path("assignframe-demo")
    engine: str = "local"
    groups: int = 2000
    seed: int = 2024
    processes: int | None = None
    master: str = "local[*]"
    progress: bool = False
    live: bool = True


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "demo",
        description=(
            "Run every tool on the sample data shipped inside the package: decode the\n"
            "captures, simulate the scenarios with every strategy, audit a generated fleet,\n"
            "start a local broker (Apache Kafka from shared/java/broker, else Tansu) with a few\n"
            "real groups and inspect it, and write one report (its path is printed at the end)."
        ),
        examples=(
            "assignframe demo",
            "assignframe demo --out demo-out --groups 5000",
            "assignframe demo --no-broker",
        ),
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=DemoOptions.out_dir,
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
    parser.add_argument("--no-broker", dest="live", action="store_false",
                        help="leave out the live stage (no local broker, no inspect)")
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
        live=args.live,
    )
    result = run_demo(options)
    print(f"done in {time.perf_counter() - started:.0f} s")
    print(f"report: {Path(result['report']).resolve()}")
    live = result["live"]
    if live is not None and live.skipped:
        print(f"assignframe: skipped: {live.skipped}", file=sys.stderr)
        return 1
    return 0


def shipped_captures() -> list[Path]:
    """Every shipped capture: consumer groups at the top, share (and other) groups' in their
    own folders."""
    folder = Path(str(files("assignframe") / "data" / "captures"))
    return sorted(folder.glob("*.pcap")) + sorted(folder.glob("*/*.pcap"))


def run_demo(options: DemoOptions, say: Callable[[str], None] = print) -> dict[str, Any]:
    """Run the four stages; returns paths and the parts of the report."""
    out = options.out_dir
    out.mkdir(parents=True, exist_ok=True)
    snapshots = decode_captures(out / "captures.jsonl")
    say(f"decoded {len(shipped_captures())} captures: {len(snapshots)} group generations")
    simulations = [simulate(load_scenario(path)) for path in shipped_scenarios()]
    (out / "simulations.json").write_text(json.dumps(simulations, indent=1), encoding="utf-8")
    say(f"simulated {len(simulations)} scenarios")
    fleet = write_fleet(
        out / "fleet.jsonl",
        options.groups,
        options.seed,
        max_members=30,
        max_partitions=200,
        malformed_rate=0.002,
    )
    audit_options = AuditOptions(
        processes=options.processes, master=options.master, progress=options.progress
    )
    summary = run_audit(fleet, out / "audit", audit_options, options.engine)
    say(f"audited {summary['groups']:,} groups ({summary['malformed']} malformed rows skipped)")
    live = live_stage(out, say) if options.live else None
    if live is not None and live.inspection is not None:
        say(f"inspected {len(live.inspection.verdicts)} live group(s) on {live.broker}:")
        print_inspection(live.inspection)
        write_inspection(out / "inspect", None, live.inspection)
    views = [snapshot_view(snapshot, str(snapshot["source"])) for snapshot in snapshots]
    report = write_report(
        out / "report.html", audit_summary=summary, simulations=simulations, captures=views
    )
    return {"report": report, "summary": summary, "simulations": simulations, "captures": views,
            "live": live}


def decode_captures(path: Path) -> list[dict[str, Any]]:
    """Decode every shipped capture, classic and consumer-protocol groups alike: writes the JSON
    lines ``decode --json`` would to ``path`` and returns them (each generation or epoch, with
    what decode saw around it: a consumer group's hand-overs), named by their capture."""
    snapshots: list[dict[str, Any]] = []
    for capture in shipped_captures():
        result = decode_capture(capture)
        snapshots += snapshot_dicts(result.timelines, capture.name)
        snapshots += consumer_snapshot_dicts([*result.consumer_groups, *result.share_groups],
                                             capture.name)
    path.write_text("".join(json_line(s) + "\n" for s in snapshots), encoding="utf-8")
    return [json.loads(json_line(s)) for s in snapshots]  # as a reader of the file sees them
