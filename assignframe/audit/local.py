"""The local engine: a process pool over chunks of the input, streamed with bounded memory.

At most ``2 x processes`` chunks are in flight; results are written in input order as they
come back, so memory does not grow with the number of groups. One process means no pool: the
work runs here (what the benchmark calls "1 process").
"""

from __future__ import annotations

import multiprocessing
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .chunks import InputReader, superseded_rows
from .group import ChunkResult, audit_chunk, audit_group
from .options import AuditOptions
from .output import RowsWriter, write_json
from .rerun import AuditContext
from .summary import Aggregates, AttentionLists, WorstGroups, run_facts, summary_document

__all__ = ["group_details", "run_local"]

_worker_context: AuditContext | None = None


def _init_worker(strategies: tuple[str, ...]) -> None:
    global _worker_context
    _worker_context = AuditContext.create(strategies)


def _work(chunk: list[tuple[int, Any]]) -> ChunkResult:
    assert _worker_context is not None
    return audit_chunk(chunk, _worker_context)


def run_local(input_path: str | Path, out_dir: str | Path, options: AuditOptions) -> dict[str, Any]:
    """Audit ``input_path`` into ``out_dir``; returns the summary (also written as summary.json)."""
    out_dir = Path(out_dir)
    context = AuditContext.create(options.strategies)
    skip = frozenset() if options.all_generations else superseded_rows(input_path)
    reader = InputReader(input_path, options.chunk_size, skip)
    writer = RowsWriter(out_dir, options.parquet and _has_pyarrow())
    aggregates, worst = Aggregates(context.strategies), WorstGroups(options.worst)
    attention = AttentionLists()
    started = time.perf_counter()
    try:
        with _progress(options.progress, reader) as advance:
            for result in _results(reader, context, options.worker_count):
                writer.write_rows(result.rows)
                writer.write_malformed(result.malformed)
                aggregates.add_rows(result.rows)
                aggregates.add_malformed(result.malformed)
                worst.add_rows(result.rows)
                attention.add_rows(result.rows)
                advance(result.groups + len(result.malformed))
    finally:
        writer.close()  # what was written stays readable, even when a group failed
    elapsed = time.perf_counter() - started
    details = group_details(input_path, worst.input_rows(), context, options.chunk_size)
    run = run_facts("local", input_path, elapsed, aggregates, len(skip),
                    parquet=options.parquet and _has_pyarrow(), processes=options.worker_count)
    summary = summary_document(aggregates, details, run, attention.sorted())
    write_json(out_dir / "summary.json", summary)
    return summary


def _has_pyarrow() -> bool:
    """Parquet output needs pyarrow; without it the rows are written as JSON lines only."""
    import importlib.util

    return importlib.util.find_spec("pyarrow") is not None


def _results(reader: InputReader, context: AuditContext, processes: int) -> Iterator[ChunkResult]:
    if processes == 1:
        for chunk in reader.chunks():
            yield audit_chunk(chunk, context)
        return
    spawn = multiprocessing.get_context("spawn")  # no fork of a process holding threads
    with ProcessPoolExecutor(processes, spawn, _init_worker, (context.strategies,)) as pool:
        in_flight: deque[Future[ChunkResult]] = deque()
        for chunk in reader.chunks():
            in_flight.append(pool.submit(_work, chunk))
            if len(in_flight) >= 2 * processes:
                yield in_flight.popleft().result()
        while in_flight:
            yield in_flight.popleft().result()


def group_details(
    input_path: str | Path, input_rows: list[int], context: AuditContext, chunk_size: int = 200
) -> list[dict[str, Any]]:
    """A second pass over the input for the few groups the report details (worst first)."""
    wanted = set(input_rows)
    found: dict[int, dict[str, Any]] = {}
    for chunk in InputReader(input_path, chunk_size).chunks():
        for input_row, raw in chunk:
            if input_row in wanted:
                found[input_row] = audit_group(input_row, raw, context, detail=True)[1] or {}
    return [found[row] for row in input_rows if row in found]


@contextmanager
def _progress(enabled: bool, reader: InputReader) -> Iterator[Any]:
    """A rich progress bar on stderr (bytes or rows of input); a no-op when disabled."""
    if not enabled:
        yield lambda groups: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("auditing"),
        BarColumn(),
        TextColumn("{task.percentage:>3.0f}%"),
        TextColumn("{task.fields[groups]:,} groups"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True)) as progress:
        task = progress.add_task("audit", total=reader.total or None, groups=0)
        counted = 0

        def advance(groups: int) -> None:
            nonlocal counted
            counted += groups
            progress.update(task, completed=reader.done, groups=counted)

        yield advance
