"""Streams groups (KIP-1071) on Apache Kafka 4.3.1 with real Kafka Streams members (stateless,
two sub-topologies, one instance with two stream threads): what inspect reads and judges (tasks
per member by kind, balance, reconciliation, lag per sub-topology's input partitions) against
what the members print and Kafka's Admin says; kill -9 and a join as the history tells them."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request

from kafka43_cluster import create_topics, member_named, produce, verdict
from runners import describe, wait_until

from assignframe.cli import main
from assignframe.cluster.exporter import WatchMetrics
from assignframe.cluster.history import changes, state_of
from assignframe.snapshot.streams import StreamsSnapshot
from assignframe.testing.broker_base import free_port

APP, FIRST, SECOND, OUT = "streams-a", "clicks-a", "views-a", "streams-a-out"
STREAMS = "run-streams-member.sh"
ALL_TASKS = ["0_0", "0_1", "0_2", "0_3", "1_0", "1_1"]


def _member(runner, kafka, client, threads=1):
    return runner(STREAMS, kafka, APP, FIRST, OUT, client,
                  env={"CLIENTS43_STREAM_THREADS": str(threads), "CLIENTS43_INPUT2": SECOND})


def _watch(kafka: str, history, port: int) -> subprocess.Popen:
    """``assignframe watch`` of the app's group, polling every second (stdout and stderr go to
    a file next to the history: nothing reads the pipes)."""
    with open(history.with_suffix(".log"), "wb") as out:
        return subprocess.Popen([sys.executable, "-m", "assignframe", "watch",
                                 "--bootstrap-server", kafka, "--interval", "1", "--history",
                                 str(history), "--group", f"^{APP}$", "--metrics-port",
                                 str(port)], stdout=out, stderr=out)


def _history(history) -> list[dict]:
    if not history.exists():
        return []
    return [json.loads(line) for line in history.read_text().splitlines() if line.strip()]


def _threads(*runners) -> dict[str, list[str]]:
    """Each stream thread's active tasks as its instance last printed them."""
    held: dict[str, list[str]] = {}
    for r in runners:
        line = r.last("tasks")
        for thread, tasks in (line or {}).get("threads", {}).items():
            held[thread] = tasks["active"]
    return held


def _settled(kafka, runners, threads: int):
    """The verdict once ``threads`` members hold every task, none reconciling, and every
    thread's own view of its active tasks equal to what inspect read for its member."""
    def probe():
        v = verdict(kafka, APP)
        view = v.share_streams
        if not isinstance(view, StreamsSnapshot) or len(view.members) != threads or \
                v.state != "Stable" or view.reconciling() or view.unassigned():
            return None
        printed = _threads(*runners)
        read = {m.client_id: list(m.tasks["active"]) for m in view.members}
        return v if printed == read else None
    return wait_until(f"{threads} settled Streams member(s)", probe, 150, pause=1)


def test_streams_group_judged_through_kill_and_join(kafka43, runner, tmp_path, capsys):
    kafka = kafka43.bootstrap
    create_topics(kafka, {FIRST: 4, SECOND: 2, OUT: 1})
    produce(kafka, FIRST, 4, 10)
    produce(kafka, SECOND, 2, 10)
    one = _member(runner, kafka, "st-1", threads=2)
    two = _member(runner, kafka, "st-2")
    for instance in (one, two):
        instance.wait_for(lambda line: line.get("event") == "tasks" and line["active"], 150)
    first = _settled(kafka, (one, two), 3)
    view = first.share_streams
    assert view.subtopologies == {"0": (FIRST,), "1": (SECOND,)}
    assert view.all_tasks() == ALL_TASKS and first.partitions == 6
    assert first.spread == 0 and view.spread("standby") == 0  # 2 active tasks each
    assert all(m.tasks["standby"] == () and m.tasks["warmup"] == () for m in view.members)
    assert view.not_given_up() == {} and first.problems == []
    # the two threads of st-1 are two members of one process
    processes = {m.process_id for m in view.members if m.client_id.startswith("st-1-")}
    assert len(processes) == 1 and len(view.members) == 3
    history, port = tmp_path / "history.jsonl", free_port()
    watcher = _watch(kafka, history, port)
    try:
        _watched(kafka, runner, one, two, first, history, port, capsys)
    finally:
        watcher.kill()
        watcher.wait(timeout=30)


def _watched(kafka, runner, one, two, first, history, port, capsys):
    """The rest of the test, with ``assignframe watch`` running beside it."""
    view = first.share_streams
    wait_until("watch saw the group", lambda: any(e["event"] == "seen"
                                                  for e in _history(history)), 60)

    # Kafka's Admin (describeStreamsGroups) reads the same members and tasks
    admin = describe(kafka, "streams", APP)
    assert {m["member_id"]: sorted(m["active"]) for m in admin["members"]} == \
        {m.member_id: sorted(m.tasks["active"]) for m in view.members}

    # every record processed and committed: no lag on any task's input partitions
    caught_up = wait_until("lag 0 on every task", lambda: (
        lambda v: v if v.share_streams.task_lags
        and all(lag == 0 for lag in v.share_streams.task_lags.values())
        else None)(verdict(kafka, APP)), 120, pause=1)
    assert sorted(caught_up.share_streams.task_lags) == ALL_TASKS
    assert caught_up.share_streams.subtopology_lags() == {"0": 0, "1": 0}
    assert caught_up.lag_spread == 0

    before = state_of(caught_up)
    killed = member_named(caught_up.share_streams, "st-2-StreamThread-1-consumer")
    two.kill()  # kill -9: fenced after the 6 s session timeout
    alone = _settled(kafka, (one,), 2)
    events = changes(APP, before, state_of(alone), 0.0, 300)
    assert {"event": "left", "member_id": killed.member_id} in events
    moved = [e for e in events if e["event"] == "moved"][0]["partitions"]
    assert sorted(task for task, _, _ in moved) == sorted(killed.tasks["active"])
    survivors = {m.member_id for m in alone.share_streams.members}
    assert all(old == killed.member_id and new in survivors for _, old, new in moved)
    assert alone.spread == 0 and sorted(
        t for m in alone.share_streams.members for t in m.tasks["active"]) == ALL_TASKS

    # a new instance joins: tasks move to it, balanced again
    three = _member(runner, kafka, "st-3")
    joined = _settled(kafka, (one, three), 3)
    newcomer = member_named(joined.share_streams, "st-3-StreamThread-1-consumer")
    assert len(newcomer.tasks["active"]) == 2 and joined.spread == 0
    events = changes(APP, state_of(alone), state_of(joined), 0.0, 300)
    assert {"event": "joined", "member_id": newcomer.member_id} in events
    moved = [e for e in events if e["event"] == "moved"][0]["partitions"]
    assert sorted(t for t, _, new in moved if new == newcomer.member_id) == \
        sorted(newcomer.tasks["active"])

    # --detail: each member owns its active tasks' input partitions, as each thread printed
    # them (the runner's topology: sub-topology 0 reads FIRST, 1 reads SECOND)
    capsys.readouterr()
    assert main(["inspect", "--bootstrap-server", kafka, "--group", APP, "--detail",
                 "--json"]) == 0
    (detail,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    inputs = {"0": FIRST, "1": SECOND}
    printed = {thread: sorted([inputs[t.split("_")[0]], int(t.split("_")[1])] for t in tasks)
               for thread, tasks in _threads(one, three).items()}
    assert {m["client_id"]: m["partitions"] for m in detail["members"]} == printed
    assert len(printed) == 3 and detail["assignor"] == joined.share_streams.assignor
    owners = {(p["topic"], p["partition"]): p["client_id"] for p in detail["partitions"]}
    assert owners == {(tp[0], tp[1]): thread for thread, tps in printed.items() for tp in tps}

    metrics = WatchMetrics()
    metrics.verdicts, metrics.up = [joined], True  # as a poll that read the cluster sets them
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for family in metrics.families() for s in family.samples}
    assert samples[("assignframe_group_members", (("group", APP), ("type", "streams")))] == 3
    # the watch process said the same, in its history and on its metrics endpoint
    said = wait_until("watch's history naming the join", lambda: (lambda ev: ev if any(
        e["event"] == "joined" and e["member_id"] == newcomer.member_id for e in ev) else None)(
            _history(history)), 60)
    assert {"event": "left", "member_id": killed.member_id} in [
        {k: e[k] for k in ("event", "member_id")} for e in said if e["event"] == "left"]
    moves = [change for e in said for change in _ownership_changes(e)]
    assert all(_next_holder(moves, task, killed.member_id) in survivors
               for task in killed.tasks["active"])
    # the watch polls on its own clock: one poll can see the newcomer before its tasks came
    newcomer_tasks = f'assignframe_member_tasks{{client_id="{newcomer.client_id}",' \
        f'group="{APP}",kind="active",member="{newcomer.member_id}"}} 2.0'
    pages = [""]

    def three_members_the_newcomer_with_two_tasks() -> str | None:
        pages[0] = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics",
                                          timeout=10).read().decode()
        return pages[0] if (f'assignframe_group_members{{group="{APP}",type="streams"}} 3.0'
                            in pages[0] and newcomer_tasks in pages[0]) else None

    try:  # the wait is the check: the page shows both, or the test fails with the last page
        wait_until("watch's metrics of three members, the newcomer with 2 tasks",
                   three_members_the_newcomer_with_two_tasks, 60)
    except AssertionError as error:
        raise AssertionError(f"{error}; the last page:\n{pages[0]}") from None
    assert samples[("assignframe_group_partitions", (("group", APP),))] == 6
    assert samples[("assignframe_member_tasks", (
        ("client_id", newcomer.client_id), ("group", APP), ("kind", "active"),
        ("member", newcomer.member_id)))] == 2
    assert samples[("assignframe_group_reconciling_members", (("group", APP),))] == 0


def test_member_holding_tasks_it_has_not_given_up_is_named(kafka43, runner):
    """A member (StreamsGroupHeartbeat through the codec) that keeps reporting the tasks the
    broker moved to a newcomer (a real Kafka Streams member): inspect names it as holding them
    and the newcomer as waiting, until it gives them up and the group settles."""
    from raw_streams import RawStreamsMember

    kafka = kafka43.bootstrap
    app, topic = "streams-held", "held-in"
    create_topics(kafka, {topic: 4})
    stubborn = RawStreamsMember(kafka, app, topic)
    try:
        try:
            wait_until("the raw member holding all 4 tasks",
                       lambda: stubborn.held == [0, 1, 2, 3], 60)
        except AssertionError as error:
            raise AssertionError(f"{error}: it holds {stubborn.held}, epoch {stubborn.epoch}, "
                                 f"errors {stubborn.errors}") from None
        stubborn.errors.clear()  # refusals while the coordinator loaded, if any
        newcomer = runner(STREAMS, kafka, app, topic, f"{app}-out", "st-new")

        def held_back():
            # Until its next heartbeat the raw member is described with all four tasks (held
            # beyond its new target: visible); once it has been asked to revoke, Kafka describes
            # it without them and the newcomer waits for them (the state that lasts)
            v = verdict(kafka, app)
            view = v.share_streams
            if len(view.members) != 2 or not view.not_given_up() or not view.waited_for():
                return None
            return v
        stuck = wait_until("the raw member named as holding tasks", held_back, 120, pause=1)
        view = stuck.share_streams
        late = member_named(view, "st-new-StreamThread-1-consumer")
        raw = [m for m in view.members if m.member_id == stubborn.member_id][0]
        moved = [f"0_{p}" for p in range(4) if p not in stubborn.assigned]
        assert view.not_given_up() == {raw.member_id: moved}
        assert view.waited_for() == {late.member_id: moved}
        assert raw.member_epoch < view.assignment_epoch and raw.member_id in view.reconciling()
        assert late.member_id in view.reconciling() and late.tasks["active"] == ()
        assert any(p.startswith("holding tasks it has not given up: ") and raw.member_id[:8]
                   in p for p in stuck.problems), stuck.problems
        assert not stubborn.errors
        # the watch's history says it too, with since when: the member holding the tasks
        # first, then the one waiting for them (issue 31)
        first = state_of(stuck)
        changes(app, None, first, 100.0, stuck_after=30)
        [said] = [e for e in changes(app, first, state_of(stuck), 140.0, stuck_after=30)
                  if e["event"] == "stuck"]
        assert said["members"] == [
            {"member_id": raw.member_id, "client_id": raw.client_id, "epoch": raw.member_epoch,
             "not_given_up": moved, "seconds": 40.0},
            {"member_id": late.member_id, "client_id": late.client_id,
             "epoch": late.member_epoch, "not_given_up": [], "seconds": 40.0},
        ], said

        stubborn.give_up()
        settled = _settled_pair(kafka, app)
        taker = member_named(settled.share_streams, "st-new-StreamThread-1-consumer")
        assert taker.tasks["active"] == tuple(moved)
        assert settled.share_streams.not_given_up() == {} and settled.problems == []
        newcomer.wait_for(lambda line: line.get("event") == "tasks"
                          and line["active"] == moved, 60)
    finally:
        stubborn.leave()


def _settled_pair(kafka, app):
    return wait_until("the pair settled", lambda: (
        lambda v: v if len(v.share_streams.members) == 2 and not v.share_streams.reconciling()
        and not v.share_streams.unassigned() else None)(verdict(kafka, app)), 120, pause=1)


def _ownership_changes(event: dict) -> list[tuple]:
    """``(task, from, to)`` of a history event (None: nobody): ``moved`` hands a task over,
    ``revoked`` leaves it with nobody, ``added`` gives one nobody held."""
    parts = event.get("partitions") or []
    if event["event"] == "revoked":
        return [(task, old, None) for task, old in parts]
    if event["event"] == "added":
        return [(task, None, new) for task, new in parts]
    return [tuple(entry) for entry in parts] if event["event"] == "moved" else []


def _next_holder(moves: list, task: str, left: str) -> str | None:
    """Who took ``task`` after ``left`` lost it, in the history's order: a poll that fell
    while the task sat unowned records it ``revoked`` first, then ``added`` to its new holder
    (and a later join may move it on: not counted here)."""
    lost = False
    for moved, old, new in moves:
        if moved != task:
            continue
        if old == left:
            lost = True
        if lost and new is not None:
            return new
    return None
