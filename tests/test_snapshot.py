"""Reading snapshots: the decode schema, Parquet rows, and everything malformed."""

from __future__ import annotations

import json

import pytest
from audit_snapshots import snapshot_row

from assignframe.model import TopicPartition
from assignframe.snapshot import MalformedSnapshot, read_snapshot


def test_reads_bytes_through_the_codec():
    snapshot = read_snapshot(json.dumps(snapshot_row()))
    assert snapshot.group_id == "g" and snapshot.generation == 4
    assert snapshot.members["a"].topics == ("t",)
    assert snapshot.current.partitions_of("b") == (TopicPartition("t", 2),)


def test_decoded_fields_are_used_when_hex_is_absent():
    row = snapshot_row()
    row["members"][0] = {
        "member_id": "a",
        "subscription": {"topics": ["t"]},
        "assignment": {"partitions": [["t", 0], ["t", 1]]},
    }
    assert read_snapshot(row).current.partitions_of("a") == (
        TopicPartition("t", 0),
        TopicPartition("t", 1),
    )


def test_unknown_partition_count_is_inferred_with_a_note():
    snapshot = read_snapshot(snapshot_row(topic_partitions={"t": None}))
    assert snapshot.cluster.partitions_per_topic == {"t": 3}
    assert "inferred" in snapshot.notes[0]


def test_parquet_map_columns_and_json_text_columns():
    row = snapshot_row(topic_partitions=[("t", 3)], partition_lags=[("t", [5, 0, 1])])
    row["members"] = json.dumps(row["members"])
    snapshot = read_snapshot(row)
    assert snapshot.lags[TopicPartition("t", 0)] == 5


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "expected a JSON object"),
        (json.dumps({"members": []}), "missing group_id"),
        (json.dumps({"group_id": "g", "members": []}), "no members"),
        (
            json.dumps(snapshot_row(members=[{"member_id": "a", "subscription": {"hex": "zz"}}])),
            "not hex",
        ),
        (
            json.dumps(snapshot_row(members=[{"member_id": "a", "subscription": {"hex": "0001"}}])),
            "subscription",
        ),
        (json.dumps(snapshot_row(members=[{"subscription": {}}])), "no member_id"),
    ],
)
def test_malformed_rows(raw, message):
    with pytest.raises(MalformedSnapshot, match=message):
        read_snapshot(raw)
