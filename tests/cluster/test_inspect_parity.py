"""Everything kafka-consumer-groups.sh shows is in ``inspect --detail`` (issue 31, item 7),
side by side with Kafka 4.1's own tool (../shared/java/tools) on the same broker and groups:
``--describe --all-groups --offsets`` (per partition: current offset, log-end offset, lag,
consumer id, host, client id), ``--members --verbose`` (per member: host, client id, its
assignment) and ``--state`` (coordinator, assignment strategy, state, members), for a classic
kafka-python group, a consumer-protocol confluent-kafka group and a group with committed offsets
only (one partition committed: the others are not listed, and never shown as lag 0)."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assignframe.testing.paths import shared_path

from .conftest import start_member

pytestmark = pytest.mark.e2e

TOPIC = "parity-topic"
GROUPS = ("par-range", "par-kip848", "par-offsets")


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assignframe", *args], capture_output=True,
                          text=True, timeout=180)


def _detail_tsv(bootstrap: str) -> list[dict[str, str]]:
    done = _cli("inspect", "--bootstrap-server", bootstrap, "--group", ",".join(GROUPS),
                "--detail", "--format", "tsv")
    assert done.returncode == 0, done.stderr[-3000:]
    return list(csv.DictReader(io.StringIO(done.stdout), delimiter="\t"))


def _kafka_tool(bootstrap: str, *args: str) -> list[list[str]]:
    """The rows (whitespace-split, header lines dropped) kafka-consumer-groups.sh prints."""
    tool = shared_path(Path(__file__)) / "java" / "tools" / "bin" / "kafka-consumer-groups.sh"
    if not Path(tool).is_file():
        pytest.fail(f"Kafka's tools are needed for this comparison: {tool} (shared/java/tools)")
    done = subprocess.run(["sh", str(tool), "--bootstrap-server", bootstrap, "--describe",
                           "--all-groups", *args], capture_output=True, text=True, timeout=240,
                          env={**os.environ, "KAFKA_HEAP_OPTS": "-Xmx256M"})
    assert done.returncode == 0, done.stderr[-3000:]
    return [line.split() for line in done.stdout.splitlines()
            if line.strip() and line.split()[0] in GROUPS]


@pytest.fixture(scope="module")
def groups(kafka):
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    from kafka.admin import KafkaAdminClient, NewTopic
    from kafka.structs import OffsetAndMetadata

    admin = KafkaAdminClient(bootstrap_servers=kafka)
    admin.create_topics([NewTopic(TOPIC, 4, 1)])
    admin.close()
    producer = KafkaProducer(bootstrap_servers=kafka)
    for i in range(40):
        producer.send(TOPIC, b"r%d" % i, partition=i % 4)
    producer.flush()
    producer.close()
    committer = KafkaConsumer(bootstrap_servers=kafka, group_id="par-offsets",
                              enable_auto_commit=False)
    committer.commit({TopicPartition(TOPIC, 0): OffsetAndMetadata(4, "", -1)})
    committer.close()
    started = [start_member(kafka, group, TOPIC, client, *extra)
               for group, client, extra in (("par-range", "kafka-python", ["range"]),
                                            ("par-range", "kafka-python", ["range"]),
                                            ("par-kip848", "confluent", []),
                                            ("par-kip848", "confluent", []))]
    try:
        deadline = time.monotonic() + 150
        while True:  # both groups Stable, two members each, every partition owned and committed
            rows = _detail_tsv(kafka)
            owned = {(r["group"], r["state"], r["partition"], r["member_id"] != "",
                      r["current_offset"]) for r in rows if r["group"] != "par-offsets"}
            settled = {(g, "Stable", str(p), True, "10") for g in GROUPS[:2] for p in range(4)}
            members = {(r["group"], r["member_id"]) for r in rows}
            if owned == settled and len(members) == 5:
                break
            assert time.monotonic() < deadline, (rows, [m.describe() for m in started])
            time.sleep(2)
        yield kafka
    finally:
        for member in started:
            member.stop()


def _cell(value: str) -> str:
    return "" if value == "-" else value


def test_offsets_members_and_state_equal_kafka_consumer_groups(groups):
    offsets = _kafka_tool(groups, "--offsets")
    members = _kafka_tool(groups, "--members", "--verbose")
    state = _kafka_tool(groups, "--state")
    ours = _detail_tsv(groups)
    as_json = _cli("inspect", "--bootstrap-server", groups, "--group", ",".join(GROUPS),
                   "--detail", "--json")
    assert as_json.returncode == 0, as_json.stderr[-3000:]
    details = {d["group_id"]: d for d in map(json.loads, as_json.stdout.splitlines())}

    # --offsets: GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID
    theirs = {tuple(_cell(c) for c in row) for row in offsets}
    mine = {(r["group"], r["topic"], r["partition"], r["current_offset"], r["log_end_offset"],
             r["lag"], r["member_id"], r["host"], r["client_id"]) for r in ours}
    assert mine == theirs
    assert ("par-offsets", TOPIC, "0", "4", "10", "6", "", "", "") in mine
    assert len(theirs) == 4 + 4 + 1  # the offsets-only group: only its committed partition

    # --members --verbose: GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS CURRENT-EPOCH
    # CURRENT-ASSIGNMENT TARGET-EPOCH TARGET-ASSIGNMENT
    theirs = {(row[0], row[1], row[2], row[3], int(row[4]), row[6]) for row in members}
    mine = set()
    for group_id, detail in details.items():
        for m in detail["members"]:
            held = sorted(p for _, p in m["partitions"])
            assignment = f"{TOPIC}:{','.join(map(str, held))}" if held else "-"
            mine.add((group_id, m["member_id"], m["host"], m["client_id"], len(held),
                      assignment))
    assert mine == theirs and len(mine) == 4
    epochs = {row[1]: row[5] for row in members if row[0] == "par-kip848"}
    assert {m["member_id"]: str(m["member_epoch"]) for m in details["par-kip848"]["members"]} \
        == epochs

    # --state: GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE #MEMBERS
    theirs = {(row[0], row[1], row[2].strip("()"), _cell(row[3]), row[4], int(row[5]))
              for row in state}
    mine = {(g, d["coordinator"]["address"], str(d["coordinator"]["id"]), d["assignor"] or "",
             d["state"], len(d["members"])) for g, d in details.items()}
    assert mine == theirs and len(mine) == 3
