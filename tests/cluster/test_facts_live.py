"""Facts as the broker has them, on Apache Kafka 4.1 (issue 31): a classic group's generation is
the coordinator's (checked against the coordinator's own log lines), members are tracked as
members (an idle one joining and killed with kill -9), every rebalance is counted, a group that
is deleted is said to have vanished on stdout and in the metrics, a second watch on one history
is refused, a partition nothing was committed for has no lag (null, never 0), and an outage of
the broker is in the history and the metrics instead of frozen values."""

from __future__ import annotations

import json
import re
import select
import subprocess
import sys
import time
import urllib.request

import pytest

from assignframe.cli import main
from assignframe.testing.child import Child
from assignframe.testing.kafka_python_join import poll_until_assigned

from .conftest import ready
from .test_inspect_live import _topic

pytestmark = pytest.mark.e2e


def _ready(member: Child, seconds: float = 120) -> None:
    """Wait for the member's "ready" line (it owns partitions): the shared bounded wait, which
    fails with the member's state lines, stack and the broker log."""
    ready(member, seconds)


def _stabilized(kafka_node, group: str) -> list[int]:
    """The generations the coordinator logged for ``group`` ("Stabilized group G generation N",
    or "Group G with generation N is now empty"), in order: the broker's own record of each
    rebalance it completed."""
    text = (kafka_node.directory / "logs" / "server.log").read_text(errors="replace")
    name = re.escape(group)
    return [int(a or b) for a, b in re.findall(
        rf"Stabilized group {name} generation (\d+)|Group {name} with generation (\d+) is now "
        "empty", text)]


def _snapshots(capsys, kafka: str, pattern: str) -> dict[str, dict]:
    code = main(["inspect", "--bootstrap-server", kafka, f"--group={pattern}", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return {s["group_id"]: s for s in map(json.loads, out.splitlines())}


def _settled(snapshot: dict | None, members: int) -> bool:
    return snapshot is not None and snapshot["group_state"] == "Stable" and \
        len(snapshot["members"]) == members and \
        all(m["assignment"]["partitions"] for m in snapshot["members"])


def test_classic_generation_is_the_coordinators(kafka_node, members, capsys):
    """Eager kafka-python (range) and cooperative-sticky (assignframe's adapter) groups: the
    generation inspect shows is the one the coordinator logged last, not the members' JoinGroup
    number (one behind for cooperative members, none at all for eager ones)."""
    kafka = kafka_node.bootstrap
    _topic(kafka, "generation-t", 4)
    for group, strategy in (("eager-gen", "range"), ("eager-gen", "range"),
                            ("coop-gen", "cooperative-sticky"), ("coop-gen", "cooperative-sticky")):
        _ready(members(kafka, group, "generation-t", "kafka-python", strategy))
    deadline, compared = time.time() + 120, {}
    while time.time() < deadline and len(compared) < 2:
        logged = {g: _stabilized(kafka_node, g) for g in ("eager-gen", "coop-gen")}
        snapshots = _snapshots(capsys, kafka, "-gen$")
        for group, generations in logged.items():
            if _settled(snapshots.get(group), 2) and generations and \
                    generations == _stabilized(kafka_node, group):  # no rebalance in between
                compared[group] = (snapshots[group]["generation"], generations[-1])
        time.sleep(1)
    assert set(compared) == {"eager-gen", "coop-gen"}, compared
    for group, (shown, logged_last) in compared.items():
        assert shown == logged_last, (group, shown, logged_last)


def _watch(kafka: str, history, group: str, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "assignframe", "watch", "--bootstrap-server",
                             kafka, "--interval", "1", "--history", str(history),
                             "--group", f"^{group}$", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _events(history) -> list[dict]:
    return [json.loads(line) for line in history.read_text().splitlines()] \
        if history.exists() else []


def _wait_for(history, predicate, seconds: float = 90) -> list[dict]:
    deadline = time.time() + seconds
    while time.time() < deadline:
        events = _events(history)
        if predicate(events):
            return events
        time.sleep(0.5)
    pytest.fail(f"history never showed it: {history.read_text() if history.exists() else ''}")


def _scrape(port: int) -> str:
    return urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()


def _metrics_port(watcher: subprocess.Popen) -> int:
    """The port of the metrics line, the first line the watch writes (whole, flushed)."""
    ready, _, _ = select.select([watcher.stderr], [], [], 60)
    assert ready, "watch wrote no metrics line within 60 s"
    line = watcher.stderr.readline()
    return int(line.rsplit(":", 1)[1].split("/")[0])


def test_watch_tracks_members_counts_rebalances_and_says_vanished(kafka_node, members,
                                                                   tmp_path):
    """A member that holds nothing joins and is killed with kill -9: both are events; the
    generations in the history are the coordinator's and the rebalances add up to them; the
    group deleted is ``vanished`` on stdout and in the metrics; a second watch on the same
    history is refused with one error line, exit 2."""
    kafka, group = kafka_node.bootstrap, "facts-members"
    _topic(kafka, "members-t", 1)
    owner = members(kafka, group, "members-t", "kafka-python", "cooperative-sticky")
    _ready(owner)
    history = tmp_path / "history.jsonl"
    watcher = _watch(kafka, history, group, "--metrics-port", "0")
    try:
        port = _metrics_port(watcher)
        _wait_for(history, lambda ev: any(e["event"] == "seen" for e in ev))
        second = _watch(kafka, history, group, "--duration", "5")
        out, err = second.communicate(timeout=60)
        assert second.returncode == 2 and err.count("\n") == 1, err
        assert err == f"assignframe: error: another watch is writing this history ({history})\n"
        # cooperative-sticky keeps the owner's only partition: the newcomer holds nothing
        idle = members(kafka, group, "members-t", "kafka-python", "cooperative-sticky")
        events = _wait_for(history, lambda ev: any(e["event"] == "joined" for e in ev)
                           and len(ev[-1]["after"]["members"]) == 2
                           and ev[-1]["after"]["state"] == "Stable")
        joined = [e["member_id"] for e in events if e["event"] == "joined"]
        assert len(joined) == 1 and joined[0] not in events[-1]["after"]["owners"].values()
        idle.kill()  # kill -9 of a member holding nothing
        events = _wait_for(history, lambda ev: any(e["event"] == "left" for e in ev))
        assert [e["member_id"] for e in events if e["event"] == "left"] == joined
        owner.kill()
        _wait_for(history, lambda ev: ev[-1]["after"]["state"] == "Empty")
        from kafka.admin import KafkaAdminClient

        admin = KafkaAdminClient(bootstrap_servers=kafka, request_timeout_ms=30000)
        try:
            admin.delete_groups([group])
        finally:
            admin.close()
        events = _wait_for(history, lambda ev: ev[-1]["event"] == "vanished")
        metrics = _scrape(port)
    finally:
        watcher.kill()
        out, err = watcher.communicate(timeout=30)
    printed = [json.loads(line) for line in out.splitlines()]
    assert {"group_id": group, "event": "vanished"} in printed
    assert "assignframe_groups_vanished_total 1.0" in metrics
    # every generation the coordinator completed, counted once, from the generations seen
    logged = _stabilized(kafka_node, group)
    epochs = [e for e in events if e["event"] == "epoch"]
    seen = next(e for e in events if e["event"] == "seen")
    assert seen["generation"] in logged and epochs
    tos = [e["to"] for e in epochs]
    assert tos == sorted(set(tos)) and set(tos) <= set(logged), (tos, logged)
    # the broker's own log of generations it completed between the first and the last seen
    completed = [g for g in logged if seen["generation"] < g <= epochs[-1]["to"]]
    assert sum(e["rebalances"] for e in epochs) == len(completed), (epochs, logged)
    assert f'assignframe_rebalances_total{{group="{group}"}} {float(len(completed))}' in metrics


def test_a_partition_without_a_commit_has_no_lag(kafka, capsys, tmp_path):
    """A member (auto-commit off) commits one of its four partitions: the three others have no
    lag (null in the JSON, named in the verdict), not 0; the group's and the member's total lag
    is the committed partition's. Once the member has left, the offsets-only group's lag is a
    metric of its own."""
    from kafka import KafkaConsumer, TopicPartition
    from kafka.structs import OffsetAndMetadata

    from assignframe.cluster.config import ClientConfig
    from assignframe.cluster.exporter import WatchMetrics
    from assignframe.cluster.reader import GroupFilter
    from assignframe.cluster.watch import WatchOptions, watch

    _topic(kafka, "nocommit-t", 4)  # 30 records: 8 on partition 0
    consumer = KafkaConsumer("nocommit-t", bootstrap_servers=kafka, group_id="facts-nocommit",
                             enable_auto_commit=False, auto_offset_reset="earliest",
                             session_timeout_ms=30000, heartbeat_interval_ms=1000)
    try:
        assert len(poll_until_assigned(consumer, 4, 150)) == 4
        consumer.commit({TopicPartition("nocommit-t", 0): OffsetAndMetadata(5, "", -1)})
        snapshot = _snapshots(capsys, kafka, "^facts-nocommit$")["facts-nocommit"]
        code = main(["inspect", "--bootstrap-server", kafka, "--group", "^facts-nocommit$",
                     "--out", str(tmp_path)])
        capsys.readouterr()
    finally:
        consumer.close()
    assert code == 0
    assert snapshot["partition_lags"] == {"nocommit-t": [3, None, None, None]}
    verdict = json.loads((tmp_path / "verdicts.json").read_text())["groups"][0]
    member = snapshot["members"][0]["member_id"]
    assert verdict["lag"] == 3 and verdict["member_lag"] == {member: 3}
    assert verdict["no_commit"] == ["nocommit-t-1", "nocommit-t-2", "nocommit-t-3"]
    assert any(p.startswith("no commit on nocommit-t-1") for p in verdict["problems"])
    # one member running range: the best is what it runs, which is no switch
    assert verdict["recommendation"] == f"keep {snapshot['protocol']}"
    # the member left: committed offsets only, and still a lag to alert on
    metrics = WatchMetrics()
    watch(kafka, ClientConfig(), GroupFilter("^facts-nocommit$"),
          WatchOptions(interval=1, duration=0.5), metrics, lambda line: None)
    from prometheus_client import CollectorRegistry, generate_latest

    registry = CollectorRegistry()
    registry.register(type("C", (), {"collect": lambda self: metrics.families()})())
    text = generate_latest(registry).decode()
    assert 'assignframe_group_lag{group="facts-nocommit"} 3.0' in text
    assert "assignframe_up 1.0" in text


def test_a_broker_outage_is_recorded_and_the_metrics_go_stale(kafka_node, members, tmp_path):
    """The broker stopped during a watch: each group gets one ``unreadable`` event naming the
    outage and a ``readable`` one when the broker is back; meanwhile ``assignframe_up`` is 0,
    ``assignframe_group_readable`` 0, and the group's other gauges are not served."""
    kafka, group = kafka_node.bootstrap, "facts-outage"
    _topic(kafka, "outage-t", 2)
    _ready(members(kafka, group, "outage-t", "kafka-python", "range"))
    history = tmp_path / "history.jsonl"
    watcher = _watch(kafka, history, group, "--metrics-port", "0", "--timeout", "3")
    try:
        port = _metrics_port(watcher)
        _wait_for(history, lambda ev: any(e["event"] == "seen" for e in ev))
        assert "assignframe_up 1.0" in _scrape(port)
        kafka_node.stop()
        events = _wait_for(history, lambda ev: any(e["event"] == "unreadable" for e in ev))
        down = _scrape(port)
        kafka_node.start()
        events = _wait_for(history, lambda ev: any(e["event"] == "readable" for e in ev), 180)
        up = _scrape(port)
    finally:
        watcher.kill()
        watcher.communicate(timeout=30)
    unreadable = [e for e in events if e["event"] == "unreadable"]
    assert len(unreadable) == 1 and unreadable[0]["why"].startswith("cluster unreachable: ")
    readable = next(e for e in events if e["event"] == "readable")
    assert readable["seconds"] > 0
    assert "assignframe_up 0.0" in down
    assert f'assignframe_group_readable{{group="{group}"}} 0.0' in down
    assert f'assignframe_group_members{{group="{group}"' not in down
    assert "assignframe_up 1.0" in up
    stamps = re.findall(r"^assignframe_last_successful_poll_timestamp_seconds (\S+)$", up, re.M)
    assert stamps and float(stamps[0]) >= readable["time"] - 1


def test_a_rebalancing_classic_group_keeps_what_kafka_describes(kafka, members, capsys,
                                                                  tmp_path):
    """A member that stops polling keeps heartbeating (kafka-python's heartbeat thread) but
    does not rejoin, so the group stays in PreparingRebalance when a second member joins. Kafka
    describes every member with its current assignment in that state (only the subscription is
    left out): the verdict keeps it, 4 partitions held by the first member."""
    from kafka import KafkaConsumer

    _topic(kafka, "rebalancing-t", 4)
    first = KafkaConsumer("rebalancing-t", bootstrap_servers=kafka, group_id="facts-rebalancing",
                          max_poll_interval_ms=90000, session_timeout_ms=30000,
                          heartbeat_interval_ms=1000)
    try:
        assert len(poll_until_assigned(first, 4, 90)) == 4
        members(kafka, "facts-rebalancing", "rebalancing-t", "kafka-python", "range")  # joins
        verdict, deadline = None, time.time() + 60
        while time.time() < deadline:  # the first member never polls again: no rejoin
            code = main(["inspect", "--bootstrap-server", kafka, "--group", "^facts-rebalancing$",
                         "--out", str(tmp_path)])
            capsys.readouterr()
            verdict = json.loads((tmp_path / "verdicts.json").read_text())["groups"][0]
            if verdict["state"] == "PreparingRebalance" and verdict["members"] == 2:
                break
            time.sleep(1)
        # --detail shows the members with what each holds now (the first member still does)
        assert main(["inspect", "--bootstrap-server", kafka, "--group", "^facts-rebalancing$",
                     "--detail", "--json"]) == 0
        detail = json.loads(capsys.readouterr().out.splitlines()[0])
    finally:
        first.close(autocommit=False)
    assert verdict["state"] == "PreparingRebalance" and verdict["members"] == 2, verdict
    assert code == 0
    assert verdict["partitions"] == 4
    assert sorted(map(len, verdict["held"].values())) == [0, 4]
    assert sorted(p for held in verdict["held"].values() for p in held) == \
        [f"rebalancing-t-{p}" for p in range(4)]
    (holder,) = [m for m, held in verdict["held"].items() if held]
    assert detail["state"] == "PreparingRebalance"
    assert {m["member_id"]: len(m["partitions"]) for m in detail["members"]} == {
        m: len(held) for m, held in verdict["held"].items()}
    assert [(p["partition"], p["member_id"]) for p in detail["partitions"]] == \
        [(p, holder) for p in range(4)]
