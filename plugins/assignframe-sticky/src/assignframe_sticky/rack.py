"""Rack awareness (KIP-881): prefer giving a member partitions with a replica in its rack.

Used, as in Java, only when some member has a rack, member and replica racks overlap, and not
every partition has replicas in every rack (otherwise every choice is equally local). Balance
always comes first; then as many partitions as possible go to a member in a rack holding a
replica (``movement.plan_members``), before stickiness: as Java does for both strategies, an
owned partition without a local replica moves when a rack-local member can take it at the
same balance (under the cooperative protocol, it is revoked first), and it never stays at the
cost of a partition its owner holds on its rack (``planned.split_off_rack``).
"""

from __future__ import annotations

from collections.abc import Sequence

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
    ):
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
