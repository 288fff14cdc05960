"""Reading snapshots: the decode schema, Parquet rows, and everything malformed."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import assignframe_codec as codec
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
        # a count given but not a count is an error, never dropped and inferred
        (json.dumps(snapshot_row(topic_partitions={"t": "3"})),
         r"topic_partitions\['t'\]: expected a partition count \(an integer\), got '3'"),
        (json.dumps(snapshot_row(topic_partitions={"t": -3})),
         r"topic_partitions\['t'\]: a partition count is 0 \.\. 2,147,483,648"),
        # a size no replay can hold, given or inferred from a held partition's number
        (json.dumps(snapshot_row(topic_partitions={"t": 3, "u": 5_000_000})),
         "topic_partitions: its topics total 5,000,003 partitions; the tools replay groups of "
         "at most 5,000,000"),
        (json.dumps(snapshot_row(topic_partitions={"t": None}, members=[{
            "member_id": "a", "subscription": {"hex": codec.encode_subscription(["t"]).hex()},
            "assignment": {"hex": codec.encode_assignment([("t", 2**31 - 1)]).hex()}}])),
         "its topics total 2,147,483,648 partitions"),
    ],
)
def test_malformed_rows(raw, message):
    with pytest.raises(MalformedSnapshot, match=message):
        read_snapshot(raw)


def _operator_snapshot():
    """A mixed consumer-protocol group mid-reconciliation, with everything an operator asks."""
    from assignframe.model import Cluster, GroupAssignment, Member
    from assignframe.snapshot import GroupSnapshot, MemberInfo

    return GroupSnapshot(
        "orders-app",
        7,
        "uniform",
        {
            "m1": Member("m1", ("orders",), rack="eu-1a", group_instance_id="host-1"),
            "m2": Member("m2", ("orders",)),
        },
        GroupAssignment.from_partitions({"m1": [("orders", 0), ("orders", 1)], "m2": []}),
        Cluster({"orders": 2}),
        group_type="consumer",
        group_state="Reconciling",
        member_info={
            "m1": MemberInfo("app-1", "/10.0.0.1", None, (), "consumer", 7),
            "m2": MemberInfo("app-2", "/10.0.0.2", "apache-kafka-java 4.0.0", ("range",),
                             "classic", 6),
        },
        target=GroupAssignment.from_partitions({"m1": [("orders", 0)], "m2": [("orders", 1)]}),
        target_epoch=7,
        assignor="uniform",
        observed_at=1_767_000_000.5,
    )


def test_what_an_operator_needs_round_trips_through_json():
    from assignframe.snapshot import snapshot_to_dict

    snapshot = _operator_snapshot()
    back = read_snapshot(json.dumps(snapshot_to_dict(snapshot)))
    assert back == snapshot  # every field compared (wire bytes aside: none here)
    assert back.info("m2").member_type == "classic" and back.info("m2").member_epoch == 6
    assert back.members["m1"].rack == "eu-1a" and back.members["m1"].group_instance_id == "host-1"
    assert back.reconciling() == ("m1", "m2")  # m1 still holds orders-1, m2's target is it


def test_files_written_before_these_fields_read_as_unknown():
    snapshot = read_snapshot(json.dumps(snapshot_row()))  # no state, info, target, assignor
    assert snapshot.group_state is None and snapshot.target is None
    assert snapshot.assignor is None and snapshot.observed_at is None
    assert snapshot.info("a").client_id is None and snapshot.reconciling() == ()


def test_the_parquet_columns_are_the_json_keys():
    """Parquet input holds what a JSON line holds (issue 23: schema, group_type and notes were
    left out), derived from the one field table, and reads back to the same snapshot."""
    import pyarrow.parquet as pq  # a core dependency

    from assignframe.audit.parquet_input import snapshot_schema, write_snapshots_parquet
    from assignframe.snapshot import snapshot_to_dict

    line = snapshot_to_dict(_operator_snapshot())
    assert {"schema", "group_type", "notes", "group_state", "target_epoch"} <= set(line)
    assert snapshot_schema().names == list(line)
    member = snapshot_schema().field("members").type.value_type
    assert [member.field(i).name for i in range(member.num_fields)] == list(line["members"][0])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "snapshots.parquet"
        write_snapshots_parquet(path, [line])
        row = pq.read_table(path).to_pylist()[0]
    assert read_snapshot(row) == _operator_snapshot()
