"""The migration prediction runs on the heartbeat interval the broker is configured with, read
through DescribeConfigs, and says where it came from (issue 31, item 3).

The test broker sets ``group.consumer.heartbeat.interval.ms=500`` and
``group.consumer.session.timeout.ms=6000`` (assignframe.testing.kafka_node), not Kafka's 5 s and
45 s. The group: two kafka-python range members of ``hbt-a`` (3 partitions) and ``hbt-b`` (1):
range gives the first member a-0, a-1 and b-0 and the second a-2, so the uniform assignor's
target moves one partition from the first to the second.

What the prediction must say, from first principles: two members already in the group
heartbeat a third and two thirds of an interval I after the change (evenly spread, the change
counted as one more heartbeat); the member giving the partition up acknowledges at once, and the
member getting it gets it at its next heartbeat: the partition waits I/3 (the giver heartbeats
first) or 2I/3 (the getter first). With I = 500 ms that is about 167 or 333 ms; with Kafka's
default 5 s (the offline audit of the same snapshot) ten times as long.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from assignframe.cli import main
from assignframe.testing.paths import shared_path

from .conftest import ready, start_member

pytestmark = pytest.mark.e2e

GROUP = "hbt-g"
TOPICS = {"hbt-a": 3, "hbt-b": 1}
#: the test broker's settings (assignframe.testing.kafka_node.TEST_PROPERTIES)
BROKER_HEARTBEAT_MS, BROKER_SESSION_MS = 500, 6000
#: a deadline for the group to show both members with partitions (never a speed)
SETTLE_SECONDS = 90


def _thirds(interval_ms: int) -> tuple[float, float]:
    return interval_ms / 3, 2 * interval_ms / 3


def _is_a_third(wait: int, interval_ms: int) -> bool:
    """``wait`` is I/3 or 2I/3 of ``interval_ms``, to the millisecond the convergence keeps."""
    return any(abs(wait - third) <= 1 for third in _thirds(interval_ms))


def _inspect(capsys, bootstrap: str, out: Path) -> tuple[dict, dict]:
    """inspect GROUP --out OUT: the group's verdict and the whole verdicts.json."""
    code = main(["inspect", "--bootstrap-server", bootstrap, "--group", GROUP,
                 "--out", str(out)])
    _, err = capsys.readouterr()
    assert code == 0, err
    document = json.loads((out / "verdicts.json").read_text())
    (verdict,) = [g for g in document["groups"] if g["group_id"] == GROUP]
    return verdict, document


@pytest.fixture(scope="module")
def uneven_group(kafka_node):
    from kafka.admin import KafkaAdminClient, NewTopic

    bootstrap = kafka_node.bootstrap
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([NewTopic(t, n, 1) for t, n in TOPICS.items()])
    finally:
        admin.close()
    started = [start_member(bootstrap, GROUP, ",".join(TOPICS), "kafka-python", "range",
                            log=kafka_node.log_path) for _ in range(2)]
    try:
        for member in started:
            ready(member)
        _until_both_hold(bootstrap)
        yield bootstrap
    finally:
        for member in started:
            member.stop()


def _until_both_hold(bootstrap: str) -> None:
    """Wait (deadline SETTLE_SECONDS) until the group is Stable with its two members holding
    3 and 1 partitions, as range gives them."""
    from assignframe.cluster.config import ClientConfig
    from assignframe.cluster.inspection import inspect_cluster
    from assignframe.cluster.reader import GroupFilter

    deadline, seen = time.monotonic() + SETTLE_SECONDS, None
    while time.monotonic() < deadline:
        inspection = inspect_cluster(bootstrap, ClientConfig(), GroupFilter(GROUP), 30,
                                     generation_budget_s=0)
        snapshots = inspection.snapshots
        if snapshots and snapshots[0].group_state == "Stable":
            seen = sorted(len(a.partitions) for a in snapshots[0].current.assignments.values())
            if seen == [1, 3]:
                return
        time.sleep(1)
    pytest.fail(f"{GROUP} never held 3 and 1 partitions within {SETTLE_SECONDS} s (last {seen})")


def test_broker_heartbeat_is_read_and_used(uneven_group, capsys, tmp_path):
    verdict, document = _inspect(capsys, uneven_group, tmp_path)
    prediction = verdict["migration_prediction"]
    assert prediction["heartbeat_interval_ms"] == BROKER_HEARTBEAT_MS
    assert prediction["session_timeout_ms"] == BROKER_SESSION_MS
    assert prediction["timing_source"] == "broker config (DescribeConfigs)"
    live_wait = prediction["max_unowned_ms"]["uniform"]
    assert _is_a_third(live_wait, BROKER_HEARTBEAT_MS), live_wait
    # the same snapshot audited offline (--out runs the audit): Kafka's default 5 s, unchanged
    (row,) = [json.loads(line) for line in
              (tmp_path / "audit" / "groups.jsonl").read_text().splitlines()
              if json.loads(line)["group_id"] == GROUP]
    default_wait = row["uniform_max_unowned_ms"]
    assert _is_a_third(default_wait, 5000), default_wait
    assert abs(default_wait - 10 * live_wait) <= 10  # the same third of a ten times longer I
    # one DescribeConfigs for the pass (one coordinator), not one per group
    assert document["requests"]["DescribeConfigs"] == 1


def _kafka_configs(bootstrap: str, *args: str) -> None:
    """Kafka's own kafka-configs.sh (4.1.0, ../shared/java/tools) on the group ``GROUP``."""
    tool = shared_path(Path(__file__)) / "java" / "tools" / "bin" / "kafka-configs.sh"
    if not Path(tool).is_file():
        pytest.fail(f"Kafka's tools are needed to set a group config: {tool} (shared/java/tools)")
    done = subprocess.run(["sh", str(tool), "--bootstrap-server", bootstrap, "--entity-type",
                           "groups", "--entity-name", GROUP, "--alter", *args],
                          capture_output=True, text=True, timeout=240,
                          env={**os.environ, "KAFKA_HEAP_OPTS": "-Xmx256M"})
    assert done.returncode == 0, done.stderr[-3000:]


def test_group_config_wins_over_the_broker(uneven_group, capsys, tmp_path):
    override_ms = 1200
    _kafka_configs(uneven_group, "--add-config", f"consumer.heartbeat.interval.ms={override_ms}")
    try:
        verdict, _ = _inspect(capsys, uneven_group, tmp_path)
    finally:
        _kafka_configs(uneven_group, "--delete-config", "consumer.heartbeat.interval.ms")
    prediction = verdict["migration_prediction"]
    assert prediction["heartbeat_interval_ms"] == override_ms
    assert prediction["session_timeout_ms"] == BROKER_SESSION_MS  # not overridden: the broker's
    assert prediction["timing_source"] == (
        "heartbeat interval: group config (DescribeConfigs); "
        "session timeout: broker config (DescribeConfigs)")
    wait = prediction["max_unowned_ms"]["uniform"]
    assert _is_a_third(wait, override_ms), wait


def test_detail_names_the_timing_it_assumed(uneven_group, capsys):
    code = main(["inspect", "--bootstrap-server", uneven_group, "--group", GROUP, "--detail",
                 "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    (detail,) = [json.loads(line) for line in out.splitlines()]
    prediction = detail["migration_prediction"]
    assert (prediction["heartbeat_interval_ms"], prediction["session_timeout_ms"],
            prediction["timing_source"]) == (BROKER_HEARTBEAT_MS, BROKER_SESSION_MS,
                                             "broker config (DescribeConfigs)")
    code = main(["inspect", "--bootstrap-server", uneven_group, "--group", GROUP, "--detail",
                 "--format", "plain"])
    out, err = capsys.readouterr()
    assert code == 0, err
    [said] = [line for line in out.splitlines() if line.startswith(f"{GROUP}: upgraded")]
    wait = prediction["max_unowned_ms"]["uniform"]
    assert f"at most {wait / 1000:g} s under uniform" in said
    assert said.endswith("(heartbeat 500 ms, session timeout 6000 ms: "
                         "broker config (DescribeConfigs))")
