"""From class loads to partitions: which member keeps what, and who gets the rest.

Inside a class every member is interchangeable, so its load splits into ``q`` or ``q + 1`` per
member; the ``q + 1`` slots go to the members holding the most (they lose nothing). Members keep
previously owned partitions up to their quota and the class's share of each block; the rest joins
the block's pool with the partitions nobody held. Pools are dealt in strides (member ``j`` of
``n`` takes every ``n``-th partition), which spreads each topic over many members and is a C-level
slice, not a Python loop, per member.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, compress

from .balance import Topology
from .keep import max_keep
from .ownership import Ownership, PartitionIndex

__all__ = ["Allocation", "allocate", "spread_over_topics", "stride"]

#: Deal at most this many stride layers; the few members left after that take contiguous runs.
_MAX_LAYERS = 32

Pool = Sequence[int]  # a range (ids nobody held, contiguous) or a sorted list of ids


@dataclass
class Allocation:
    """Per member index: the ids it keeps, and the pools' pieces it is given."""

    kept: list[list[int]]
    given: list[list[Pool]]


@dataclass
class _ClassShare:
    quota: dict[int, int]
    kept: dict[int, list[int]]
    kept_per_block: dict[int, int]


def allocate(
    topology: Topology,
    loads: list[dict[int, int]],
    ownership: Ownership,
    index: PartitionIndex,
) -> Allocation:
    """Turn class loads (see ``balance.plan_class_loads``) into per-member partition ids (the
    path without racks where each class can keep all it may of its own share: one class, or
    nothing held; otherwise ``planned.allocate_planned`` decides)."""
    members = len(topology.class_of)
    kept: list[list[int]] = [[] for _ in range(members)]
    given: list[list[Pool]] = [[] for _ in range(members)]
    released: dict[int, list[int]] = {}
    shares = []
    for klass in range(len(topology.members)):
        share = _keep(klass, topology, loads[klass], ownership.held, index, released)
        for member, ids in share.kept.items():
            kept[member] = ids
        shares.append(share)
    pools = _pools(topology, ownership, index, released)
    deficit = {m: share.quota[m] - len(share.kept[m]) for share in shares for m in share.quota}
    wanted = [
        {b: loads[c].get(b, 0) - share.kept_per_block.get(b, 0) for b in topology.blocks_of[c]}
        for c, share in enumerate(shares)
    ]
    leftovers: list[list[Pool]] = [[] for _ in shares]
    for block, pool in enumerate(pools):
        position = 0
        for klass in topology.subscribers[block]:
            count = wanted[klass].get(block, 0)
            if count > 0:
                leftovers[klass].append(pool[position : position + count])
                position += count
    for klass, chunks in enumerate(leftovers):
        pool = chunks[0] if len(chunks) == 1 else list(chain.from_iterable(chunks))
        takers = [m for m in topology.members[klass] if deficit[m] > 0]
        for member, piece in zip(takers, stride(pool, [deficit[m] for m in takers]), strict=True):
            given[member].extend(piece)
    return Allocation(kept, given)


def _quotas(members: list[int], total: int, held_count: dict[int, int]) -> dict[int, int]:
    """``total`` split into q / q+1 per member; the q+1 slots to those holding the most."""
    base, extra = divmod(total, len(members))
    ranked = sorted(members, key=lambda m: (-held_count[m], m))
    return {m: base + (1 if rank < extra else 0) for rank, m in enumerate(ranked)}


def _split_by_block(
    ids: list[int], blocks: tuple[int, ...], topology: Topology, index: PartitionIndex
) -> dict[int, list[int]]:
    if len(blocks) == 1:
        return {blocks[0]: ids}
    by_block: dict[int, list[int]] = {b: [] for b in blocks}
    for pid in ids:
        by_block[topology.block_of_topic[index.topic_index(pid)]].append(pid)
    return by_block


def _keep(klass, topology, load, held, index, released) -> _ClassShare:
    """Decide what each member of ``klass`` keeps; everything else goes to ``released``."""
    members = topology.members[klass]
    blocks = topology.blocks_of[klass]
    quota = _quotas(members, sum(load.values()), {m: len(held[m]) for m in members})
    if not any(held[m] for m in members):  # a fresh class: nothing to keep
        return _ClassShare(quota, {m: [] for m in members}, dict.fromkeys(blocks, 0))
    mine = {m: _split_by_block(held[m], blocks, topology, index) for m in members}
    counts = max_keep(
        quota,
        {b: load.get(b, 0) for b in blocks},
        {m: {b: len(ids) for b, ids in by_block.items()} for m, by_block in mine.items()},
    )
    kept: dict[int, list[int]] = {m: [] for m in members}
    kept_per_block = dict.fromkeys(blocks, 0)
    for member in members:
        for block, ids in mine[member].items():
            count = counts[member][block]
            if count < len(ids) and len(topology.topics_of_block[block]) > 1:
                ids = spread_over_topics(ids, index)
            kept[member].extend(ids[:count])
            kept_per_block[block] += count
            if count < len(ids):
                released.setdefault(block, []).extend(ids[count:])
    return _ClassShare(quota, kept, kept_per_block)


def spread_over_topics(ids: list[int], index: PartitionIndex) -> list[int]:
    """``ids`` reordered so that every prefix takes from each topic in proportion to what the
    member holds of it: a member keeping part of its holdings keeps a slice of every topic,
    and what it gives up (dealt to the others in strides) is spread over the topics too.
    Java's suite expects this: a member owning 12 + 12 of two topics keeps 6 + 6 when a
    second member joins, and the newcomer gets the other 6 + 6."""
    rank: dict[int, int] = {}
    held: dict[int, int] = {}
    topic_of = [index.topic_index(pid) for pid in ids]
    for topic in topic_of:
        held[topic] = held.get(topic, 0) + 1
    keys = []
    for pid, topic in zip(ids, topic_of, strict=True):
        position = rank.get(topic, 0)
        rank[topic] = position + 1
        keys.append(((2 * position + 1) / held[topic], topic, pid))
    return [pid for _, _, pid in sorted(keys)]


def _pools(topology, ownership, index, released) -> list[Pool]:
    """Per block: ids nobody holds plus ids released, sorted (a range when nothing was held)."""
    pools: list[Pool] = []
    owner = ownership.owner
    nobody_held = not any(ownership.held)
    for block, topics in enumerate(topology.topics_of_block):
        ranges = [index.topic_range(t) for t in topics]
        if nobody_held and _contiguous(ranges):
            free: Pool = range(ranges[0].start, ranges[-1].stop)
        else:
            free = list(
                chain.from_iterable(
                    compress(r, map((-1).__eq__, owner[r.start : r.stop])) for r in ranges
                )
            )
        extra = released.get(block)
        pools.append(sorted(chain(free, extra)) if extra else free)
    return pools


def _contiguous(ranges: list[range]) -> bool:
    return all(a.stop == b.start for a, b in zip(ranges, ranges[1:], strict=False))


def stride(pool: Pool, wants: list[int]) -> list[list[Pool]]:
    """Pieces of ``pool`` for each want, dealt in layers of equal strides."""
    pieces: list[list[Pool]] = [[] for _ in wants]
    active = [i for i, want in enumerate(wants) if want > 0]
    position = level = 0
    for _ in range(_MAX_LAYERS):
        if not active:
            return pieces
        count = len(active)
        depth = min(wants[i] for i in active) - level
        layer = pool[position : position + count * depth]
        for offset, i in enumerate(active):
            pieces[i].append(layer[offset::count])
        position += count * depth
        level += depth
        active = [i for i in active if wants[i] > level]
    for i in active:  # many distinct wants: contiguous runs for the rest
        pieces[i].append(pool[position : position + wants[i] - level])
        position += wants[i] - level
    return pieces
