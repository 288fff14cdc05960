"""Rack awareness (KIP-881): prefer giving a member partitions with a replica in its rack.

Used, as in Java, only when some member has a rack, member and replica racks overlap, and not
every partition has replicas in every rack (otherwise every choice is equally local). Balance
always comes first; racks only decide *which* partitions a member gets within its quota.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence

from assignframe import GroupSubscription

from .ownership import PartitionIndex

__all__ = ["RackInfo"]


class RackInfo:
    """Member racks and partition replica racks, by index and id."""

    def __init__(
        self,
        group: GroupSubscription,
        index: PartitionIndex,
        member_ids: Sequence[str],
        trade_owned: bool,
    ):
        #: release owned partitions without a local replica so rack-local ones can replace them
        #: (Java does). Off for the cooperative protocol: every such trade revokes a partition
        #: and costs another rebalance, and the partitions freed by it change the next round's
        #: choices, so histories stop settling in one follow-up round.
        self.trade_owned = trade_owned
        self._index = index
        self._replica_racks = group.cluster.partition_racks or {}
        self.member_rack: list[str | None] = [group.members[m].rack or None for m in member_ids]
        self.enabled = self._worth_it()

    def _worth_it(self) -> bool:
        member_racks = {r for r in self.member_rack if r}
        if not member_racks or not self._replica_racks:
            return False
        seen: set[frozenset[str]] = set()
        for topic in self._index.topics:
            seen.update(map(frozenset, self._replica_racks.get(topic, ())))
        all_racks = frozenset().union(*seen) if seen else frozenset()
        if not member_racks & all_racks:
            return False
        # Java: rack-aware unless every partition has replicas on exactly the same racks
        return len(seen) > 1 or self._some_partition_without_racks()

    def _some_partition_without_racks(self) -> bool:
        position = self._index.position()
        for topic, (_, _, count) in position.items():
            if len(self._replica_racks.get(topic, ())) < count:
                return True
        return False

    def racks_of(self, pid: int) -> tuple[str, ...]:
        topic_index = self._index.topic_index(pid)
        topic = self._index.topics[topic_index]
        per_partition = self._replica_racks.get(topic, ())
        partition = pid - self._index.offsets[topic_index]
        return per_partition[partition] if partition < len(per_partition) else ()

    def matches(self, member: int, pid: int) -> bool:
        """True unless the member has a rack and the partition has no replica there."""
        rack = self.member_rack[member]
        return rack is None or rack in self.racks_of(pid)

    def dealer(self, members: set[int], wants: dict[int, int]) -> RackDealer:
        """A dealer over ``members``; ``wants`` (member -> partitions still wanted) is live."""
        return RackDealer(self, members, wants)


class RackDealer:
    """Hands out rack-local candidates for partitions, rotating within each rack for spread."""

    def __init__(self, racks: RackInfo, members: set[int], wants: dict[int, int]):
        self._racks = racks
        self._wants = wants
        self._queues: dict[str, deque[int]] = {}
        for member in sorted(members):
            rack = racks.member_rack[member]
            if rack is not None:
                self._queues.setdefault(rack, deque()).append(member)

    def _local_racks(self, pid: int) -> list[str]:
        return [r for r in sorted(set(self._racks.racks_of(pid))) if r in self._queues]

    def order(self, pool: Sequence[int]) -> list[int]:
        """Partitions with the fewest rack-local candidates first, so they are not crowded out."""
        weight = {pid: sum(len(self._queues[r]) for r in self._local_racks(pid)) for pid in pool}
        return sorted(pool, key=lambda pid: (weight[pid], pid))

    def candidates(self, pid: int) -> Iterator[int]:
        """Rack-local members still wanting partitions, each rack's queue rotated as it goes."""
        for rack in self._local_racks(pid):
            queue = self._queues[rack]
            for _ in range(len(queue)):
                member = queue[0]
                queue.rotate(-1)
                if self._wants.get(member, 0) > 0:
                    yield member
