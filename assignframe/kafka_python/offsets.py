"""Read ``__consumer_offsets`` (or a copy of it) live through kafka-python.

The record decoding is :mod:`assignframe.decode.offsets.records`; this module only fetches
records, so the ``kafka`` import stays inside the adapter package.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from assignframe_codec import OFFSETS_TOPIC
from kafka import KafkaConsumer, TopicPartition
from kafka.errors import KafkaError

from ..cluster.transport import failure_text
from ..errors import BrokerError

__all__ = ["RawRecord", "consume_offsets"]

#: ``(key, value, where, offset)``: one record's bytes as stored (value None = tombstone), and
#: where it was read (``topic-partition offset N``); decoding them is decode's business.
RawRecord = tuple[bytes, "bytes | None", str, int]
#: ``report(where, offset, message)``: how reading problems are said (e.g. ``Problems.add``)
Report = Callable[[str, int, str], object]
#: ``on_topics({name: (Kafka's topic id in base64 or None, partitions)})``, called once
OnTopics = Callable[[dict[str, tuple["str | None", int]]], None]


def consume_offsets(
    bootstrap_server: str,
    report: Report,
    progress: Callable[[int, int], None] | None = None,
    timeout_s: float = 30.0,
    topic: str = OFFSETS_TOPIC,
    settings: Mapping[str, Any] | None = None,
    on_topics: OnTopics | None = None,
) -> Iterator[RawRecord]:
    """Read ``__consumer_offsets`` (or a copy) from the start to the end offsets seen at the start,
    yielding each record's bytes (the adapter reads; ``assignframe.decode`` decodes).

    :param progress: called with (records read, records expected) as reading goes on
    :param timeout_s: the deadline of the first connection and of each request; reading gives
        up (and reports it) when no record arrives for this long
    :param settings: kafka-python client settings (security: ``--command-config``)
    :param on_topics: given every topic's id and partition count once the records are read
        (Kafka 4.1's consumer-group records name topics by id only)
    :raises BrokerError: the broker cannot be reached or a request to it fails
    """
    try:
        consumer = _consumer(bootstrap_server, timeout_s, dict(settings or {}))
    except KafkaError as exc:
        raise BrokerError(f"cannot connect to {bootstrap_server}: {failure_text(exc)}") from None
    try:
        yield from _consume(consumer, bootstrap_server, report, progress, topic, on_topics)
    except KafkaError as exc:
        raise BrokerError(f"cannot read {topic} from {bootstrap_server}: "
                          f"{failure_text(exc)}") from None
    finally:
        consumer.close()


def _consumer(bootstrap_server: str, timeout_s: float, settings: dict[str, Any]) -> Any:
    timeout_ms = max(1000, int(timeout_s * 1000))
    return KafkaConsumer(
        bootstrap_servers=bootstrap_server.split(","),
        group_id=None,
        enable_auto_commit=False,
        exclude_internal_topics=False,
        consumer_timeout_ms=timeout_ms,
        # the first connection and every request end within the timeout (kafka-python's
        # defaults wait 30 s whatever --timeout says)
        bootstrap_timeout_ms=timeout_ms,
        request_timeout_ms=timeout_ms,
        reconnect_backoff_max_ms=min(timeout_ms, 5000),
        **{"client_id": "assignframe-decode", **settings},
    )


def _consume(
    consumer: Any,
    bootstrap_server: str,
    report: Report,
    progress: Callable[[int, int], None] | None,
    topic: str,
    on_topics: OnTopics | None,
) -> Iterator[RawRecord]:
    timeout_ms = consumer.config["request_timeout_ms"]
    partitions = sorted(consumer.partitions_for_topic(topic) or ())
    if not partitions:
        report(
            bootstrap_server,
            0,
            f"topic {topic} not found (no group has committed yet, or the "
            "broker keeps group state elsewhere)",
        )
        return
    assigned = [TopicPartition(topic, p) for p in partitions]
    consumer.assign(assigned)
    starts = consumer.beginning_offsets(assigned, timeout_ms=timeout_ms)
    ends = consumer.end_offsets(assigned, timeout_ms=timeout_ms)
    total = sum(max(0, ends[tp] - starts[tp]) for tp in assigned)
    remaining = {tp for tp in assigned if ends[tp] > starts[tp]}
    consumer.seek_to_beginning(*assigned)
    yield from _read_until_end(
        consumer, remaining, ends, total, report, progress, bootstrap_server
    )
    if on_topics is not None:
        on_topics(_topics(consumer))


def _topics(consumer: Any) -> dict[str, tuple[str | None, int]]:
    """Every topic's id (Kafka's base64 form, as the records write it) and partition count."""
    names = consumer.topics()  # a Metadata request for every topic: ids come with it
    cluster = consumer._cluster
    found: dict[str, tuple[str | None, int]] = {}
    for name in sorted(names):
        topic_id = cluster.topic_id(name)
        text = None if topic_id is None else \
            base64.urlsafe_b64encode(topic_id.bytes).decode().rstrip("=")
        found[name] = (text, len(cluster.partitions_for_topic(name) or ()))
    return found


def _read_until_end(
    consumer: Any,
    remaining: set[Any],
    ends: dict[Any, int],
    total: int,
    report: Report,
    progress: Callable[[int, int], None] | None,
    source: str,
) -> Iterator[RawRecord]:
    read, idle_polls = 0, 0
    max_idle_polls = max(1, consumer.config["consumer_timeout_ms"] // 1000)
    if progress:
        progress(0, total)
    while remaining:
        batches = consumer.poll(timeout_ms=1000, max_records=500)
        idle_polls = 0 if batches else idle_polls + 1
        for tp, records in batches.items():
            for message in records:
                if message.offset < ends[tp]:
                    read += 1
                    where = f"{tp.topic}-{tp.partition} offset {message.offset}"
                    yield message.key or b"", message.value, where, message.offset
        remaining -= {tp for tp in remaining if consumer.position(tp) >= ends[tp]}
        if progress:
            progress(read, total)
        if remaining and idle_polls >= max_idle_polls:
            report(
                source,
                read,
                f"stopped before the end offsets: no records for partitions "
                f"{sorted(tp.partition for tp in remaining)}",
            )
            return
