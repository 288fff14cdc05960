"""A small exact min-cost flow (primal-dual: Dijkstra on reduced costs, then Dinic blocking
flows on the zero-reduced-cost arcs), for graphs of a few thousand nodes.

Successive shortest paths pushing one path at a time would need one search per partition; here
each search is followed by a blocking flow that saturates every shortest path at once, so the
number of searches is the number of distinct path costs, which the sticky models keep small
(a handful of load levels, costs -1/0/+1 for keeping or moving a partition).
"""

from __future__ import annotations

from heapq import heappop, heappush

__all__ = ["FlowGraph"]


class FlowGraph:
    """Arcs in parallel lists; arc ``e ^ 1`` is the residual reverse of arc ``e``."""

    def __init__(self, nodes: int):
        self.nodes = nodes
        self.head: list[list[int]] = [[] for _ in range(nodes)]
        self.to: list[int] = []
        self.cap: list[int] = []
        self.cost: list[int] = []

    def add(self, tail: int, head: int, capacity: int, cost: int) -> int:
        """An arc; returns its index (its flow is ``flow(index)``)."""
        index = len(self.to)
        self.head[tail].append(index)
        self.head[head].append(index + 1)
        self.to += (head, tail)
        self.cap += (capacity, 0)
        self.cost += (cost, -cost)
        return index

    def flow(self, arc: int) -> int:
        return self.cap[arc ^ 1]

    def min_cost_max_flow(self, source: int, sink: int) -> int:
        """Push the maximum flow from ``source`` to ``sink`` at minimum cost; returns the flow.

        Costs may be negative, but the graph must have no negative cycle at the start.
        """
        potential = self._initial_potentials(source)
        total = 0
        while True:
            distance = self._dijkstra(source, potential)
            if distance[sink] is None:
                return total
            top = max(d for d in distance if d is not None)
            for node, d in enumerate(distance):
                potential[node] += top + 1 if d is None else d
            while (level := self._admissible_levels(source, sink, potential)) is not None:
                total += self._blocking_flow(source, sink, potential, level)

    def _initial_potentials(self, source: int) -> list[int]:
        """Shortest distances from ``source`` over the arcs with capacity (Bellman-Ford, queue
        based); unreachable nodes get the largest distance found."""
        inf = None
        distance: list[int | None] = [inf] * self.nodes
        distance[source] = 0
        queue, queued = [source], {source}
        to, cap, cost = self.to, self.cap, self.cost
        while queue:
            nxt = []
            for node in queue:
                queued.discard(node)
                base = distance[node]
                assert base is not None  # only reached nodes are queued
                for arc in self.head[node]:
                    if cap[arc] > 0:
                        head, candidate = to[arc], base + cost[arc]
                        known = distance[head]
                        if known is None or candidate < known:
                            distance[head] = candidate
                            if head not in queued:
                                queued.add(head)
                                nxt.append(head)
            queue = nxt
        top = max(d for d in distance if d is not None)
        return [top if d is None else d for d in distance]

    def _dijkstra(self, source: int, potential: list[int]) -> list[int | None]:
        distance: list[int | None] = [None] * self.nodes
        distance[source] = 0
        heap = [(0, source)]
        to, cap, cost, head_of = self.to, self.cap, self.cost, self.head
        while heap:
            d, node = heappop(heap)
            if d != distance[node]:
                continue
            base = d + potential[node]
            for arc in head_of[node]:
                if cap[arc] > 0:
                    head = to[arc]
                    candidate = base + cost[arc] - potential[head]
                    known = distance[head]
                    if known is None or candidate < known:
                        distance[head] = candidate
                        heappush(heap, (candidate, head))
        return distance

    def _admissible(self, arc: int, tail: int, potential: list[int]) -> bool:
        return self.cap[arc] > 0 and (
            potential[tail] + self.cost[arc] - potential[self.to[arc]] == 0
        )

    def _admissible_levels(self, source: int, sink: int, potential: list[int]):
        """Breadth-first levels over zero-reduced-cost arcs with capacity; None if the sink is
        out of reach."""
        level = [-1] * self.nodes
        level[source] = 0
        frontier = [source]
        to = self.to
        while frontier:
            reached = []
            for node in frontier:
                for arc in self.head[node]:
                    head = to[arc]
                    if level[head] < 0 and self._admissible(arc, node, potential):
                        level[head] = level[node] + 1
                        reached.append(head)
            frontier = reached
        return level if level[sink] >= 0 else None

    def _blocking_flow(self, source: int, sink: int, potential: list[int], level) -> int:
        """Dinic's blocking flow, iterative, with a current-arc pointer per node."""
        pointer = [0] * self.nodes
        to, cap, head_of = self.to, self.cap, self.head
        pushed = 0
        while True:
            path: list[int] = []
            node = source
            while node != sink:
                arcs = head_of[node]
                while pointer[node] < len(arcs):
                    arc = arcs[pointer[node]]
                    nxt = to[arc]
                    if level[nxt] == level[node] + 1 and self._admissible(arc, node, potential):
                        break
                    pointer[node] += 1
                else:
                    if not path:
                        return pushed
                    level[node] = -1  # a dead end for the rest of this phase
                    node = to[path.pop() ^ 1]
                    pointer[node] += 1
                    continue
                path.append(arc)
                node = nxt
            amount = min(cap[arc] for arc in path)
            for arc in path:
                cap[arc] -= amount
                cap[arc ^ 1] += amount
            pushed += amount
