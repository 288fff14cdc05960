"""Stream the audit's input in chunks: JSON lines or Parquet, never the whole file at once.

Rows are numbered from 1: the physical line number for JSON lines (blank lines are skipped but
counted), the row position for Parquet. A folder is read as its part files in name order (what
Spark writes). Each chunk is a list of ``(input_row, raw)`` where ``raw`` is the line's text or
the Parquet row as a dict; parsing happens in the workers.

One group is one group id: ``decode --json`` writes a line per generation, and the audit takes a
group's latest generation (:func:`superseded_rows` names the older ones to pass over, found by a
light first pass that reads only ``group_id`` and ``generation``), unless asked for every one.
A line that is not a JSON object is never passed over: it is reported as malformed, whichever
generation it held.

A packet capture given as input is said to be one (decode it first), not read as lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..jsonview import loads

__all__ = ["InputReader", "input_format", "superseded_rows"]

#: The first bytes of pcap (both byte orders, micro- and nanosecond) and pcapng files.
_CAPTURE_MAGIC = (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\x4d\x3c\xb2\xa1",
                  b"\xa1\xb2\x3c\x4d", b"\x0a\x0d\x0d\x0a")

Chunk = list[tuple[int, Any]]


def input_format(path: Path) -> str:
    """``"parquet"`` or ``"jsonl"``, by suffix, else by the Parquet magic bytes."""
    files = _files(path)
    if not files:
        raise FileNotFoundError(f"{path}: no input files")
    first = files[0]
    if first.suffix in (".parquet", ".pq"):
        return "parquet"
    with first.open("rb") as handle:
        magic = handle.read(4)
    if magic in _CAPTURE_MAGIC:
        raise InputError(
            "a packet capture, not group snapshots: run "
            f"`assignframe decode capture {first.name} --json > snapshots.jsonl` and audit that",
            str(path),
        )
    return "parquet" if magic == b"PAR1" else "jsonl"


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(
            p
            for p in path.iterdir()
            if p.is_file() and not p.name.startswith((".", "_")) and p.stat().st_size > 0
        )
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    return [path]


# Top-level keys only: inside a member the keys are "generation_id", never "generation".
_GROUP_ID = re.compile(rb'"group_id"\s*:\s*("(?:[^"\\]|\\.)*")')
_GENERATION = re.compile(rb'"generation"\s*:\s*(-?\d+)')


def superseded_rows(path: str | Path) -> frozenset[int]:
    """Rows holding an older generation of a group id that a later row holds again (ties: the
    row that comes last wins). Rows without a readable group id are kept: they are reported as
    malformed when read."""
    latest: dict[str, tuple[int, int]] = {}
    superseded: set[int] = set()
    for row, group_id, generation in _group_generations(Path(path)):
        seen = latest.get(group_id)
        if seen is None or generation >= seen[0]:
            if seen is not None:
                superseded.add(seen[1])
            latest[group_id] = (generation, row)
        else:
            superseded.add(row)
    return frozenset(superseded)


def _group_generations(path: Path) -> Iterator[tuple[int, str, int]]:
    if input_format(path) == "parquet":
        import pyarrow.parquet as pq

        row = 0
        for part in _files(path):
            table = pq.read_table(part, columns=["group_id", "generation"])
            for group_id, generation in zip(*(c.to_pylist() for c in table.columns), strict=True):
                row += 1
                if isinstance(group_id, str):
                    yield row, group_id, generation if isinstance(generation, int) else -1
        return
    row = 0
    for part in _files(path):
        with part.open("rb") as handle:
            for line in handle:
                row += 1
                found = _GROUP_ID.search(line)
                if found is None or not _is_json_object(line):
                    continue
                try:
                    group_id = loads(found.group(1))
                except ValueError:
                    continue
                generation = _GENERATION.search(line)
                yield row, group_id, int(generation.group(1)) if generation else -1


def _is_json_object(line: bytes) -> bool:
    """A whole JSON object (a broken line must be read, and reported, not passed over)."""
    try:
        return isinstance(loads(line), dict)
    except ValueError:
        return False


class InputReader:
    """Chunks of one input; ``done``/``total`` measure progress (bytes or rows)."""

    def __init__(
        self, path: str | Path, chunk_size: int = 200, skip: frozenset[int] = frozenset()
    ) -> None:
        """:param skip: row numbers to pass over (older generations, :func:`superseded_rows`)"""
        self.path = Path(path)
        self.chunk_size = chunk_size
        self.skip = skip
        self.format = input_format(self.path)
        self.files = _files(self.path)
        self.done = 0
        self.total = self._total()

    def _total(self) -> int:
        if self.format == "jsonl":
            return sum(p.stat().st_size for p in self.files)
        import pyarrow.parquet as pq

        return sum(pq.ParquetFile(p).metadata.num_rows for p in self.files)

    def chunks(self) -> Iterator[Chunk]:
        reader = self._jsonl_chunks if self.format == "jsonl" else self._parquet_chunks
        return reader()

    def _jsonl_chunks(self) -> Iterator[Chunk]:
        chunk: Chunk = []
        line_number = 0
        for path in self.files:
            with path.open("rb") as handle:
                for line in handle:
                    line_number += 1
                    self.done += len(line)
                    text = line.decode("utf-8", errors="replace").strip()
                    if text and line_number not in self.skip:
                        chunk.append((line_number, text))
                    if len(chunk) >= self.chunk_size:
                        yield chunk
                        chunk = []
        if chunk:
            yield chunk

    def _parquet_chunks(self) -> Iterator[Chunk]:
        import pyarrow.parquet as pq

        row_number = 0
        for path in self.files:
            for batch in pq.ParquetFile(path).iter_batches(batch_size=self.chunk_size):
                rows = batch.to_pylist()
                chunk = [
                    (row_number + i + 1, row)
                    for i, row in enumerate(rows)
                    if row_number + i + 1 not in self.skip
                ]
                row_number += len(rows)
                self.done += len(rows)
                if chunk:
                    yield chunk
