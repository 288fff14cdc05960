"""Read ``__consumer_offsets`` (or a copy of it) live through kafka-python.

The record decoding is :mod:`assignframe.decode.offsets`; this module only fetches records, so the
``kafka`` import stays inside the adapter package.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from assignframe_codec import OFFSETS_TOPIC
from kafka import KafkaConsumer, TopicPartition
from kafka.errors import KafkaError

from ..errors import BrokerError

__all__ = ["RawRecord", "consume_offsets"]

#: ``(key, value, where, offset)``: one record's bytes as stored (value None = tombstone), and
#: where it was read (``topic-partition offset N``); decoding them is decode's business.
RawRecord = tuple[bytes, "bytes | None", str, int]
#: ``report(where, offset, message)``: how reading problems are said (e.g. ``Problems.add``)
Report = Callable[[str, int, str], object]


def consume_offsets(
    bootstrap_server: str,
    report: Report,
    progress: Callable[[int, int], None] | None = None,
    timeout_s: float = 30.0,
    topic: str = OFFSETS_TOPIC,
) -> Iterator[RawRecord]:
    """Read ``__consumer_offsets`` (or a copy) from the start to the end offsets seen at the start,
    yielding each record's bytes (the adapter reads; ``assignframe.decode`` decodes).

    :param progress: called with (records read, records expected) as reading goes on
    :param timeout_s: give up (and report it) when no record arrives for this long
    """
    try:
        yield from _consume(bootstrap_server, report, progress, timeout_s, topic)
    except KafkaError as exc:
        raise BrokerError(f"{bootstrap_server}: {exc!r}") from exc


def _consume(
    bootstrap_server: str,
    report: Report,
    progress: Callable[[int, int], None] | None,
    timeout_s: float,
    topic: str,
) -> Iterator[RawRecord]:
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap_server,
        group_id=None,
        enable_auto_commit=False,
        exclude_internal_topics=False,
        consumer_timeout_ms=int(timeout_s * 1000),
        client_id="assignframe-decode",
    )
    try:
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
        starts, ends = consumer.beginning_offsets(assigned), consumer.end_offsets(assigned)
        total = sum(max(0, ends[tp] - starts[tp]) for tp in assigned)
        remaining = {tp for tp in assigned if ends[tp] > starts[tp]}
        consumer.seek_to_beginning(*assigned)
        yield from _read_until_end(
            consumer, remaining, ends, total, report, progress, bootstrap_server
        )
    finally:
        consumer.close()


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
