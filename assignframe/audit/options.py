"""Options of one audit run, shared by both engines."""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["AuditOptions"]


@dataclass(frozen=True)
class AuditOptions:
    """How to run an audit.

    :param strategies: strategy names to replay (None = the default set,
        :data:`~assignframe.audit.rerun.DEFAULT_STRATEGIES`; ``("all",)`` = every installed one)
    :param processes: local engine worker processes (None = CPU count; 1 = in this process)
    :param chunk_size: groups per unit of work
    :param worst: how many worst groups the summary details (for the report)
    :param progress: show a progress bar on stderr
    :param parquet: also write ``rows.parquet`` (local engine; needs pyarrow)
    :param master: Spark master URL (spark engine)
    :param spark_partitions: minimum input partitions for Spark (None = Spark's default)
    :param all_generations: audit every row; by default a group id seen in several rows (one
        per generation, as ``decode --json`` writes them) is audited once, at its latest
    """

    strategies: tuple[str, ...] | None = None
    processes: int | None = None
    chunk_size: int = 200
    worst: int = 10
    progress: bool = False
    parquet: bool = True
    master: str = "local[*]"
    spark_partitions: int | None = None
    all_generations: bool = False

    @property
    def worker_count(self) -> int:
        return max(1, self.processes or os.cpu_count() or 1)
