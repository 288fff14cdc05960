"""What the coordinator wrote of each classic group in ``__consumer_offsets``: its generation.

DescribeGroups does not report a classic group's generation; the only place Kafka keeps it
outside the coordinator's memory is the group's ``GroupMetadataValue`` record, written to the
group's partition of ``__consumer_offsets`` whenever a generation's assignment is stored (the
leader's SyncGroup) and when the group empties. The members' own numbers (the generation a
cooperative member puts in its subscription) are the generation of their *previous* assignment,
one behind, and eager members carry none: neither is the group's.

The records are fetched by kafka-python, used as a transport only (a consumer without a group
id: Metadata, ListOffsets and Fetch, never a commit or a join); every key and value is read by
:mod:`assignframe_codec`. Only the partitions of the wanted groups are read
(``abs(group_id.hashCode()) % partitions``, Kafka's ``topicPartitionFor``), from the start the
first time and from where the last read stopped after that (``watch`` keeps one log between
polls).

A recorded generation is the group's only while the group is ``Stable`` or ``Empty`` and the
record holds the members the coordinator describes: during a rebalance the coordinator has moved
to a generation whose record is not written yet (and a record read just before or after the
describe may be another generation's), so :func:`group_generation` says it is unknown (None).

The read is optional and bounded: one refresh reads for at most ``budget_s`` seconds (a busy
cluster's partitions hold every commit since their last compaction, more than any timeout
allows). A partition read to its end in time gives its groups' records; one that is not gives
none (a record read half-way may be an older generation's), and the next refresh goes on from
where this one stopped.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import assignframe_codec as codec

from ..javaorder.tables import java_string_hash
from .config import ClientConfig

__all__ = ["READ_BUDGET_S", "GroupMetadataLog", "RecordedGroup", "group_generation",
           "offsets_partition"]

log = logging.getLogger("assignframe.cluster")

#: states in which the stored record is the group's current generation
_RECORD_IS_CURRENT = ("Stable", "Empty")
_GROUP_METADATA_KEY_VERSION = 2
#: seconds one refresh may spend reading records, by default (``--generation-timeout``)
READ_BUDGET_S = 5.0


@dataclass(frozen=True)
class RecordedGroup:
    """A classic group as its last ``GroupMetadataValue`` record stores it."""

    generation: int
    protocol: str | None
    leader: str | None
    member_ids: tuple[str, ...]
    state_timestamp_ms: int | None


def offsets_partition(group_id: str, partitions: int) -> int:
    """The ``__consumer_offsets`` partition of ``group_id`` (Kafka's ``Utils.abs(hashCode) %
    n``; ``Utils.abs`` maps Integer.MIN_VALUE to 0)."""
    signed = java_string_hash(group_id)
    signed = signed - (1 << 32) if signed >= 1 << 31 else signed
    return (0 if signed == -(1 << 31) else abs(signed)) % partitions


def group_generation(recorded: RecordedGroup | None, state: str | None,
                     member_ids: Iterable[str]) -> int | None:
    """The group's generation as the coordinator stored it, when that is the current one: the
    group is Stable or Empty and the record holds the members the coordinator describes (a
    record of another generation, written before or after the describe, holds others)."""
    if recorded is None or state not in _RECORD_IS_CURRENT:
        return None
    if set(recorded.member_ids) != set(member_ids):
        return None
    return recorded.generation


class GroupMetadataLog:
    """The last ``GroupMetadataValue`` of every group in the partitions read so far.

    :param bootstrap: the cluster
    :param config: client settings (security), as for the transport
    :param timeout_s: the deadline of the connection and of each request
    :param budget_s: how long one :meth:`refresh` may spend reading records
    """

    def __init__(self, bootstrap: str, config: ClientConfig, timeout_s: float,
                 budget_s: float = READ_BUDGET_S) -> None:
        self.bootstrap, self.config, self.timeout_s = bootstrap, config, timeout_s
        self.budget_s = budget_s
        self.groups: dict[str, RecordedGroup] = {}
        #: why the last refresh read nothing (every generation unknown); None when it read
        self.problem: str | None = None
        #: the partitions the last refresh wanted but did not read to their end in its budget
        self.unread: set[int] = set()
        self._partitions: int | None = None
        self._consumer: Any = None
        self._assigned: set[int] = set()

    def refresh(self, group_ids: Iterable[str], partitions: int | None,
                via: str | None = None) -> None:
        """Read the partitions holding ``group_ids`` toward their current end, for at most
        :attr:`budget_s` (``partitions``: the topic's partition count; None when Metadata did
        not list it). ``via``: the bootstrap address to connect through the first time (the
        one that answered the cluster reader), else every address. A partition not read to
        its end is kept in :attr:`unread`, a failure in :attr:`problem` (the generations stay
        unknown); neither is raised."""
        self._partitions = partitions
        wanted = {offsets_partition(g, partitions) for g in group_ids} if partitions else set()
        self.unread = set(wanted)
        if not wanted:
            return
        deadline = time.monotonic() + self.budget_s
        try:
            self.unread = self._read(wanted, via, deadline)
            self.problem = None
        except Exception as exc:  # kafka-python raises its own tree and plain OSErrors
            self.problem = self.config.redact(f"cannot read {codec.OFFSETS_TOPIC}: "
                                              f"{type(exc).__name__}: {exc}")
            log.debug("%s", self.problem)
            self.close()

    def recorded(self, group_id: str) -> RecordedGroup | None:
        """``group_id``'s last record, when the last refresh read its partition to the end;
        None otherwise (no record, or not known)."""
        if self.problem or not self._partitions or \
                offsets_partition(group_id, self._partitions) in self.unread:
            return None
        return self.groups.get(group_id)

    def _read(self, wanted: set[int], via: str | None, deadline: float) -> set[int]:
        """Read until every wanted partition reached the end offset it had when the read
        began, or ``deadline``; the partitions that did not."""
        from kafka import TopicPartition as KafkaPartition

        consumer = self._consumer or self._connect(via)
        new = wanted - self._assigned
        if new:
            self._assigned |= new
            assigned = [KafkaPartition(codec.OFFSETS_TOPIC, p) for p in sorted(self._assigned)]
            consumer.assign(assigned)
            consumer.seek_to_beginning(*[KafkaPartition(codec.OFFSETS_TOPIC, p)
                                         for p in sorted(new)])
        parts = [KafkaPartition(codec.OFFSETS_TOPIC, p) for p in sorted(wanted)]
        ends = consumer.end_offsets(parts)

        def behind(tp: Any) -> bool:
            left_ms = max(1, int((deadline - time.monotonic()) * 1000))
            position = consumer.position(tp, timeout_ms=left_ms)
            return position is None or position < ends[tp]

        pending = [tp for tp in parts if behind(tp)]
        while pending and time.monotonic() < deadline:
            left_ms = int((deadline - time.monotonic()) * 1000)
            for records in consumer.poll(timeout_ms=max(1, min(200, left_ms))).values():
                for record in records:
                    self._take(record.key, record.value)
            pending = [tp for tp in pending if behind(tp)]
        return {tp.partition for tp in pending}

    def _connect(self, via: str | None) -> Any:
        from kafka import KafkaConsumer

        timeout_ms = max(1000, int(self.timeout_s * 1000))
        self._consumer = KafkaConsumer(
            bootstrap_servers=[via] if via else self.bootstrap.split(","), group_id=None,
            enable_auto_commit=False, exclude_internal_topics=False,
            request_timeout_ms=timeout_ms, reconnect_backoff_max_ms=min(timeout_ms, 5000),
            # kafka-python checks CRC-32C in pure Python without the crc32c module: a third of
            # this read's CPU at 10,000 groups. The broker checked each batch's CRC when it
            # appended it; a batch damaged on disk since then is read unchecked (a record the
            # codec cannot read is skipped, as any unreadable record is).
            check_crcs=False,
            # fewer, larger fetches and polls: the topic is read from its start
            max_poll_records=10_000, max_partition_fetch_bytes=8 * 1024 * 1024,
            **{"client_id": "assignframe-inspect", **self.config.kafka_python_settings()})
        return self._consumer

    def _take(self, key: bytes | None, value: bytes | None) -> None:
        if not key or len(key) < 2 or codec.version_prefix(key) != _GROUP_METADATA_KEY_VERSION:
            return  # offset commits and the consumer-protocol coordinator's records
        try:
            group = codec.decode_record("GroupMetadataKey", key).group
            if value is None:  # tombstone: the group was deleted
                self.groups.pop(group, None)
                return
            stored = codec.decode_record("GroupMetadataValue", value)
        except codec.CodecError as exc:
            log.debug("GroupMetadata record not read: %s", exc)
            return
        stamp = getattr(stored, "current_state_timestamp", -1)
        self.groups[group] = RecordedGroup(
            stored.generation, stored.protocol, stored.leader,
            tuple(m.member_id for m in stored.members), stamp if stamp >= 0 else None)

    def close(self) -> None:
        if self._consumer is not None:
            try:
                self._consumer.close()
            except Exception:  # closing a half-open consumer must not hide the real error
                log.debug("closing the offsets consumer failed", exc_info=True)
        self._consumer, self._assigned = None, set()
