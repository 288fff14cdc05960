"""The fewest moves at the balance reached: an exact min-cost flow over members x blocks.

``balance.plan_class_loads`` finds the balance: member loads that no chain of moves can bring
closer together, i.e. the least-majorized ("decreasingly minimal") load vector, which is also
the unique minimum of the sum of squared loads up to which member carries which value. Many
assignments share it; this module picks one that keeps the most partitions with the members
that held them, per-member counts included in the choice.

The model (see the plugin README for the argument): source -> block (its partitions) ->
member (a *keep* arc of capacity = what the member holds in the block, cost -1, and a *free*
arc, cost 0) -> sink (the member's load, priced by its marginal squared-load cost ``2k - 1``
for the ``k``-th partition, scaled by ``BIG`` > every partition count). A min-cost max-flow
first minimises the sum of squares (the balance), then maximises what is kept. Every load
vector at that balance lies within one partition of the one found by ``balance.py`` (Frank and
Murota, *Discrete decreasing minimization*, 2022), so each member's load is modelled on
``[x - 1, x + 1]`` only: the first ``x - 1`` units on one arc that must fill (``FORCED``), then
two priced unit arcs. The flow is exact: integral capacities give an integral optimum.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .balance import Topology
from .flow import FlowGraph

__all__ = ["MemberPlan", "plan_members"]

_SOURCE, _SINK = 0, 1


@dataclass
class MemberPlan:
    """Per member index: its load, and per block how many of its held partitions it keeps;
    per class, block -> partitions the class ends up with."""

    quota: dict[int, int]
    kept: dict[int, dict[int, int]]
    class_loads: list[dict[int, int]]


def plan_members(
    topology: Topology,
    class_loads: Sequence[dict[int, int]],
    held: Sequence[dict[int, int]],
) -> MemberPlan:
    """Member loads and kept counts: the balance of ``class_loads``, the most kept.

    :param class_loads: per class, block -> partitions (``balance.plan_class_loads``)
    :param held: per member index, block -> partitions it may keep
    """
    loads = _balanced_member_loads(topology, class_loads, held)
    total = sum(topology.block_size[b] for b in _used_blocks(topology))
    big = total + 1
    heaviest = max(loads.values(), default=0)
    forced = -(big * (2 * heaviest + 3) * (total + 1) + big)
    blocks = _used_blocks(topology)
    node_of_block = {b: 2 + i for i, b in enumerate(blocks)}
    members = [
        m for c, klass in enumerate(topology.members) if topology.blocks_of[c] for m in klass
    ]
    node_of_member = {m: 2 + len(blocks) + i for i, m in enumerate(members)}
    graph = FlowGraph(2 + len(blocks) + len(members))
    for block in blocks:
        graph.add(_SOURCE, node_of_block[block], topology.block_size[block], 0)
    keep_arcs: dict[tuple[int, int], int] = {}
    free_arcs: dict[tuple[int, int], int] = {}
    for member in members:
        node = node_of_member[member]
        mine = held[member]
        for block in topology.blocks_of[topology.class_of[member]]:
            size = topology.block_size[block]
            if mine.get(block, 0) > 0:
                keep_arcs[member, block] = graph.add(node_of_block[block], node, mine[block], -1)
            free_arcs[member, block] = graph.add(node_of_block[block], node, size, 0)
        _load_arcs(graph, node, loads[member], big, forced)
    assert graph.min_cost_max_flow(_SOURCE, _SINK) == total, "a balanced flow must exist"
    return _read_plan(topology, graph, members, keep_arcs, free_arcs)


def _used_blocks(topology: Topology) -> list[int]:
    return [
        b
        for b, subscribers in enumerate(topology.subscribers)
        if subscribers and topology.block_size[b] > 0
    ]


def _balanced_member_loads(topology, class_loads, held) -> dict[int, int]:
    """One balanced member load vector: each class's load split ``q`` / ``q + 1``, the
    ``q + 1`` to those holding the most (any split is balanced; this one is a good start)."""
    loads = {}
    for klass, members in enumerate(topology.members):
        base, extra = divmod(sum(class_loads[klass].values()), len(members))
        ranked = sorted(members, key=lambda m: (-sum(held[m].values()), m))
        for rank, member in enumerate(ranked):
            loads[member] = base + (1 if rank < extra else 0)
    return loads


def _load_arcs(graph: FlowGraph, node: int, load: int, big: int, forced: int) -> None:
    """Member -> sink: loads ``load - 1`` to ``load + 1`` allowed, priced by squared load."""
    floor = max(0, load - 1)
    if floor:
        graph.add(node, _SINK, floor, forced)
    for unit in range(floor + 1, load + 2):
        graph.add(node, _SINK, 1, big * (2 * unit - 1))


def _read_plan(topology, graph, members, keep_arcs, free_arcs) -> MemberPlan:
    quota = dict.fromkeys(members, 0)
    kept: dict[int, dict[int, int]] = {m: {} for m in members}
    class_loads: list[dict[int, int]] = [{} for _ in topology.members]
    for (member, block), arc in free_arcs.items():
        keep = graph.flow(keep_arcs[member, block]) if (member, block) in keep_arcs else 0
        units = keep + graph.flow(arc)
        if keep:
            kept[member][block] = keep
        if units:
            quota[member] += units
            loads = class_loads[topology.class_of[member]]
            loads[block] = loads.get(block, 0) + units
    return MemberPlan(quota, kept, class_loads)
