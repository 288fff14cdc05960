"""Stream the audit's input in chunks: JSON lines or Parquet, never the whole file at once.

Rows are numbered from 1: the physical line number for JSON lines (blank lines are skipped but
counted), the row position for Parquet. A folder is read as its part files in name order (what
Spark writes). Each chunk is a list of ``(input_row, raw)`` where ``raw`` is the line's text or
the Parquet row as a dict; parsing happens in the workers.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["InputReader", "input_format"]

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
        return "parquet" if handle.read(4) == b"PAR1" else "jsonl"


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


class InputReader:
    """Chunks of one input; ``done``/``total`` measure progress (bytes or rows)."""

    def __init__(self, path: str | Path, chunk_size: int = 200) -> None:
        self.path = Path(path)
        self.chunk_size = chunk_size
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
                    if text:
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
                chunk = [(row_number + i + 1, row) for i, row in enumerate(rows)]
                row_number += len(rows)
                self.done += len(rows)
                yield chunk
