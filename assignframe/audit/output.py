"""Where the local engine writes: rows as JSON lines and Parquet, malformed rows, the summary.

Layout of the output folder (the Spark engine writes the same names as Spark folders)::

    rows.jsonl        one JSON object per (group, strategy), columns of rows.COLUMNS
    rows.parquet      the same rows
    malformed.jsonl   {"input_row", "error"} per unreadable input row
    summary.json      the summary (docs/audit.md)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .rows import COLUMNS

__all__ = ["RowsWriter", "arrow_schema", "write_json"]

_ARROW_TYPES = {"string": "string", "int": "int64", "bool": "bool_"}


def arrow_schema() -> Any:
    """The pyarrow schema of the rows (from rows.COLUMNS)."""
    import pyarrow as pa

    return pa.schema([(name, getattr(pa, _ARROW_TYPES[kind])()) for name, kind in COLUMNS])


class RowsWriter:
    """Streams rows to ``rows.jsonl`` and (when pyarrow is installed) ``rows.parquet``."""

    def __init__(self, out_dir: Path, parquet: bool = True) -> None:
        out_dir.mkdir(parents=True, exist_ok=True)
        self.out_dir = out_dir
        self._jsonl = (out_dir / "rows.jsonl").open("w", encoding="utf-8")
        self._malformed = (out_dir / "malformed.jsonl").open("w", encoding="utf-8")
        self._parquet = self._open_parquet() if parquet else None

    def _open_parquet(self) -> Any:
        import pyarrow.parquet as pq

        return pq.ParquetWriter(self.out_dir / "rows.parquet", arrow_schema())

    def write_rows(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            self._jsonl.write(json.dumps(row, separators=(",", ":")) + "\n")
        if self._parquet is not None and rows:
            import pyarrow as pa

            self._parquet.write_table(pa.Table.from_pylist(rows, schema=self._parquet.schema))

    def write_malformed(self, malformed: list[tuple[int, str]]) -> None:
        for input_row, error in malformed:
            self._malformed.write(json.dumps({"input_row": input_row, "error": error}) + "\n")

    def close(self) -> None:
        self._jsonl.close()
        self._malformed.close()
        if self._parquet is not None:
            self._parquet.close()


def write_json(path: Path, document: Any) -> None:
    path.write_text(json.dumps(document, indent=1, sort_keys=False) + "\n", encoding="utf-8")
