"""Group snapshots as Parquet: the decode schema's columns, with nested members.

Columns: ``group_id``, ``generation``, ``protocol_type``, ``protocol``, ``leader`` (scalars),
``topic_partitions`` (map<string, int32>), ``partition_lags`` (map<string, list<int64>>) and
``members`` (list of struct: member_id, group_instance_id, protocols, subscription{hex},
assignment{hex}). The audit reads either these nested columns or the same columns holding JSON
text. A row that cannot be represented (a malformed line) is written with a null ``group_id``.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice
from pathlib import Path
from typing import Any

__all__ = ["snapshot_schema", "write_snapshots_parquet"]

_MEMBER_FIELDS = ("member_id", "group_instance_id", "protocols", "subscription", "assignment")


def snapshot_schema() -> Any:
    import pyarrow as pa

    hex_struct = pa.struct([("hex", pa.string())])
    member = pa.struct(
        [
            ("member_id", pa.string()),
            ("group_instance_id", pa.string()),
            ("protocols", pa.list_(pa.string())),
            ("subscription", hex_struct),
            ("assignment", hex_struct),
        ]
    )
    return pa.schema(
        [
            ("group_id", pa.string()),
            ("generation", pa.int64()),
            ("protocol_type", pa.string()),
            ("protocol", pa.string()),
            ("leader", pa.string()),
            ("topic_partitions", pa.map_(pa.string(), pa.int32())),
            ("partition_lags", pa.map_(pa.string(), pa.list_(pa.int64()))),
            ("members", pa.list_(member)),
        ]
    )


def _row(snapshot: dict[str, Any] | str) -> dict[str, Any]:
    if isinstance(snapshot, str):
        return {"group_id": None}
    row = {
        k: snapshot.get(k)
        for k in ("group_id", "generation", "protocol_type", "protocol", "leader")
    }
    row["topic_partitions"] = list((snapshot.get("topic_partitions") or {}).items())
    lags = snapshot.get("partition_lags")
    row["partition_lags"] = None if lags is None else list(lags.items())
    row["members"] = [{k: m.get(k) for k in _MEMBER_FIELDS} for m in snapshot.get("members") or []]
    return row


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
