"""Classic generations are read from ``__consumer_offsets`` within a budget of their own
(``--generation-timeout``), on Apache Kafka 4.1 (issue 31 review, finding 6): a read that does
not reach the end of a partition in time leaves that partition's groups' generations unknown
(null) and says so in one note, the rest of the pass stands and the exit status is not 1; a
partition that was read to its end keeps its groups' generations."""

from __future__ import annotations

import json
import time

import pytest

from assignframe.cli import main
from assignframe.cluster.config import ClientConfig
from assignframe.cluster.group_records import GroupMetadataLog, offsets_partition
from assignframe.testing.kafka_python_join import poll_until_assigned

from .conftest import ready
from .test_inspect_live import _topic

pytestmark = pytest.mark.e2e


def _inspect(capsys, kafka: str, group: str, *extra: str) -> tuple[int, dict | None, str]:
    code = main(["inspect", "--bootstrap-server", kafka, "--group", group, "--json", *extra])
    out, err = capsys.readouterr()
    snapshots = [json.loads(line) for line in out.splitlines()]
    return code, snapshots[0] if snapshots else None, err


def test_a_generation_read_out_of_budget_is_a_note_not_a_skip(kafka, members, capsys):
    """A Stable classic group whose generation the default budget reads; with a budget too
    short to read anything the same group is still judged (its snapshot, exit 0), its
    generation is null, and one ``note`` line (no ``skipped`` line) says which read was cut."""
    _topic(kafka, "budget-t", 2)
    ready(members(kafka, "budget-g", "budget-t", "kafka-python", "range"))
    deadline, snapshot = time.monotonic() + 90, None
    while time.monotonic() < deadline:  # until the group's record holds its one member
        code, snapshot, err = _inspect(capsys, kafka, "budget-g")
        assert code == 0, err
        if snapshot is not None and snapshot["generation"] is not None:
            break
        time.sleep(1)
    assert snapshot is not None and isinstance(snapshot["generation"], int), snapshot
    assert "note: classic generations" not in err

    code, cut, err = _inspect(capsys, kafka, "budget-g", "--generation-timeout", "0.001")
    assert code == 0, err
    assert cut is not None and cut["group_id"] == "budget-g", cut
    assert cut["generation"] is None
    assert [m["member_id"] for m in cut["members"]] == \
        [m["member_id"] for m in snapshot["members"]]
    lines = err.splitlines()
    assert "skipped" not in err, err
    notes = [line for line in lines if line.startswith("assignframe: note: classic generations")]
    assert notes == ["assignframe: note: classic generations unknown for 1 of 1 group(s): 1 "
                     "partition(s) of __consumer_offsets not read to their end within 0.001 s "
                     "(--generation-timeout)"], err

    code, off, err = _inspect(capsys, kafka, "budget-g", "--generation-timeout", "0")
    assert code == 0 and off is not None and off["generation"] is None, err
    assert "classic generations" not in err  # not read, as asked: nothing to say


def _emptied_group(kafka: str, group: str, topic: str) -> None:
    """A classic group that had one generation and is empty now (its record then stays as it
    is: no member commits or rejoins)."""
    from kafka import KafkaConsumer

    consumer = KafkaConsumer(topic, bootstrap_servers=kafka, group_id=group,
                             enable_auto_commit=False, session_timeout_ms=6000)
    try:
        assert poll_until_assigned(consumer, 1, 60), f"{group} was never assigned {topic}"
    finally:
        consumer.close()


def test_a_cut_read_keeps_the_partitions_read_to_their_end(kafka):
    """One log, as ``watch`` keeps it: a partition read to its end keeps its groups' records
    when a later refresh's budget runs out before a new partition is read; the new partition's
    groups are unknown (never a record read half-way)."""
    _topic(kafka, "budget-kept-t", 1)
    partitions = 3  # the test broker's offsets.topic.num.partitions (shared/java/broker)
    first = "budget-kept-a"
    second = next(g for g in (f"budget-kept-b{i}" for i in range(100))
                  if offsets_partition(g, partitions) != offsets_partition(first, partitions))
    for group in (first, second):
        _emptied_group(kafka, group, "budget-kept-t")
    deadline = time.monotonic() + 60
    while True:
        log = GroupMetadataLog(kafka, ClientConfig(), 20, budget_s=30)
        try:
            log.refresh([first], partitions)
            assert log.problem is None and log.unread == set(), log.problem
            kept = log.recorded(first)
            assert kept is not None and kept.generation >= 1 and kept.member_ids == (), kept
            log.budget_s = 1e-6
            log.refresh([first, second], partitions)
        finally:
            log.close()
        if offsets_partition(first, partitions) not in log.unread:
            break
        # another group of that partition (an earlier test's) wrote in between: read again
        assert time.monotonic() < deadline, "the first group's partition never stood still"
    assert log.problem is None
    assert log.unread == {offsets_partition(second, partitions)}
    assert log.recorded(first) == kept
    assert log.recorded(second) is None
