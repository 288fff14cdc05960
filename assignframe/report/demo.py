"""The demo: every tool on shipped sample data, ending in one report.

1. decode the shipped captures (``assignframe/data/captures/*.pcap``) into snapshots;
2. simulate every shipped scenario (``assignframe/data/scenarios``) with every strategy;
3. generate a sample fleet (deterministic, from a seed) and audit it;
4. write ``report.html`` with the fleet, the simulations and the captured groups.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from ..audit import AuditOptions, run_audit, snapshot_view, write_fleet
from ..simulate import load_scenario, shipped_scenarios, simulate
from . import write_report

__all__ = ["DemoOptions", "run_demo", "shipped_captures"]


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


def shipped_captures() -> list[Path]:
    folder = Path(str(files("assignframe") / "data" / "captures"))
    return sorted(folder.glob("*.pcap"))


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
    views = [snapshot_view(s, s.get("source") or "") for s in snapshots]
    report = write_report(
        out / "report.html", audit_summary=summary, simulations=simulations, captures=views
    )
    return {"report": report, "summary": summary, "simulations": simulations, "captures": views}


def decode_captures(path: Path) -> list[dict[str, Any]]:
    """Decode every shipped capture; writes the snapshots as JSON lines to ``path``."""
    from ..decode.capture import decode_capture
    from ..decode.render import snapshot_dicts

    snapshots = []
    for capture in shipped_captures():
        snapshots += list(snapshot_dicts(decode_capture(capture).timelines, capture.name))
    with path.open("w", encoding="utf-8") as handle:
        for snapshot in snapshots:
            handle.write(json.dumps(snapshot, default=_hex) + "\n")
    return [json.loads(json.dumps(s, default=_hex)) for s in snapshots]


def _hex(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(type(value).__name__)
