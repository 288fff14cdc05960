"""Fixture ``optimal_spread``: the best max-min spread any assignment could reach, by max flow.

source -> topic (capacity: its partitions) -> subscribed member (unbounded) -> sink (capacity c).
The smallest feasible maximum is the least c whose flow carries every partition; the largest
feasible minimum is the greatest c whose flow fills every eligible member to c.
"""

from __future__ import annotations

from collections import deque

import pytest


@pytest.fixture(scope="session")
def optimal_spread():
    """An oracle for fair's tests: ``optimal_spread(counts, topics_of)``."""
    return best_spread


def best_spread(counts: dict[str, int], topics_of: dict[str, tuple[str, ...]]) -> int:
    members = [m for m, ts in topics_of.items() if any(counts.get(t, 0) > 0 for t in ts)]
    total = sum(n for t, n in counts.items() if any(t in topics_of[m] for m in members))
    if not members:
        return 0
    lowest_max = next(
        c for c in range(total + 1) if _max_flow(counts, topics_of, members, c) == total
    )
    highest_min = max(
        c for c in range(total + 1) if _max_flow(counts, topics_of, members, c) == c * len(members)
    )
    return lowest_max - highest_min


def _max_flow(counts, topics_of, members, member_capacity: int) -> int:
    capacity: dict[tuple[str, str], int] = {}
    for topic, n in counts.items():
        capacity[("S", "t:" + topic)] = n
    for member in members:
        capacity[("m:" + member, "T")] = member_capacity
        for topic in topics_of[member]:
            if counts.get(topic, 0) > 0:
                capacity[("t:" + topic, "m:" + member)] = 10**9
    neighbours: dict[str, set[str]] = {}
    for a, b in list(capacity):
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
        capacity.setdefault((b, a), 0)
    flow = 0
    while (path := _augmenting_path(capacity, neighbours)) is not None:
        bottleneck = min(capacity[edge] for edge in path)
        for a, b in path:
            capacity[(a, b)] -= bottleneck
            capacity[(b, a)] += bottleneck
        flow += bottleneck
    return flow


def _augmenting_path(capacity, neighbours):
    parent = {"S": None}
    queue = deque(["S"])
    while queue:
        node = queue.popleft()
        for nxt in neighbours.get(node, ()):
            if nxt not in parent and capacity[(node, nxt)] > 0:
                parent[nxt] = node
                if nxt == "T":
                    path = []
                    while parent[nxt] is not None:
                        path.append((parent[nxt], nxt))
                        nxt = parent[nxt]
                    return path
                queue.append(nxt)
    return None
