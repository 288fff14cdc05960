"""How many partitions of which topics each kind of member gets: balance first, stickiness second.

Members with the same (existing) topics form a *class*; topics subscribed by the same classes form
a *block*. Any two members of one class can swap partitions, so in a balanced assignment their
loads differ by at most one, and the whole problem shrinks to classes x blocks: ``x[c][b]``
partitions of block ``b`` go to class ``c``. With identical subscriptions (the common case) that is
one class and one block, and nothing here costs more than O(classes).

KIP-54 calls an assignment balanced when no partition can move to another of its potential
consumers and improve the balance score. We aim higher: no *chain* of moves (a path in the
class/block graph) can bring a member's load closer to another's. Such a load vector is the
least-majorized one, so it is at least as good as any other under every symmetric convex score,
KIP-54's sum of pairwise differences included.

Stickiness here is only a good start: units a class already holds stay put unless a path must
move them, partitions nobody holds are spread first (water-filling), and paths pass "fresh"
units (given out in this rebalance) before held ones. Balanced loads are not unique; which of
them keeps the most is decided exactly, per member, by ``movement.plan_members``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Topology", "plan_class_loads"]


@dataclass
class Topology:
    """Members grouped into classes (same topics) and topics into blocks (same classes).

    :param class_of: per member index, its class
    :param members: per class, its member indexes (ascending)
    :param blocks_of: per class, the blocks it subscribes
    :param topics_of_block: per block, its topic indexes
    :param block_of_topic: per topic index, its block
    :param block_size: per block, its number of partitions
    """

    class_of: list[int]
    members: list[list[int]]
    blocks_of: list[tuple[int, ...]]
    topics_of_block: list[tuple[int, ...]]
    block_of_topic: list[int]
    block_size: list[int]
    subscribers: list[tuple[int, ...]] = field(default_factory=list)

    @classmethod
    def of(cls, subscribed: Sequence[frozenset[int]], topic_sizes: Sequence[int]) -> Topology:
        class_key: dict[frozenset[int], int] = {}
        class_of: list[int] = []
        members: list[list[int]] = []
        topics_of_class: list[tuple[int, ...]] = []
        for member, topics in enumerate(subscribed):
            klass = class_key.get(topics)
            if klass is None:
                klass = class_key[topics] = len(members)
                members.append([])
                topics_of_class.append(tuple(sorted(topics)))
            class_of.append(klass)
            members[klass].append(member)
        return cls._with_blocks(class_of, members, topics_of_class, topic_sizes)

    @classmethod
    def _with_blocks(cls, class_of, members, topics_of_class, topic_sizes) -> Topology:
        classes_of_topic: list[list[int]] = [[] for _ in topic_sizes]
        for klass, topics in enumerate(topics_of_class):
            for topic in topics:
                classes_of_topic[topic].append(klass)
        block_key: dict[tuple[int, ...], int] = {}
        block_of_topic: list[int] = []
        topics_of_block: list[list[int]] = []
        block_size: list[int] = []
        subscribers: list[tuple[int, ...]] = []
        for topic, classes in enumerate(classes_of_topic):
            key = tuple(classes)
            if key not in block_key:
                block_key[key] = len(topics_of_block)
                topics_of_block.append([])
                block_size.append(0)
                subscribers.append(key)
            block = block_key[key]
            block_of_topic.append(block)
            topics_of_block[block].append(topic)
            block_size[block] += topic_sizes[topic]
        blocks_of = [
            tuple(sorted({block_of_topic[t] for t in topics})) for topics in topics_of_class
        ]
        return cls(
            class_of,
            members,
            blocks_of,
            [tuple(t) for t in topics_of_block],
            block_of_topic,
            block_size,
            subscribers,
        )


def _hi(load: int, size: int) -> int:
    return -(-load // size)


def _lo(load: int, size: int) -> int:
    return load // size


@dataclass
class _Plan:
    """Working state: per class, units held / fresh per block, and the class's total load."""

    sizes: list[int]
    x: list[dict[int, int]]
    fresh: list[dict[int, int]]
    load: list[int]

    def hi(self, klass: int) -> int:
        return _hi(self.load[klass], self.sizes[klass])

    def lo(self, klass: int) -> int:
        return _lo(self.load[klass], self.sizes[klass])

    def give(self, klass: int, block: int, units: int) -> None:
        """``units`` fresh units of ``block`` to ``klass``."""
        self.x[klass][block] = self.x[klass].get(block, 0) + units
        self.fresh[klass][block] = self.fresh[klass].get(block, 0) + units
        self.load[klass] += units

    def take(self, klass: int, block: int, units: int) -> None:
        """Remove ``units`` of ``block`` from ``klass``, fresh ones first."""
        self.x[klass][block] -= units
        fresh = self.fresh[klass].get(block, 0)
        self.fresh[klass][block] = max(0, fresh - units)
        self.load[klass] -= units


def plan_class_loads(
    topology: Topology,
    held: Sequence[dict[int, int]],
    unassigned: Sequence[int],
) -> list[dict[int, int]]:
    """Units of each block per class after balancing.

    :param held: per class, block -> partitions its members keep a valid claim to
    :param unassigned: per block, partitions nobody holds
    :returns: per class, block -> partitions the class ends up with
    """
    sizes = [len(m) for m in topology.members]
    plan = _Plan(
        sizes, [dict(h) for h in held], [{} for _ in held], [sum(h.values()) for h in held]
    )
    order = sorted(range(len(unassigned)), key=lambda b: (len(topology.subscribers[b]), b))
    for block in order:
        if unassigned[block] and topology.subscribers[block]:
            _water_fill(plan, block, unassigned[block], topology.subscribers[block])
    if len(sizes) > 1:
        _improve(plan, topology)
    return plan.x


def _water_fill(plan: _Plan, block: int, units: int, classes: Sequence[int]) -> None:
    """Give ``units`` of ``block`` to the least-loaded members among ``classes``."""
    sizes, load = plan.sizes, plan.load

    def need(level: int) -> int:
        return sum(max(0, level * sizes[c] - load[c]) for c in classes)

    low, high = (
        min(_lo(load[c], sizes[c]) for c in classes),
        max(_hi(load[c], sizes[c]) for c in classes) + units,
    )
    while low < high:  # the highest level every member can be raised to
        middle = (low + high + 1) // 2
        low, high = (middle, high) if need(middle) <= units else (low, middle - 1)
    for klass in classes:
        raise_by = max(0, low * sizes[klass] - load[klass])
        if raise_by:
            plan.give(klass, block, raise_by)
            units -= raise_by
    for klass in sorted(classes, key=lambda c: (plan.lo(c), c)):
        room = max(0, (low + 1) * sizes[klass] - load[klass])
        extra = min(room, units)
        if extra:
            plan.give(klass, block, extra)
            units -= extra


def _improve(plan: _Plan, topology: Topology) -> None:
    """Move units along improving paths until no member can get closer to another's load.

    Blocking-flow style (Dinic): one breadth-first search labels the classes by their distance
    from the classes that need units; then depth-first walks along those labels move units from
    every class that can give until no labelled path is left, and only then is the graph
    searched again. One search per path made mixed subscriptions (nearly every member its own
    class) cost thousands of searches over the whole graph.
    """
    while True:
        found = _lowest_improvable_level(plan, topology)
        if found is None:
            return
        level, distance = found
        _blocking_moves(plan, topology, level, distance)


def _lowest_improvable_level(plan: _Plan, topology: Topology):
    """The lowest load level ``t`` some member at ``t + 2`` or more can pass a unit to (through
    a chain of classes), with the search's distances; or None.

    A member at ``t`` or less receiving a unit passed down a path from a member at ``t + 2`` or
    more strictly reduces the sum of squared member loads.
    """
    classes = [c for c in range(len(plan.sizes)) if topology.blocks_of[c]]
    levels = sorted({plan.lo(c) for c in classes})
    heaviest = max((plan.hi(c) for c in classes), default=0)
    for level in levels:
        if heaviest < level + 2:
            return None
        targets = [c for c in classes if plan.lo(c) <= level]
        distance = _distances_back(plan, topology, targets)
        if any(plan.hi(c) >= level + 2 for c in distance if distance[c] > 0):
            return level, distance
    return None


def _distances_back(plan: _Plan, topology: Topology, targets: list[int]) -> dict[int, int]:
    """Breadth-first search backwards from ``targets``: class A is one step before M when A
    holds units of a block M subscribes. Each block is opened once, by the first class
    reaching it (not once per subscribing class: that was quadratic in the classes)."""
    distance = dict.fromkeys(targets, 0)
    frontier = list(targets)
    opened: set[int] = set()
    while frontier:
        reached = []
        for receiver in frontier:
            for block in topology.blocks_of[receiver]:
                if block in opened:
                    continue
                opened.add(block)
                for giver in topology.subscribers[block]:
                    if giver not in distance and plan.x[giver].get(block, 0) > 0:
                        distance[giver] = distance[receiver] + 1
                        reached.append(giver)
        frontier = reached
    return distance


def _blocking_moves(plan: _Plan, topology: Topology, level: int, distance: dict[int, int]):
    """Move units along shortest paths (by ``distance``) from classes above ``level + 1`` to
    classes below it until no such path is left. Fresh units are passed first."""
    by_distance: dict[tuple[int, int], list[int]] = {}
    for block in {b for c in distance for b in topology.blocks_of[c]}:
        for klass in topology.subscribers[block]:
            if klass in distance:
                by_distance.setdefault((block, distance[klass]), []).append(klass)
    dead: set[int] = set()
    sources = [c for c in distance if distance[c] > 0 and plan.hi(c) >= level + 2]
    sources.sort(key=lambda c: (-plan.hi(c), c))
    for source in sources:
        while source not in dead and _surplus(plan, source, level) > 0:
            path = _walk(plan, topology, source, level, distance, by_distance, dead)
            if path is None:
                break
            _apply(plan, path, path[-1][2], level)


def _surplus(plan: _Plan, klass: int, level: int) -> int:
    return plan.load[klass] - (level + 1) * plan.sizes[klass]


def _walk(plan, topology, source, level, distance, by_distance, dead):
    """Depth-first along decreasing distance to a class still short of ``level + 1``; classes
    found to lead nowhere are marked dead for the rest of the phase."""
    path: list[tuple[int, int, int]] = []
    node = source
    while True:
        if distance[node] == 0:
            if (level + 1) * plan.sizes[node] - plan.load[node] > 0:
                return path
            dead.add(node)
        else:
            hop = _next_hop(plan, topology, node, distance, by_distance, dead)
            if hop is not None:
                path.append((node, *hop))
                node = hop[1]
                continue
            dead.add(node)
        if not path:
            return None
        node = path.pop()[0]


def _next_hop(plan, topology, giver, distance, by_distance, dead):
    """(block, receiver) one step closer, fresh units first; None if every step is dead."""
    want = distance[giver] - 1
    x, fresh = plan.x[giver], plan.fresh[giver]
    blocks = [b for b in topology.blocks_of[giver] if x.get(b, 0) > 0]
    blocks.sort(key=lambda b: fresh.get(b, 0) <= 0)
    for block in blocks:
        receivers = by_distance.get((block, want))
        while receivers and receivers[-1] in dead:
            receivers.pop()
        if receivers:
            return block, receivers[-1]
    return None


def _apply(plan: _Plan, path: list[tuple[int, int, int]], target: int, level: int) -> None:
    """Move units along ``path``: at most what the path carries, what keeps the source's members
    at ``level + 1`` or more, and what lifts the target's members to ``level + 1``. Every unit
    moved goes from a member at ``level + 2`` or more to one at ``level`` or less (an
    improvement), and no source is drained below the level it is filling (no churn). A path
    that earlier moves of the same search used up moves nothing."""
    capacity = min(plan.fresh[g].get(b, 0) or plan.x[g][b] for g, b, _ in path)
    source = path[0][0]
    sizes, load = plan.sizes, plan.load
    surplus = load[source] - (level + 1) * sizes[source]
    shortfall = (level + 1) * sizes[target] - load[target]
    units = min(capacity, surplus, shortfall)
    if units <= 0:
        return
    for giver, block, receiver in path:
        plan.take(giver, block, units)
        plan.give(receiver, block, units)
