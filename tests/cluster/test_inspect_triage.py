"""Triage first (issue 31, item 4), on Apache Kafka 4.1 with real groups: the groups with
members and problems first and groups with committed offsets only last, a summary line, the
--state and --problem filters, --group as comma lists and repeats that never invent a row (an
id that does not exist is one "no such group" line), plain columns when piped, and TSV/CSV
carrying problems, verdicts and lag totals."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
import time

import pytest

from .conftest import start_member

pytestmark = pytest.mark.e2e

TOPIC = "triage-topic"


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assignframe", *args], capture_output=True,
                          text=True, timeout=180)


def _rows(done: subprocess.CompletedProcess, delimiter: str = "\t") -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(done.stdout), delimiter=delimiter))


@pytest.fixture(scope="module")
def triage(kafka):
    """tri-busy: 3 kafka-python members on 2 partitions (one idle: a problem); tri-ok: one
    member; tri-offsets-a and tri-offsets-b: committed offsets and no members."""
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    from kafka.admin import KafkaAdminClient, NewTopic

    admin = KafkaAdminClient(bootstrap_servers=kafka)
    admin.create_topics([NewTopic(TOPIC, 2, 1)])
    admin.close()
    producer = KafkaProducer(bootstrap_servers=kafka)
    for i in range(20):
        producer.send(TOPIC, b"r%d" % i, partition=i % 2)
    producer.flush()
    producer.close()
    for group, offset in (("tri-offsets-a", 3), ("tri-offsets-b", 5)):
        consumer = KafkaConsumer(bootstrap_servers=kafka, group_id=group,
                                 enable_auto_commit=False)
        consumer.commit({TopicPartition(TOPIC, p): _offset(offset) for p in (0, 1)})
        consumer.close()
    # tri-ok's member commits nothing (kafka-python's auto-commit would commit its position
    # about 5 s after it read, and its "no commit" would then depend on when inspect ran)
    started = [start_member(kafka, group, TOPIC, "kafka-python", "range", *extra)
               for group, extra in (("tri-busy", ()), ("tri-busy", ()), ("tri-busy", ()),
                                    ("tri-ok", ("no-commit",)))]
    try:
        deadline = time.monotonic() + 120
        while True:  # until both groups are Stable with all their members
            done = _cli("inspect", "--bootstrap-server", kafka, "--group", "tri-busy,tri-ok",
                        "--format", "tsv")
            members = {r["group"]: (r["state"], r["members"]) for r in _rows(done)}
            if members == {"tri-busy": ("Stable", "3"), "tri-ok": ("Stable", "1")}:
                break
            assert time.monotonic() < deadline, (members, done.stderr[-2000:],
                                                 [m.describe() for m in started])
            time.sleep(2)
        yield kafka
    finally:
        for member in started:
            member.stop()


def _offset(offset: int):
    from kafka.structs import OffsetAndMetadata

    try:
        return OffsetAndMetadata(offset, "", -1)
    except TypeError:  # kafka-python 2.x: (offset, metadata)
        return OffsetAndMetadata(offset, "")


def test_triage_order_summary_and_tsv(triage):
    done = _cli("inspect", "--bootstrap-server", triage, "--group", "^tri-", "--format", "tsv")
    assert done.returncode == 0, done.stderr[-2000:]
    rows = _rows(done)
    assert [r["group"] for r in rows] == ["tri-busy", "tri-ok", "tri-offsets-a",
                                          "tri-offsets-b"]  # members and problems first
    busy, ok, offsets_a, offsets_b = rows
    assert "1 idle member(s)" in busy["problems"] and busy["recommended"]
    assert busy["migration"].startswith("refused: ")  # kafka-python members
    # its member commits nothing: the one thing to say is that its lag is not known
    assert ok["problems"] == ("no commit on triage-topic-0, triage-topic-1 (lag unknown: where "
                              "the consumer starts is its auto.offset.reset)")
    assert ok["members"] == "1"
    # 20 records, 10 per partition: lag is end - committed on both partitions
    assert offsets_a["lag"] == str(2 * (10 - 3)) and offsets_b["lag"] == str(2 * (10 - 5))
    assert offsets_a["members"] == "0" and offsets_a["state"] == "Empty"
    assert "assignframe: note: " + triage + ": 4 group(s): 2 with members, " in done.stderr
    assert "2 without members" in done.stderr


def test_state_and_problem_filters(triage):
    empty = _cli("inspect", "--bootstrap-server", triage, "--group", "^tri-", "--state",
                 "empty", "--format", "csv")
    assert [r["group"] for r in _rows(empty, ",")] == ["tri-offsets-a", "tri-offsets-b"]
    idle = _cli("inspect", "--bootstrap-server", triage, "--group", "^tri-", "--problem", "idle",
                "--format", "tsv")
    assert [r["group"] for r in _rows(idle)] == ["tri-busy"]
    assert "; 1 shown" in idle.stderr
    bad = _cli("inspect", "--bootstrap-server", triage, "--state", "stabel")
    assert bad.returncode == 2 and "unknown group state stabel" in bad.stderr


def test_group_lists_and_repeats_never_invent_a_row(triage):
    listed = _cli("inspect", "--bootstrap-server", triage, "--group", "tri-ok,tri-offsets-a",
                  "--group", "tri-offsets-b", "--format", "tsv")
    assert listed.returncode == 0, listed.stderr
    assert sorted(r["group"] for r in _rows(listed)) == ["tri-offsets-a", "tri-offsets-b",
                                                         "tri-ok"]
    # a plain id is exact: 'tri' is no group, and no phantom Dead row is made of it
    missing = _cli("inspect", "--bootstrap-server", triage, "--group", "tri", "--format", "tsv")
    assert missing.returncode == 2 and missing.stdout == ""
    lines = missing.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("assignframe: error: no such group 'tri'")
    # beside a group that exists: its row, and one skipped line for the other
    partly = _cli("inspect", "--bootstrap-server", triage, "--group", "tri-ok,nope",
                  "--format", "tsv")
    assert partly.returncode == 1
    assert [r["group"] for r in _rows(partly)] == ["tri-ok"]
    assert "assignframe: skipped: no such group 'nope' (--group)" in partly.stderr


def test_plain_columns_when_piped(triage):
    done = _cli("inspect", "--bootstrap-server", triage, "--group", "^tri-")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"{triage}: 4 group(s): 2 with members, ")  # summary on top
    assert lines[1].split()[:4] == ["GROUP", "TYPE", "PROTOCOL", "STATE"]
    assert [line.split()[0] for line in lines[2:]] == ["tri-busy", "tri-ok", "tri-offsets-a",
                                                      "tri-offsets-b"]
    assert not set("┏┃━│└") & set(done.stdout)  # no box drawing in a pipe


def test_limit_cuts_the_rows_and_says_what_it_left_out(triage):
    """--limit N keeps the first N rows in triage order (the table's default is 50, so 10,000
    groups are not all drawn) and one line counts the rest and says how to see them."""
    done = _cli("inspect", "--bootstrap-server", triage, "--group", "^tri-", "--format",
                "table", "--limit", "2")
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert f"{triage}: 4 group(s): 2 with members," in lines[0] and "; 2 shown" in lines[0]
    drawn = [line.split("│")[1].strip() for line in lines if line.startswith("│")]
    assert drawn == ["tri-busy", "tri-ok"]
    assert lines[-1] == ("... 2 more group(s) not shown (0 with members, 2 without; 2 with "
                         "problems): --limit 0 shows every row, --state/--problem/--group "
                         "narrow them")
    every = _cli("inspect", "--bootstrap-server", triage, "--group", "^tri-", "--format",
                 "table", "--limit", "0")
    assert [line.split("│")[1].strip() for line in every.stdout.splitlines()
            if line.startswith("│")] == ["tri-busy", "tri-ok", "tri-offsets-a", "tri-offsets-b"]
    assert "not shown" not in every.stdout
    scripted = _cli("inspect", "--bootstrap-server", triage, "--group", "^tri-", "--format",
                    "tsv", "--limit", "3")  # the header and 3 rows; the rest said on stderr
    assert [r["group"] for r in _rows(scripted)] == ["tri-busy", "tri-ok", "tri-offsets-a"]
    assert "assignframe: note: 1 more group(s) not shown (0 with members, 1 without; 1 with " \
        "problems)" in scripted.stderr


def test_limit_below_zero_is_refused_before_reading(triage):
    done = _cli("inspect", "--bootstrap-server", triage, "--limit", "-1")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        "assignframe: error: expected a number of rows >= 0 (0: every row) (--limit)")
