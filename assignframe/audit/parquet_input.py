"""Group snapshots as Parquet: one column per key of the JSON-lines form.

The schema is derived from :data:`assignframe.snapshot.SNAPSHOT_FIELDS` (every key
``snapshot_to_dict`` writes, with its type), so a row holds everything a JSON line does:
``members`` is a list of structs (ids, who the member is, subscription, assignment and target),
``topic_partitions`` a map<string, int32>, ``partition_lags`` a map<string, list<int64>>, and a
``[topic, partition]`` pair a struct ``{topic, partition}`` (Parquet lists hold one type).
``read_snapshot`` reads these columns, or the same columns holding JSON text. A row that cannot
be represented (a malformed line) is written with a null ``group_id``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import islice
from pathlib import Path
from typing import Any

from ..snapshot import SNAPSHOT_FIELDS

__all__ = ["snapshot_schema", "write_snapshots_parquet"]


def _arrow_type(kind: Any) -> Any:
    import pyarrow as pa

    if isinstance(kind, tuple):
        nested, fields = kind
        struct = pa.struct([(name, _arrow_type(sub)) for name, sub in fields])
        return pa.list_(struct) if nested == "list" else struct
    return {
        "string": pa.string,
        "int": pa.int64,
        "float": pa.float64,
        "strings": lambda: pa.list_(pa.string()),
        "pairs": lambda: pa.list_(pa.struct([("topic", pa.string()), ("partition", pa.int32())])),
        "counts": lambda: pa.map_(pa.string(), pa.int32()),
        "lags": lambda: pa.map_(pa.string(), pa.list_(pa.int64())),
    }[kind]()


def snapshot_schema() -> Any:
    """The pyarrow schema of a snapshot row (from ``SNAPSHOT_FIELDS``)."""
    import pyarrow as pa

    return pa.schema([(name, _arrow_type(kind)) for name, kind in SNAPSHOT_FIELDS])


def _value(value: Any, kind: Any) -> Any:
    """One JSON value in the form its Parquet column takes."""
    if value is None:
        return None
    if isinstance(kind, tuple):
        nested, fields = kind
        if nested == "list":
            return [_struct(item, fields) for item in value]
        return _struct(value, fields)
    if kind == "pairs":
        return [{"topic": topic, "partition": partition} for topic, partition in value]
    if kind in ("counts", "lags"):
        return list(value.items())
    return value


def _struct(value: Mapping[str, Any], fields: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    return {name: _value(value.get(name), kind) for name, kind in fields}


def _row(snapshot: dict[str, Any] | str) -> dict[str, Any]:
    if isinstance(snapshot, str):
        return {"group_id": None}
    return _struct(snapshot, SNAPSHOT_FIELDS)


def write_snapshots_parquet(
    path: Path, snapshots: Iterable[dict[str, Any] | str], batch: int = 2000
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = snapshot_schema()
    iterator = iter(snapshots)
    with pq.ParquetWriter(path, schema) as writer:
        while rows := [_row(s) for s in islice(iterator, batch)]:
            writer.write_table(pa.Table.from_pylist(rows, schema=schema))
