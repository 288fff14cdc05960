"""Share groups (KIP-932) on Apache Kafka 4.3.1 with real KafkaShareConsumer members: what
inspect reads and judges (members, partitions, epochs, backlog from DescribeShareGroupOffsets)
against what the members themselves print and Kafka's Admin says; kill -9 and a join as watch's
history and metrics tell them; and every target the broker computed at those steps against what
``server:simple`` (the share assignor plugin) predicts from the same input."""

from __future__ import annotations

import json

from kafka43_cluster import create_topics, member_named, produce, verdict
from runners import describe, wait_until

from assignframe.cli import main
from assignframe.cluster.exporter import WatchMetrics
from assignframe.cluster.history import changes, state_of
from assignframe.javaorder import Uuid
from assignframe.model import TopicPartition
from assignframe.plugins import get_plugin_manager
from assignframe.replay.server import replay_server_scenario
from assignframe.snapshot.share import ShareSnapshot

TOPIC, GROUP, PARTITIONS = "queue-a", "share-a", 4
SHARE = "run-share-consumer.sh"


def _assigned(member) -> set[TopicPartition]:
    line = member.last("assignment")
    return {TopicPartition(t, p) for t, p in line["assignment"]} if line else set()


def _settled(kafka, count: int, runners: dict):
    """The verdict once the broker's view has ``count`` members, none behind the assignment
    epoch, every partition held, and each runner's own last assignment equal to what inspect
    read for it. (Just after a member is fenced the survivors are at the old epoch with the
    dead member's partitions held by nobody, until the next target: not settled.)"""
    def probe():
        v = verdict(kafka, GROUP)
        view = v.share_streams
        if not isinstance(view, ShareSnapshot) or len(view.members) != count or view.behind() \
                or v.state != "Stable" or view.unassigned():
            return None
        for client_id, runner in runners.items():
            member = member_named(view, client_id)
            if member is None or set(member.partitions) != _assigned(runner):
                return None
        return v
    return wait_until(f"{count} settled share member(s)", probe, 120, pause=1)


def _targets(v) -> dict[str, list[list]]:
    """member -> what it holds (in a settled share group: its target)."""
    return {m.member_id: [[tp.topic, tp.partition] for tp in m.partitions]
            for m in v.share_streams.members}


def _round(rounds: list, event: str, v, previous) -> None:
    """One assign.jsonl round: the members' subscriptions and the broker's previous target as
    ``current`` (what the coordinator hands its assignor), the new target as Java's result."""
    previous_targets = _targets(previous) if previous is not None else {}
    members = {m.member_id: {"instance_id": None, "rack": None, "topics": list(m.subscribed),
                             "current": previous_targets.get(m.member_id, [])}
               for m in v.share_streams.members}
    rounds.append({"round": len(rounds), "event": event, "members": members,
                   "result": _targets(v), "epoch": v.share_streams.assignment_epoch})


def _topic_id(kafka: str, topic: str) -> str:
    from confluent_kafka import TopicCollection
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": kafka})
    found = admin.describe_topics(TopicCollection([topic]), request_timeout=10)[topic]
    i = found.result(timeout=30).topic_id
    return str(Uuid(i.get_most_significant_bits(), i.get_least_significant_bits()))


def _assert_simple_predicts(kafka: str, rounds: list) -> None:
    scenario = {"id": "kafka-4.3-share", "assignor": "simple", "group_type": "share",
                "topics": {TOPIC: {"id": _topic_id(kafka, TOPIC), "partitions": PARTITIONS}},
                "rounds": rounds}
    plugin = get_plugin_manager().server_assignor("server:simple")
    for chain in (False, True):
        replay = replay_server_scenario(scenario, plugin, chain=chain)
        wrong = {r.round.index: (r.round.event, r.result, r.round.java["result"])
                 for r in replay.rounds if not r.matches_java}
        assert not wrong, f"server:simple (chain={chain}) != Kafka 4.3.1: {wrong}; {scenario}"


def _records(*runners) -> int:
    return sum((r.last("records") or {}).get("total", 0) for r in runners)


def test_share_group_judged_through_kill_and_join(kafka43, runner, tmp_path, capsys):
    kafka = kafka43.bootstrap
    create_topics(kafka, {TOPIC: PARTITIONS})
    produce(kafka, TOPIC, PARTITIONS, 10)
    rounds: list = []
    a = runner(SHARE, kafka, GROUP, TOPIC, "share-1")
    a.wait_for(lambda line: line.get("event") == "assignment" and line["assignment"], 120)
    lone = _settled(kafka, 1, {"share-1": a})
    _round(rounds, "share-1 joins", lone, None)
    b = runner(SHARE, kafka, GROUP, TOPIC, "share-2")
    b.wait_for(lambda line: line.get("event") == "assignment" and line["assignment"], 120)
    first = _settled(kafka, 2, {"share-1": a, "share-2": b})
    _round(rounds, "share-2 joins", first, lone)
    view = first.share_streams
    everything = {TopicPartition(TOPIC, p) for p in range(PARTITIONS)}
    assert set(view.holders()) == everything and view.unassigned() == []
    assert first.spread == 0 and first.members == 2 and first.partitions == PARTITIONS
    assert first.protocol == "simple" and view.assignor == "simple"
    assert first.unreadable is None and first.problems == []

    # Kafka's Admin (describeShareGroups) reads the same members and assignments
    admin = describe(kafka, "share", GROUP)
    assert {m["member_id"]: sorted(map(tuple, m["assignment"])) for m in admin["members"]} == \
        {m.member_id: sorted((tp.topic, tp.partition) for tp in m.partitions)
         for m in view.members}
    assert admin["assignment_epoch"] <= view.assignment_epoch

    # every record acknowledged: the broker's share-partition lag (DescribeShareGroupOffsets v1)
    wait_until("40 records delivered", lambda: _records(a, b) >= 40, 90)
    drained = wait_until("backlog 0", lambda: (lambda v: v if v.share_streams.total_backlog() == 0
                                               else None)(verdict(kafka, GROUP)), 90, pause=1)
    assert set(drained.share_streams.backlog) == everything
    assert all(b.start_offset is not None and b.end_offset == 10 and b.lag == 0
               for b in drained.share_streams.backlog.values()), drained.share_streams.backlog

    # kill -9 share-2: fenced after the 6 s session timeout, share-1 takes its partitions
    before = state_of(drained)
    gone = member_named(drained.share_streams, "share-2").member_id
    b.kill()
    alone = _settled(kafka, 1, {"share-1": a})
    _round(rounds, "share-2 killed", alone, first)
    assert _assigned(a) == everything and alone.spread == 0
    events = changes(GROUP, before, state_of(alone), alone.share_streams.group_epoch, 300)
    kinds = [e["event"] for e in events]
    assert "epoch" in kinds and {"event": "left", "member_id": gone} in events
    moved = [e for e in events if e["event"] == "moved"][0]["partitions"]
    survivor = member_named(alone.share_streams, "share-1").member_id
    assert sorted(p for p, old, new in moved) == sorted(
        f"{tp.topic}-{tp.partition}"
        for tp in member_named(drained.share_streams, "share-2").partitions)
    assert all(old == gone and new == survivor for _, old, new in moved)

    # a third consumer joins: balanced again, its arrival said
    c = runner(SHARE, kafka, GROUP, TOPIC, "share-3")
    joined = _settled(kafka, 2, {"share-1": a, "share-3": c})
    _round(rounds, "share-3 joins", joined, alone)
    assert joined.spread == 0 and joined.problems == []
    _assert_simple_predicts(kafka, rounds)
    events = changes(GROUP, state_of(alone), state_of(joined), 0.0, 300)
    newcomer = member_named(joined.share_streams, "share-3").member_id
    assert {"event": "joined", "member_id": newcomer} in events

    # the metrics of that poll
    metrics = WatchMetrics()
    metrics.verdicts, metrics.up = [joined], True  # as a poll that read the cluster sets them
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for family in metrics.families() for s in family.samples}
    assert samples[("assignframe_group_members", (("group", GROUP), ("type", "share")))] == 2
    # nothing produced since every record was acknowledged: the backlog is known to be 0
    assert samples[("assignframe_group_backlog", (("group", GROUP),))] == 0
    assert samples[("assignframe_group_behind_members", (("group", GROUP),))] == 0
    assert samples[("assignframe_member_partitions", (("client_id", "share-3"),
                                                      ("group", GROUP),
                                                      ("member", newcomer)))] == 2

    # the HTML page of inspect --out counts it, as the verdicts.json beside it says
    page = tmp_path / "cluster.html"
    assert main(["inspect", "--bootstrap-server", kafka, "--group", GROUP,
                 "--out", str(tmp_path / "out"), "--html", str(page)]) == 0
    written = json.loads((tmp_path / "out" / "verdicts.json").read_text())
    (row,) = [g for g in written["groups"] if g["group_id"] == GROUP]
    assert (row["group_type"], row["members"]) == ("share", 2)
    text = page.read_text()
    live = text.split('<section id="live">')[1].split("</section>")[0]
    assert "Every group read (1)" in live and "1 share" in live
    assert (f'<td class="name">{GROUP}</td><td class="name">share</td>'
            f'<td class="name">{row["state"]}</td><td>2</td>') in live
    assert f'<td>{row["detail"]["backlog"]}</td>' in live
    # the share group is a snapshot line the audit beside it replayed: server:simple, given the
    # group as the broker describes it (topic ids included), assigns what the broker assigned
    (line,) = [json.loads(x) for x in (tmp_path / "out" / "snapshots.jsonl").read_text()
               .splitlines()]
    assert (line["group_type"], line["group_id"]) == ("share", GROUP)
    assert line["topic_ids"] == {TOPIC: _topic_id(kafka, TOPIC)}
    assert {m["member_id"] for m in line["members"]} == {m.member_id
                                                          for m in joined.share_streams.members}
    (audited,) = [json.loads(x) for x in (tmp_path / "out" / "audit" / "rows.jsonl").read_text()
                  .splitlines()]
    assert (audited["group_type"], audited["strategy"], audited["recommendation"]) == (
        "share", "server:simple", "server:simple")
    assert audited["current_valid"] and audited["members"] == 2
    assert audited["note"] == "server:simple replayed on the group as it is equals what the " \
        "broker assigned", audited["note"]
    assert audited["partitions_moved"] == 0 and audited["partitions_kept"] == PARTITIONS

    # --detail: the members and their partitions as the members themselves print them, each
    # share-partition's start offset and the broker's lag (kafka-share-groups.sh --offsets)
    capsys.readouterr()
    assert main(["inspect", "--bootstrap-server", kafka, "--group", GROUP, "--detail",
                 "--json"]) == 0
    (detail,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {m["client_id"]: sorted(tuple(p) for p in m["partitions"])
            for m in detail["members"]} == {
        name: sorted((tp.topic, tp.partition) for tp in _assigned(r))
        for name, r in (("share-1", a), ("share-3", c))}
    backlog = {(p["topic"], p["partition"]): p for p in row["detail"]["partitions"]}
    assert {(p["topic"], p["partition"]) for p in detail["partitions"]} == set(backlog)
    for p in detail["partitions"]:
        share = backlog[(p["topic"], p["partition"])]
        assert (p["current_offset"], p["lag"]) == (share["start_offset"], share["lag"])

    # nobody consuming: what is produced now is the group's backlog
    assert a.terminate() == 143 and c.terminate() == 143
    produce(kafka, TOPIC, PARTITIONS, 5)
    idle = wait_until("an empty group with backlog 20", lambda: (
        lambda v: v if v.members == 0 and v.share_streams.total_backlog() == 20 else None)(
            verdict(kafka, GROUP)), 90, pause=1)
    assert idle.problems == ["no members; backlog 20"]
