"""Where the local engine writes: rows as JSON lines and Parquet, malformed rows, the summary.

Layout of the output folder (the Spark engine writes the same names as Spark folders)::

    rows.jsonl        one JSON object per (group, strategy), columns of rows.COLUMNS
    rows.parquet      the same rows
    groups.jsonl      one JSON object per group: its own columns (rows.GROUP_COLUMNS and
                      rows.MIGRATION_COLUMNS), what ``audit --json`` prints per group
    migration.csv     one line per classic group: its migration verdict and prediction
    malformed.jsonl   {"input_row", "error"} per unreadable input row
    summary.json      the summary (docs/audit.md)
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .rows import COLUMNS, GROUP_COLUMNS, MIGRATION_COLUMNS

__all__ = ["MIGRATION_CSV", "RowsWriter", "arrow_schema", "migration_line", "write_json"]

#: migration.csv's header: the group, who runs it, the verdict, and per server assignor whether
#: the prediction is valid, what it moves and the longest wait of a partition (seconds).
MIGRATION_CSV = (
    "group_id",
    "protocol",
    "clients",
    "verdict",
    "why",
    "prediction",
    "uniform_valid",
    "uniform_moved",
    "uniform_max_unowned_s",
    "range_valid",
    "range_moved",
    "range_max_unowned_s",
)
_GROUP_NAMES = tuple(name for name, _ in GROUP_COLUMNS + MIGRATION_COLUMNS)


def migration_line(group: Mapping[str, Any]) -> list[Any]:
    """A classic group's line of migration.csv (its group columns in, :data:`MIGRATION_CSV`
    out). A refused group's prediction is what would happen once the causes are fixed."""
    line = [
        group["group_id"],
        group["protocol"],
        group["clients"],
        group["migration_verdict"],
        group["upgrade_refusal"] or "",
        "once the refusal is fixed" if group["upgrade_refused"] else "as is",
    ]
    for prefix in ("uniform", "range"):
        valid = group[f"{prefix}_valid"]
        wait = group[f"{prefix}_max_unowned_ms"]
        line += [
            "" if valid is None else ("yes" if valid else "no (invalid target)"),
            "" if group[f"{prefix}_moved"] is None else group[f"{prefix}_moved"],
            "" if wait is None or not valid else wait / 1000,
        ]
    return line

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
        self._groups = (out_dir / "groups.jsonl").open("w", encoding="utf-8")
        self._migration_file = (out_dir / "migration.csv").open("w", encoding="utf-8", newline="")
        self._migration = csv.writer(self._migration_file)
        self._migration.writerow(MIGRATION_CSV)
        self._malformed = (out_dir / "malformed.jsonl").open("w", encoding="utf-8")
        self._parquet = self._open_parquet() if parquet else None

    def _open_parquet(self) -> Any:
        import pyarrow.parquet as pq

        return pq.ParquetWriter(self.out_dir / "rows.parquet", arrow_schema())

    def write_rows(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            self._jsonl.write(json.dumps(row, separators=(",", ":")) + "\n")
            if row["first_of_group"]:
                group = {name: row[name] for name in _GROUP_NAMES}
                self._groups.write(json.dumps(group, separators=(",", ":")) + "\n")
                if group["migration_verdict"] is not None:
                    self._migration.writerow(migration_line(group))
        if self._parquet is not None and rows:
            import pyarrow as pa

            self._parquet.write_table(pa.Table.from_pylist(rows, schema=self._parquet.schema))

    def write_malformed(self, malformed: list[tuple[int, str]]) -> None:
        for input_row, error in malformed:
            self._malformed.write(json.dumps({"input_row": input_row, "error": error}) + "\n")

    def close(self) -> None:
        self._jsonl.close()
        self._groups.close()
        self._migration_file.close()
        self._malformed.close()
        if self._parquet is not None:
            self._parquet.close()


def write_json(path: Path, document: Any) -> None:
    path.write_text(json.dumps(document, indent=1, sort_keys=False) + "\n", encoding="utf-8")
