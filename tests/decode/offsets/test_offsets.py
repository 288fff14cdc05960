"""__consumer_offsets records: golden keys/values, tombstones, files, and the live path on Tansu."""

from __future__ import annotations

import json

import pytest

from assignframe.cli import main
from assignframe.decode import Problems, decode_offsets_record
from assignframe.decode.offsets.records import read_offsets_file
from assignframe.kafka_python.offsets import consume_offsets

from ..conftest import golden_lines

KEYS = {"OffsetCommitKey": "offset_commit", "GroupMetadataKey": "group_metadata"}
VALUES = {
    "OffsetCommitValue": "0000",
    "GroupMetadataValue": "0002",
}  # a key of the right record type


def _golden_pairs():
    keys = {
        k: next(g for g in golden_lines(k) if g["version"] == (1 if k == "OffsetCommitKey" else 2))
        for k in KEYS
    }
    for line in golden_lines(*VALUES):
        key = keys["OffsetCommitKey" if line["type"] == "OffsetCommitValue" else "GroupMetadataKey"]
        yield key, line


@pytest.mark.parametrize(
    "key,value", list(_golden_pairs()), ids=lambda g: f"{g['type']}-v{g['version']}"
)
def test_golden_records_decode(key, value):
    record = decode_offsets_record(
        bytes.fromhex(key["hex_version_prefixed"]),
        bytes.fromhex(value["hex_version_prefixed"]),
        "golden",
    )
    assert record.error is None and record.record_type == KEYS[key["type"]]
    assert record.key == key["value"] and record.value_version == value["version"]
    for field, expected in value["value"].items():
        if field != "members":
            assert record.value[field] == expected
    for ours, theirs in zip(
        record.value.get("members", []), value["value"].get("members", []), strict=True
    ):
        assert (
            ours["subscription"] == theirs["subscription"]
            and ours["assignment"] == theirs["assignment"]
        )
        assert "topics" in ours["subscription_decoded"] or "error" in ours["subscription_decoded"]


def test_tombstones_and_unknown_record_types():
    key = golden_lines("GroupMetadataKey")[0]["hex_version_prefixed"]
    record = decode_offsets_record(bytes.fromhex(key), None, "x")
    assert record.tombstone and record.record_type == "group_metadata" and record.error is None
    # record type 3 (KIP-848 ConsumerGroupMetadata) is read now; its value misses the epoch
    truncated = decode_offsets_record(bytes.fromhex("0003000161"), b"\x00\x00", "x")
    assert truncated.record_type is None and "ConsumerGroupMetadataValue" in truncated.error
    unknown = decode_offsets_record(bytes.fromhex("0009000161"), None, "x")
    assert "unknown __consumer_offsets record type 9" in unknown.error


def test_file_of_records_with_a_bad_line(tmp_path, capsys):
    ((key, value),) = [p for p in _golden_pairs() if p[1]["type"] == "OffsetCommitValue"][:1]
    lines = [
        f"{key['hex_version_prefixed']} {value['hex_version_prefixed']}\n",
        json.dumps({"key": key["hex_version_prefixed"], "value": None}) + "\n",
        "not hex at all\n",
    ]
    problems = Problems()
    records = list(read_offsets_file(lines, "offsets.txt", problems))
    assert [r.tombstone for r in records] == [False, True]
    assert [str(p) for p in problems] == [
        f"offsets.txt line 3 @ byte {len(lines[0]) + len(lines[1])}: "
        "unreadable record line: expected KEY [VALUE]; skipped"
    ]
    path = tmp_path / "offsets.txt"
    path.write_text("".join(lines))
    assert main(["decode", "offsets", "--file", str(path), "--records"]) == 1
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert out[0]["value"]["offset"] == value["value"]["offset"] and out[1]["tombstone"]


@pytest.mark.slow
def test_live_read_of_a_topic_holding_offsets_records(assignframe_tansu_broker, capsys):
    """Tansu keeps group state outside __consumer_offsets, so the live path is checked on a topic
    we fill with the golden records (real Kafka-format keys and values, plus a tombstone)."""
    from kafka import KafkaProducer
    from kafka.admin import KafkaAdminClient, NewTopic

    from assignframe.testing.tansu import TansuQuirks

    kafka_broker = assignframe_tansu_broker

    admin = KafkaAdminClient(bootstrap_servers=kafka_broker.bootstrap)
    admin.create_topics([NewTopic("offsets-copy", 2, 1)])
    admin.close()
    pairs = list(_golden_pairs())
    producer = KafkaProducer(
        bootstrap_servers=kafka_broker.bootstrap, **TansuQuirks.KAFKA_PYTHON_PRODUCER
    )
    for key, value in pairs:
        producer.send(
            "offsets-copy",
            key=bytes.fromhex(key["hex_version_prefixed"]),
            value=bytes.fromhex(value["hex_version_prefixed"]),
        )
        producer.flush()
    producer.send(
        "offsets-copy", key=bytes.fromhex(pairs[0][0]["hex_version_prefixed"]), value=None
    )
    producer.flush()
    producer.close()
    problems = Problems()
    raw = list(
        consume_offsets(kafka_broker.bootstrap, problems.add, timeout_s=10, topic="offsets-copy")
    )
    assert [str(p) for p in problems] == []
    records = [decode_offsets_record(key, value, where) for key, value, where, _ in raw]
    assert len(records) == len(pairs) + 1 and sum(r.tombstone for r in records) == 1
    assert all(r.error is None for r in records)
    # the real __consumer_offsets: Tansu does not expose it; reported (exit 1), no crash
    assert (
        main(["decode", "offsets", "--bootstrap-server", kafka_broker.bootstrap, "--timeout", "5"])
        == 1
    )
    assert "__consumer_offsets not found" in capsys.readouterr().err
