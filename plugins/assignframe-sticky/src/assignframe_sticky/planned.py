"""From a member plan (``movement.plan_members``) to partition ids.

The plan fixes, per member and partition group, how many held partitions it keeps and how many
others it is given. Which held ones are kept: a slice of every topic in proportion to what the
member holds of it (see ``realize.spread_over_topics``); the rest joins the group's pool with the
partitions nobody held, and each pool is dealt in strides to the members the plan gives it to,
which spreads every topic over them. Used whenever racks matter or members differ in what
they subscribe and hold; otherwise ``realize.allocate`` is exact and cheaper.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from itertools import chain, compress

from .balance import Topology
from .movement import Groups, MemberPlan
from .ownership import Ownership, PartitionIndex
from .rack import RackInfo
from .realize import Allocation, spread_over_topics, stride

__all__ = ["allocate_planned", "partition_groups", "split_off_rack"]


def partition_groups(
    topology: Topology, index: PartitionIndex, racks: RackInfo
) -> tuple[Groups, array]:
    """Groups for the plan (blocks, split by the member racks holding a replica when racks are
    used) and the group of every partition id (an array, so lookups run at C speed)."""
    block_of = topology.block_of_topic
    group_at = array("i")
    if not racks.enabled:
        for topic in range(len(index.topics)):
            group_at.extend(array("i", [block_of[topic]]) * len(index.topic_range(topic)))
        return Groups.of_blocks(topology), group_at
    member_racks = frozenset(r for r in racks.member_rack if r)
    key_of: dict[tuple[int, frozenset[str]], int] = {}
    groups = Groups([], [], [])
    for topic in range(len(index.topics)):
        block = block_of[topic]
        for pid in index.topic_range(topic):
            local = frozenset(racks.racks_of(pid)) & member_racks
            group = key_of.get((block, local))
            if group is None:
                group = key_of[block, local] = len(groups.block)
                groups.block.append(block)
                groups.size.append(0)
                groups.local.append(local)
            groups.size[group] += 1
            group_at.append(group)
    return groups, group_at


def split_off_rack(
    held: list[dict[int, int]], groups: Groups, member_rack: list[str | None]
) -> list[dict[int, int]]:
    """Java's rule for an owned partition none of whose replicas is on its owner's rack
    (KIP-881; AbstractStickyAssignor's constrained and general builders alike): it is released
    before anything is kept, so keeping it can never cost the owner a partition on its rack.
    Java may still hand it back to the owner afterwards (to whoever is least loaded); the plan
    keeps it with its owner only as the last tie-break (``movement.plan_members``), which makes
    a settled assignment hand back unchanged.

    :param held: per member index, group -> partitions it holds (changed in place: what is
        left is what it holds on its rack)
    :returns: per member index, group -> partitions it holds off its rack
    """
    off_rack: list[dict[int, int]] = [{} for _ in held]
    for member, counts in enumerate(held):
        rack = member_rack[member]
        if rack is not None and counts:
            for group in [g for g in counts if rack not in groups.local[g]]:
                off_rack[member][group] = counts.pop(group)
    return off_rack


def allocate_planned(
    topology: Topology,
    plan: MemberPlan,
    group_of: Callable[[int], int],
    ownership: Ownership,
    index: PartitionIndex,
    groups_are_blocks: bool,
) -> Allocation:
    """Partition ids per member as ``plan`` says (``group_of`` maps an id to its group)."""
    members = len(topology.class_of)
    kept: list[list[int]] = [[] for _ in range(members)]
    released: dict[int, list[int]] = {}
    for member, ids in enumerate(ownership.held):
        if ids:
            kept[member] = _keep(ids, plan.kept.get(member, {}), group_of, index, released)
    pools = _pools(topology, ownership, index, None if groups_are_blocks else group_of, released)
    given: list[list] = [[] for _ in range(members)]
    takers: dict[int, list[int]] = {}
    for member in sorted(plan.free):
        for group in plan.free[member]:
            takers.setdefault(group, []).append(member)
    for group, receivers in takers.items():
        wants = [plan.free[m][group] for m in receivers]
        for member, pieces in zip(receivers, stride(pools[group], wants), strict=True):
            given[member].extend(pieces)
    return Allocation(kept, given)


def _keep(ids, counts, group_of, index, released) -> list[int]:
    """The held ids a member keeps (``counts`` per group); the others go to ``released``."""
    if sum(counts.values()) == len(ids):
        return ids  # keeps everything it holds (the common case): no per-partition work
    by_group: dict[int, list[int]] = {}
    for pid, group in zip(ids, map(group_of, ids), strict=True):
        by_group.setdefault(group, []).append(pid)
    kept = []
    for group, mine in by_group.items():
        count = counts.get(group, 0)
        if count < len(mine):
            mine = spread_over_topics(mine, index)
            released.setdefault(group, []).extend(mine[count:])
        kept.extend(mine[:count])
    return kept


def _pools(topology, ownership, index, group_of, released) -> dict[int, list[int]]:
    """Per group: ids nobody holds plus ids released, sorted."""
    owner = ownership.owner
    pools: dict[int, list[int]] = {}
    for block, topics in enumerate(topology.topics_of_block):
        free = list(
            chain.from_iterable(
                compress(r, map((-1).__eq__, owner[r.start : r.stop]))
                for r in map(index.topic_range, topics)
            )
        )
        if group_of is None:  # groups are the blocks: no per-partition work
            pools[block] = free
            continue
        for pid in free:
            pools.setdefault(group_of(pid), []).append(pid)
    for group, ids in released.items():
        pools[group] = sorted(chain(pools.get(group, ()), ids))
    return pools
