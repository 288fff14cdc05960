"""The fleet audit: check every group's assignment, replay it through every strategy, recommend.

    from assignframe.audit import AuditOptions, run_audit
    summary = run_audit("snapshots.jsonl", "out/", AuditOptions(processes=2))

Input: group snapshots as ``assignframe decode --json`` writes them, or Parquet with the same
columns. Engines: ``local`` (process pool, streaming) and ``spark`` (PySpark). Output, the
recommendation rule and measured performance: docs/audit.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..snapshot import GroupSnapshot, MalformedSnapshot, read_snapshot
from .group import audit_group, snapshot_view
from .options import AuditOptions
from .recommend import Recommendation, recommend
from .synthetic import fleet_snapshots, write_fleet

__all__ = [
    "ENGINES",
    "AuditOptions",
    "GroupSnapshot",
    "MalformedSnapshot",
    "Recommendation",
    "audit_group",
    "fleet_snapshots",
    "read_snapshot",
    "recommend",
    "run_audit",
    "snapshot_view",
    "write_fleet",
]

ENGINES = ("local", "spark")


def run_audit(
    input_path: str | Path,
    out_dir: str | Path,
    options: AuditOptions | None = None,
    engine: str = "local",
) -> dict[str, Any]:
    """Audit ``input_path`` into ``out_dir`` with ``engine``; returns the summary."""
    options = options or AuditOptions()
    if engine == "local":
        from .local import run_local

        return run_local(input_path, out_dir, options)
    if engine == "spark":
        from .spark import run_spark

        return run_spark(input_path, out_dir, options)
    raise ValueError(f"unknown engine {engine!r}; expected one of {ENGINES}")
