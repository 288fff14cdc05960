"""``decode offsets --bootstrap-server`` on Apache Kafka 4.1's own ``__consumer_offsets``.

Real groups run first: a classic group of two kafka-python members (range), a consumer-protocol
group of two confluent-kafka members (``group.protocol=consumer``), both committing what they
consumed, and a group that only committed offsets (kafka-python, manual assignment). Then the
broker's records are read, and the groups rebuilt from them are compared with what the admin
APIs report of the same groups (DescribeGroups, ConsumerGroupDescribe, OffsetFetch, read through
``assignframe.cluster``), member by member.

Record types seen for these groups on Kafka 4.1 (measured): offset commits (key version 1),
group metadata (2), and of the KIP-848 types ConsumerGroupMetadata (3), MemberMetadata (5),
TargetAssignmentMetadata (6), TargetAssignmentMember (7) and CurrentMemberAssignment (8).
ConsumerGroupPartitionMetadata (4) is not written by 4.1 (KIP-1101 replaced it with a hash of
the subscribed topics' metadata), so topic ids are named from Metadata.
"""

from __future__ import annotations

import json
import time

import pytest

from assignframe.cli import main
from assignframe.cluster.config import ClientConfig
from assignframe.cluster.inspection import Inspection, inspect_cluster
from assignframe.cluster.reader import GroupFilter

from .conftest import start_member
from .test_inspect_live import _topic

pytestmark = pytest.mark.e2e

TOPIC = "ledger"
CLASSIC, CONSUMER, OFFSETS_ONLY = "offs-classic", "offs-kip848", "offs-commits-only"
#: the record key versions these groups write on Kafka 4.1 (see the module's docstring)
EXPECTED_TYPES = {
    CLASSIC: {1: "offset_commit", 2: "group_metadata"},
    CONSUMER: {1: "offset_commit", 3: "ConsumerGroupMetadata",
               5: "ConsumerGroupMemberMetadata", 6: "ConsumerGroupTargetAssignmentMetadata",
               7: "ConsumerGroupTargetAssignmentMember",
               8: "ConsumerGroupCurrentMemberAssignment"},
    OFFSETS_ONLY: {1: "offset_commit"},
}


def _commit_only(bootstrap: str) -> None:
    """Offsets committed outside any membership (manual assignment): no member ever joins."""
    from kafka import KafkaConsumer, TopicPartition
    from kafka.structs import OffsetAndMetadata

    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=OFFSETS_ONLY,
                             enable_auto_commit=False)
    try:
        consumer.commit({TopicPartition(TOPIC, 0): OffsetAndMetadata(2, "", -1),
                         TopicPartition(TOPIC, 1): OffsetAndMetadata(4, "", -1)})
    finally:
        consumer.close()


def _settled(inspection: Inspection) -> bool:
    """Both live groups own all 6 partitions, each member its share, every partition of both
    committed (members auto-commit every 5 s) and the consumer group reconciled."""
    groups = {g.group_id: g for g in inspection.read.groups}
    snapshots = {s.group_id: s for s in inspection.snapshots}
    for group_id in (CLASSIC, CONSUMER):
        snapshot = snapshots.get(group_id)
        if snapshot is None or len(snapshot.members) != 2 or snapshot.reconciling():
            return False
        if sorted(len(snapshot.current.partitions_of(m)) for m in snapshot.members) != [3, 3]:
            return False
        if len(groups[group_id].committed) != 6:
            return False
    return OFFSETS_ONLY in groups and len(groups[OFFSETS_ONLY].committed) == 2


@pytest.fixture(scope="module")
def offsets_groups(kafka_node):
    kafka = kafka_node.bootstrap
    _topic(kafka, TOPIC, 6)
    _commit_only(kafka)
    started = [start_member(kafka, group, TOPIC, client, *extra, log=kafka_node.log_path)
               for group, client, extra in ((CLASSIC, "kafka-python", ["range"]),
                                            (CLASSIC, "kafka-python", ["range"]),
                                            (CONSUMER, "confluent", []),
                                            (CONSUMER, "confluent", []))]
    wanted = GroupFilter("^offs-")
    deadline = time.monotonic() + 180
    inspection = inspect_cluster(kafka, ClientConfig(), wanted, 20)
    try:
        while not _settled(inspection):
            assert time.monotonic() < deadline, "\n".join(
                [repr([(v.group_id, v.members, v.problems) for v in inspection.verdicts])]
                + [member.describe() for member in started])
            time.sleep(1)
            inspection = inspect_cluster(kafka, ClientConfig(), wanted, 20)
        yield kafka
    finally:
        for member in started:
            member.stop()


def _decode(capsys, bootstrap: str, *args: str) -> tuple[int, str, str]:
    code = main(["decode", "offsets", "--bootstrap-server", bootstrap, "--timeout", "20", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _group_of(record: dict) -> str | None:
    key = record.get("key") or {}
    return key.get("group") or key.get("group_id")


def test_record_types_on_kafka_41(offsets_groups, capsys):
    code, out, err = _decode(capsys, offsets_groups, "--records")
    assert code == 0, err
    records = [r for r in map(json.loads, out.splitlines()) if "record_type" in r]
    assert records and all(r["error"] is None for r in records)
    for group_id, expected in EXPECTED_TYPES.items():
        seen = {(r["key_version"], r["record_type"]) for r in records
                if _group_of(r) == group_id}
        assert seen == set(expected.items()), (group_id, seen)


def _owned(snapshot: dict) -> dict[str, list[list]]:
    return {m["member_id"]: sorted(m["assignment"]["partitions"]) for m in snapshot["members"]}


def test_rebuilt_groups_equal_what_the_admin_apis_report(offsets_groups, capsys):
    code, out, err = _decode(capsys, offsets_groups, "--json")
    assert code == 0, err
    rebuilt = {s["group_id"]: s for s in map(json.loads, out.splitlines())}
    admin = inspect_cluster(offsets_groups, ClientConfig(), GroupFilter("^offs-"), 20)
    described = {s.group_id: s for s in admin.snapshots}
    committed = {g.group_id: g.committed for g in admin.read.groups}
    for group_id in (CLASSIC, CONSUMER):
        ours, theirs = rebuilt[group_id], described[group_id]
        assert ours["group_type"] == theirs.group_type
        assert _owned(ours) == {m: sorted([tp.topic, tp.partition]
                                          for tp in theirs.current.partitions_of(m))
                                for m in theirs.members}
        assert {m["member_id"]: m["client_id"] for m in ours["members"]} == \
            {m: theirs.info(m).client_id for m in theirs.members}
        assert ours["committed_offsets"] == sorted(
            [tp.topic, tp.partition, offset] for tp, offset in committed[group_id].items())
        assert ours["topic_partitions"] == {TOPIC: 6}
    classic = rebuilt[CLASSIC]
    assert classic["protocol"] == described[CLASSIC].protocol == "range"
    assert classic["generation"] >= 1  # DescribeGroups does not say it; the record does
    consumer, kip848 = rebuilt[CONSUMER], described[CONSUMER]
    assert consumer["generation"] == kip848.generation  # the group epoch
    assert consumer["target_epoch"] == kip848.target_epoch
    assert {m["member_id"]: m["member_epoch"] for m in consumer["members"]} == \
        {m: kip848.info(m).member_epoch for m in kip848.members}
    assert kip848.target is not None
    assert {m["member_id"]: sorted(m["target"]["partitions"]) for m in consumer["members"]} == \
        {m: sorted([tp.topic, tp.partition] for tp in kip848.target.partitions_of(m))
         for m in kip848.members}
    assert OFFSETS_ONLY not in rebuilt
    assert f"{OFFSETS_ONLY} (" in err and "have no members" in err


def test_json_is_audit_input_unchanged(offsets_groups, capsys, tmp_path):
    code, out, err = _decode(capsys, offsets_groups, "--json")
    assert code == 0, err
    path = tmp_path / "groups.jsonl"
    path.write_text(out)
    groups = {json.loads(line)["group_id"] for line in out.splitlines()}
    assert {CLASSIC, CONSUMER} <= groups
    assert main(["audit", str(path), "--out", str(tmp_path / "audit"), "--json",
                 "--processes", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    summary = json.loads(lines[-1])["summary"]
    assert summary["groups"] == len(groups) and summary["malformed"] == 0
    assert {json.loads(line)["group_id"] for line in lines[:-1]} == groups



def test_inspect_json_names_groups_without_members(offsets_groups, capsys):
    """inspect --json writes snapshots of groups with members; the group with committed offsets
    only is named on stderr rather than left out silently."""
    code = main(["inspect", "--bootstrap-server", offsets_groups, "--group", "^offs-", "--json",
                 "--timeout", "20"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert {json.loads(line)["group_id"] for line in out.splitlines()} == {CLASSIC, CONSUMER}
    [note] = [line for line in err.splitlines() if line.startswith("assignframe: note:")]
    assert "1 group(s) have no members" in note and f"{OFFSETS_ONLY} (Empty" in note, note
