"""Which balanced assignment: rack-aligned first, then the fewest moves; an exact min-cost flow.

``balance.plan_class_loads`` finds the balance: member loads that no chain of moves can bring
closer together, i.e. the least-majorized ("decreasingly minimal") load vector, which is also
the minimum of the sum of squared loads. Many assignments share it; this module picks, among
all of them, one with the most partitions on a member in a rack holding a replica (KIP-881),
then, among those, one keeping the most partitions with the members that held them: first
those on their owner's rack, then those off it (Java releases an owned partition off its
owner's rack before it keeps anything: it never costs the owner one on the rack).

Partitions are grouped: by block (topics subscribed by the same classes) and, when racks are
used, by the racks of their replicas. The model (argued in the plugin README): source -> group
(its partitions) -> member (a *keep* arc of capacity = what the member holds in the group, and
a *free* arc) -> sink (the member's load). Costs, in strictly dominating tiers: the member's
squared load (the ``k``-th partition costs ``2k - 1``, times ``BIG``); minus ``RACK`` per
partition not off-rack (on a member in a rack holding a replica, or on a member without a
rack); minus ``KEEP`` per partition kept on its owner's rack; minus 1 per partition kept off
it. A min-cost max-flow therefore minimises the squares (the balance), then maximises rack
alignment, then what is kept on the rack, then what is kept at all; integral capacities give
an integral optimum.

Every load vector at that balance lies within one partition of the one ``balance.py`` found
(Frank and Murota, *Discrete decreasing minimization*, 2022), so each member's load is modelled
on ``[x - 1, x + 1]`` only: the first ``x - 1`` units on one arc that must fill, then two
priced unit arcs. That keeps the graph to members x groups arcs plus three per member.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .balance import Topology
from .flow import FlowGraph

__all__ = ["Groups", "MemberPlan", "plan_members"]

_SOURCE, _SINK = 0, 1


@dataclass
class Groups:
    """Partitions grouped for the plan.

    :param block: per group, its block
    :param size: per group, its partitions
    :param local: per group, the member racks holding a replica (empty without racks)
    :param racks_used: whether rack alignment counts at all (KIP-881's conditions, as Java)
    """

    block: list[int]
    size: list[int]
    local: list[frozenset[str]]
    racks_used: bool = True

    @classmethod
    def of_blocks(cls, topology: Topology) -> Groups:
        count = len(topology.block_size)
        return cls(
            list(range(count)), list(topology.block_size), [frozenset()] * count, racks_used=False
        )


@dataclass
class MemberPlan:
    """Per member index: its load, and per group how many held partitions it keeps and how
    many others it is given; per class, block -> partitions the class ends up with."""

    quota: dict[int, int]
    kept: dict[int, dict[int, int]]
    free: dict[int, dict[int, int]]


def plan_members(
    topology: Topology,
    class_loads: Sequence[dict[int, int]],
    groups: Groups,
    held: Sequence[dict[int, int]],
    member_rack: Sequence[str | None],
    held_off_rack: Sequence[dict[int, int]] | None = None,
) -> MemberPlan:
    """Member loads, kept and given counts per group: the balance of ``class_loads``, then the
    most rack-local partitions, then the most kept on their owner's rack, then the most kept.

    :param class_loads: per class, block -> partitions (``balance.plan_class_loads``)
    :param held: per member index, group -> partitions it may keep (on its rack, when racks
        are used)
    :param member_rack: per member index, its rack or None
    :param held_off_rack: per member index, group -> partitions it holds there off its rack
        (``planned.split_off_rack``): kept only as the last tie-break
    """
    loads = _balanced_member_loads(topology, class_loads, held)
    used = [
        g for g, size in enumerate(groups.size) if size and topology.subscribers[groups.block[g]]
    ]
    total = sum(groups.size[g] for g in used)
    off_rack = held_off_rack if held_off_rack is not None and any(held_off_rack) else None
    keep_bonus = total + 1 if off_rack else 1  # more than every partition kept off its rack
    rack_bonus = keep_bonus * (total + 1)  # more than every kept partition together
    big = rack_bonus * (total + 1) + 1  # more than every rack and kept bonus together
    forced = -(big * (2 * max(loads.values(), default=0) + 3) * (total + 1) + big)
    members = [
        m for c, klass in enumerate(topology.members) if topology.blocks_of[c] for m in klass
    ]
    node_of_group = {g: 2 + i for i, g in enumerate(used)}
    first_member = 2 + len(used)
    graph = FlowGraph(first_member + len(members))
    for g in used:
        graph.add(_SOURCE, node_of_group[g], groups.size[g], 0)
    groups_of_block: dict[int, list[int]] = {}
    for g in used:
        groups_of_block.setdefault(groups.block[g], []).append(g)
    arcs: dict[tuple[int, int], tuple[int | None, int, int | None]] = {}
    for position, member in enumerate(members):
        node = first_member + position
        mine, rack = held[member], member_rack[member]
        for block in topology.blocks_of[topology.class_of[member]]:
            for g in groups_of_block.get(block, ()):
                # a member without a rack is never off-rack (Java counts no mismatch for it)
                local = rack is None or rack in groups.local[g]
                bonus = rack_bonus if local and groups.racks_used else 0
                keep = keep_off = None
                if mine.get(g, 0) > 0:
                    keep = graph.add(node_of_group[g], node, mine[g], -bonus - keep_bonus)
                if off_rack is not None and off_rack[member].get(g, 0) > 0:
                    keep_off = graph.add(node_of_group[g], node, off_rack[member][g], -bonus - 1)
                free = graph.add(node_of_group[g], node, groups.size[g], -bonus)
                arcs[member, g] = (keep, free, keep_off)
        _load_arcs(graph, node, loads[member], big, forced)
    assert graph.min_cost_max_flow(_SOURCE, _SINK) == total, "a balanced flow must exist"
    return _read_plan(graph, members, arcs)


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


def _read_plan(graph: FlowGraph, members, arcs) -> MemberPlan:
    quota = dict.fromkeys(members, 0)
    kept: dict[int, dict[int, int]] = {m: {} for m in members}
    free: dict[int, dict[int, int]] = {m: {} for m in members}
    for (member, group), (keep_arc, free_arc, keep_off_arc) in arcs.items():
        keep = graph.flow(keep_arc) if keep_arc is not None else 0
        keep += graph.flow(keep_off_arc) if keep_off_arc is not None else 0
        given = graph.flow(free_arc)
        if keep:
            kept[member][group] = keep
        if given:
            free[member][group] = given
        quota[member] += keep + given
    return MemberPlan(quota, kept, free)
