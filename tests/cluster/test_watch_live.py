"""watch on Apache Kafka 4.1: a member joins, one is killed with kill -9, the broker restarts;
the history says each change once, resumes, and the metrics endpoint serves the groups."""

from __future__ import annotations

import json
import re
import sys
import time
import urllib.request

import pytest

from assignframe.cli import main
from assignframe.testing.child import Child

from .conftest import ready
from .test_inspect_live import _topic

pytestmark = pytest.mark.e2e


def _watch(kafka: str, history, *extra: str) -> Child:
    return Child.start([sys.executable, "-m", "assignframe", "watch", "--bootstrap-server",
                        kafka, "--interval", "1", "--history", str(history),
                        "--group", "^watched$", *extra], "assignframe watch")


def _events(history) -> list[dict]:
    return [json.loads(line) for line in history.read_text().splitlines()]


def _wait_for(history, predicate, seconds: float = 90) -> list[dict]:
    deadline = time.time() + seconds
    while time.time() < deadline:
        events = _events(history) if history.exists() else []
        if predicate(events):
            return events
        time.sleep(0.5)
    pytest.fail(f"history never showed it: {history.read_text() if history.exists() else ''}")


def _index(events: list[dict], kind: str) -> int:
    return next(i for i, e in enumerate(events) if e["event"] == kind)


def _kinds_from(events: list[dict], kind: str) -> list[str]:
    """The kinds of the events from the first ``kind`` on (none before it is there)."""
    if not any(e["event"] == kind for e in events):
        return []
    return [e["event"] for e in events[_index(events, kind):]]


def test_watch_records_joins_kill_and_resumes(kafka, members, tmp_path):
    _topic(kafka, "watched-topic", 4)
    first = members(kafka, "watched", "watched-topic", "kafka-python", "range")
    ready(first)
    history = tmp_path / "history.jsonl"
    watcher = _watch(kafka, history, "--metrics-port", "0")
    try:
        served = watcher.wait_for_line(re.compile(r":\d+/"), 60, stream="stderr")
        port = int(served.rsplit(":", 1)[1].split("/")[0])
        _wait_for(history, lambda ev: any(e["event"] == "seen" for e in ev))
        second = members(kafka, "watched", "watched-topic", "kafka-python", "range")
        ready(second)
        events = _wait_for(history, lambda ev: any(e["event"] == "joined" for e in ev)
                           and ev[-1]["after"]["state"] == "Stable"
                           and len(set(ev[-1]["after"]["owners"].values())) == 2)
        metrics = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode()
        assert 'assignframe_group_members{group="watched",type="classic"} 2.0' in metrics
        assert "assignframe_rebalances_total" in metrics
        second.kill()  # kill -9: no LeaveGroup, the coordinator notices after the session
        events = _wait_for(history, lambda ev: any(e["event"] == "left" for e in ev))
        events = _wait_for(history, lambda ev: "settled" in _kinds_from(ev, "left"))
    finally:
        watcher.stop()
    # the settle after the kill: what the polls saw, and at most since the last settled poll
    # (the broker removed the member at its session timeout; no poll saw when it died)
    [settled] = [e for e in events[_index(events, "left"):] if e["event"] == "settled"][:1]
    assert settled["at_most"] is not None and settled["at_most"] >= settled["seconds"], settled
    left = [e for e in events if e["event"] == "left"]
    moved = [e for e in events if e["event"] == "moved"]
    assert len(left) == 1 and moved
    survivor = set(events[-1]["after"]["owners"].values())
    assert len(survivor) == 1 and left[0]["member_id"] not in survivor
    # resumed on the same history: nothing already said is said again
    before = history.read_text()
    again = _watch(kafka, history, "--duration", "3")
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    assert history.read_text().startswith(before)
    assert not [e for e in _events(history)[len(before.splitlines()):] if e["event"] == "seen"]
    # the history as a timeline page: the real join, kill and hand-over are on it
    page = tmp_path / "history.html"
    assert main(["report", "--history", str(history), "--out", str(page)]) == 0
    text = page.read_text()
    assert '<section id="history">' in text and "<h3>watched</h3>" in text
    assert f"<td class=\"name\">{left[0]['member_id']}</td>" in text
    assert text.count("<rect ") == len(_events(history))  # one mark per event


def test_watch_survives_a_broker_restart(kafka_node, members, tmp_path):
    kafka = kafka_node.bootstrap
    _topic(kafka, "restart-topic", 2)
    member = members(kafka, "watched", "restart-topic", "kafka-python", "range")
    ready(member)
    history = tmp_path / "history.jsonl"
    watcher = _watch(kafka, history, "--timeout", "3")
    try:
        _wait_for(history, lambda ev: any(e["event"] == "seen" for e in ev))
        kafka_node.stop()
        time.sleep(3)
        kafka_node.start()
        # a poll after the restart read the cluster again: the outage is closed in the history
        _wait_for(history, lambda ev: any(e["event"] == "readable" for e in ev), 180)
    finally:
        watcher.stop()
        out, err = watcher.communicate(timeout=30)
    assert "poll failed, reconnecting" in err
    events = _events(history)
    assert [e["event"] for e in events].count("seen") == 1  # the restart is no new group
    assert all(json.loads(line) for line in history.read_text().splitlines())
