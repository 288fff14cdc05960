"""Share groups (KIP-932) on Apache Kafka 4.3.1 with real KafkaShareConsumer members: what
inspect reads and judges (members, partitions, epochs, backlog from DescribeShareGroupOffsets)
against what the members themselves print and Kafka's Admin says; kill -9 and a join as watch's
history and metrics tell them."""

from __future__ import annotations

from kafka43_cluster import create_topics, member_named, produce, verdict
from runners import describe, wait_until

from assignframe.cluster.exporter import WatchMetrics
from assignframe.cluster.history import changes, state_of
from assignframe.cluster.share_streams import ShareView
from assignframe.model import TopicPartition

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
        view = v.view
        if not isinstance(view, ShareView) or len(view.members) != count or view.behind() \
                or v.state != "Stable" or view.unassigned():
            return None
        for client_id, runner in runners.items():
            member = member_named(view, client_id)
            if member is None or set(member.partitions) != _assigned(runner):
                return None
        return v
    return wait_until(f"{count} settled share member(s)", probe, 120, pause=1)


def _records(*runners) -> int:
    return sum((r.last("records") or {}).get("total", 0) for r in runners)


def test_share_group_judged_through_kill_and_join(kafka43, runner):
    kafka = kafka43.bootstrap
    create_topics(kafka, {TOPIC: PARTITIONS})
    produce(kafka, TOPIC, PARTITIONS, 10)
    a = runner(SHARE, kafka, GROUP, TOPIC, "share-1")
    b = runner(SHARE, kafka, GROUP, TOPIC, "share-2")
    for member in (a, b):
        member.wait_for(lambda line: line.get("event") == "assignment" and line["assignment"],
                        120)
    first = _settled(kafka, 2, {"share-1": a, "share-2": b})
    view = first.view
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
    drained = wait_until("backlog 0", lambda: (lambda v: v if v.view.total_backlog() == 0
                                               else None)(verdict(kafka, GROUP)), 90, pause=1)
    assert set(drained.view.backlog) == everything
    assert all(b.start_offset is not None and b.end_offset == 10 and b.lag == 0
               for b in drained.view.backlog.values()), drained.view.backlog

    # kill -9 share-2: fenced after the 6 s session timeout, share-1 takes its partitions
    before = state_of(drained)
    gone = member_named(drained.view, "share-2").member_id
    b.kill()
    alone = _settled(kafka, 1, {"share-1": a})
    assert _assigned(a) == everything and alone.spread == 0
    events = changes(GROUP, before, state_of(alone), alone.view.group_epoch, 300)
    kinds = [e["event"] for e in events]
    assert "epoch" in kinds and {"event": "left", "member_id": gone} in events
    moved = [e for e in events if e["event"] == "moved"][0]["partitions"]
    survivor = member_named(alone.view, "share-1").member_id
    assert sorted(p for p, old, new in moved) == sorted(
        f"{tp.topic}-{tp.partition}" for tp in member_named(drained.view, "share-2").partitions)
    assert all(old == gone and new == survivor for _, old, new in moved)

    # a third consumer joins: balanced again, its arrival said
    c = runner(SHARE, kafka, GROUP, TOPIC, "share-3")
    joined = _settled(kafka, 2, {"share-1": a, "share-3": c})
    assert joined.spread == 0 and joined.problems == []
    events = changes(GROUP, state_of(alone), state_of(joined), 0.0, 300)
    newcomer = member_named(joined.view, "share-3").member_id
    assert {"event": "joined", "member_id": newcomer} in events

    # the metrics of that poll
    metrics = WatchMetrics()
    metrics.verdicts = [joined]
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for family in metrics.families() for s in family.samples}
    assert samples[("assignframe_group_members", (("group", GROUP), ("type", "share")))] == 2
    assert samples[("assignframe_group_backlog", (("group", GROUP),))] == \
        joined.view.total_backlog()
    assert samples[("assignframe_group_behind_members", (("group", GROUP),))] == 0
    assert samples[("assignframe_member_partitions", (("client_id", "share-3"),
                                                      ("group", GROUP),
                                                      ("member", newcomer)))] == 2

    # nobody consuming: what is produced now is the group's backlog
    assert a.terminate() == 143 and c.terminate() == 143
    produce(kafka, TOPIC, PARTITIONS, 5)
    idle = wait_until("an empty group with backlog 20", lambda: (
        lambda v: v if v.members == 0 and v.view.total_backlog() == 20 else None)(
            verdict(kafka, GROUP)), 90, pause=1)
    assert idle.problems == ["no members; backlog 20"]
