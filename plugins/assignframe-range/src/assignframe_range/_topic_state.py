"""Per-topic bookkeeping of a range assignment: quotas, what is left, and replica racks.

Mirrors Java's ``RangeAssignor.TopicAssignmentState``: a topic with P partitions and C subscribed
consumers gives each consumer P // C partitions and the first P % C consumers *to fill up* one
extra; with racks, "first" means first to reach the extra one, not first in sort order.
"""

from __future__ import annotations

from collections.abc import Sequence


class TopicAssignmentState:
    """What remains to assign of one topic, and how many more each consumer may take.

    :param topic: the topic name
    :param partition_count: number of partitions (> 0)
    :param consumers: subscribed member ids in Java's member order
    :param consumer_racks: member id -> rack, for members that sent a non-empty rack
    :param partition_racks: replica racks per partition (empty tuples when unknown)
    """

    __slots__ = (
        "topic",
        "partition_count",
        "consumers",
        "consumer_racks",
        "partition_racks",
        "needs_rack_aware_assignment",
        "_assigned",
        "_assigned_by_consumer",
        "_unassigned_count",
        "_quota",
        "_extra_left",
        "_cursor_by_rack",
        "_partitions_by_rack",
    )

    def __init__(
        self,
        topic: str,
        partition_count: int,
        consumers: Sequence[str],
        consumer_racks: dict[str, str],
        partition_racks: Sequence[Sequence[str]],
    ) -> None:
        self.topic = topic
        self.partition_count = partition_count
        self.consumers = tuple(consumers)
        self.consumer_racks = {c: consumer_racks.get(c) for c in self.consumers}
        self._assigned = bytearray(partition_count)
        self._unassigned_count = partition_count
        self._assigned_by_consumer = dict.fromkeys(self.consumers, 0)
        self._quota, self._extra_left = divmod(partition_count, len(self.consumers) or 1)
        racks_present = {r for r in self.consumer_racks.values() if r is not None}
        # Java only looks at replica racks when some subscriber has a rack; the co-partitioning
        # grouping key (len(partition_racks)) depends on that too.
        self.partition_racks = [frozenset(r) for r in partition_racks] if racks_present else []
        self.needs_rack_aware_assignment = self._needs_rack_awareness(racks_present)
        self._cursor_by_rack: dict[str | None, int] = {}
        self._partitions_by_rack: dict[str, list[int]] | None = None

    def _needs_rack_awareness(self, consumer_racks: set[str]) -> bool:
        all_partition_racks = frozenset().union(*self.partition_racks)
        if not consumer_racks or consumer_racks.isdisjoint(all_partition_racks):
            return False
        # Racks buy nothing when every partition has a replica on every rack.
        return any(racks != all_partition_racks for racks in self.partition_racks)

    @property
    def grouping_key(self) -> tuple[tuple[str, ...], tuple[str | None, ...], int]:
        """Topics sharing this key are co-partitioned: same subscribers, racks, partition count."""
        racks = tuple(self.consumer_racks[c] for c in self.consumers)
        return (self.consumers, racks, len(self.partition_racks))

    def racks_match(self, consumer: str, partition: int) -> bool:
        rack = self.consumer_racks[consumer]
        if rack is None:
            return True
        return bool(self.partition_racks) and rack in self.partition_racks[partition]

    def max_assignable(self, consumer: str) -> int:
        limit = self._quota + (1 if self._extra_left > 0 else 0)
        return max(0, limit - self._assigned_by_consumer[consumer])

    def has_unassigned(self) -> bool:
        return self._unassigned_count > 0

    def on_assigned(self, consumer: str, partitions: Sequence[int]) -> None:
        count = self._assigned_by_consumer[consumer] + len(partitions)
        self._assigned_by_consumer[consumer] = count
        if count > self._quota:
            self._extra_left -= 1
        for partition in partitions:
            self._assigned[partition] = 1
        self._unassigned_count -= len(partitions)

    def first_unassigned(self, limit: int, rack: str | None = None) -> list[int]:
        """Up to ``limit`` unassigned partitions, in partition order, with a replica on ``rack``.

        ``rack=None`` means any partition. The caller assigns what it gets, so everything before
        a rack's cursor is assigned and each rack's partition list is walked once in total.
        """
        candidates = range(self.partition_count) if rack is None else self._rack_partitions(rack)
        cursor = self._cursor_by_rack.get(rack, 0)
        chosen: list[int] = []
        while cursor < len(candidates) and len(chosen) < limit:
            partition = candidates[cursor]
            if not self._assigned[partition]:
                chosen.append(partition)
            cursor += 1
        self._cursor_by_rack[rack] = cursor
        return chosen

    def _rack_partitions(self, rack: str) -> list[int]:
        if self._partitions_by_rack is None:
            by_rack: dict[str, list[int]] = {}
            for partition, racks in enumerate(self.partition_racks):
                for replica_rack in racks:
                    by_rack.setdefault(replica_rack, []).append(partition)
            self._partitions_by_rack = by_rack
        return self._partitions_by_rack.get(rack, [])
