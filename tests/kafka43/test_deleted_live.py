"""A deleted share group is ``vanished`` in watch's history and metrics (issue 31 review, finding
4), on Apache Kafka 4.3.1 with a real KafkaShareConsumer: Kafka answers ShareGroupDescribe of a
deleted group GROUP_ID_NOT_FOUND (no ``Dead`` state as for classic and consumer groups), and the
group, known from the history and no longer listed, is gone, not unreadable for ever."""

from __future__ import annotations

import json

from kafka43_cluster import create_topics, verdict
from runners import wait_until

from assignframe.cluster.config import ClientConfig
from assignframe.cluster.exporter import WatchMetrics
from assignframe.cluster.reader import GroupFilter
from assignframe.cluster.watch import WatchOptions, watch

GROUP, TOPIC = "vanish-share", "vanish-t"


def _one_poll(kafka: str, history) -> tuple[list[str], WatchMetrics]:
    """One watch poll of the group, resuming ``history``; the events it said."""
    said: list[str] = []
    metrics = WatchMetrics()
    watch(kafka, ClientConfig(), GroupFilter(f"^{GROUP}$"),
          WatchOptions(interval=1, duration=0.5, timeout=20, history=history), metrics,
          lambda line: None, on_event=lambda group, event: said.append(event["event"]))
    return said, metrics


def test_a_deleted_share_group_vanishes(kafka43, runner, tmp_path):
    from confluent_kafka.admin import AdminClient

    kafka = kafka43.bootstrap
    create_topics(kafka, {TOPIC: 1})
    member = runner("run-share-consumer.sh", kafka, GROUP, TOPIC, "vanish-1")
    member.wait_for(lambda line: line.get("event") == "assignment" and line["assignment"], 120)
    history = tmp_path / "history.jsonl"
    said, _ = _one_poll(kafka, history)
    assert said == ["seen"], said
    member.kill()  # kill -9: fenced after the 6 s session timeout, the group is Empty
    wait_until("the share group empty", lambda: verdict(kafka, GROUP).state == "Empty", 90,
               pause=1)
    admin = AdminClient({"bootstrap.servers": kafka})
    for future in admin.delete_consumer_groups([GROUP], request_timeout=30).values():
        future.result(timeout=60)  # DeleteGroups, as Kafka's Admin.deleteShareGroups sends it

    said, metrics = _one_poll(kafka, history)
    assert said == ["vanished"], said
    assert metrics.vanished == 1
    assert [json.loads(line)["event"] for line in history.read_text().splitlines()][-1] == \
        "vanished"
    said, _ = _one_poll(kafka, history)  # gone stays gone: not read again, nothing said
    assert said == [], said
