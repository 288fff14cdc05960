"""The least balance score a group's subscriptions allow, so a score can be said to be the best.

KIP-54's balance score sums ``|n_a - n_b|`` over pairs of members; with every member subscribed
to the same topics the best split differs by at most one partition, but with different
subscriptions the best possible score can be well above 0 (a partition only one member
subscribes to must go to it). The counts every valid assignment can give form an integral
base polyhedron (a flow of partitions to their subscribers); in such a set, the most even vector
(no unit can move from a member with ``c`` partitions to one with ``c - 2`` or fewer) minimizes
every symmetric convex function of the counts (Frank and Murota, "Discrete decreasing
minimization"), the balance score among them. :func:`least_balance_score` finds it by moving
partitions along chains of subscribers until no such move is left.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

from ..metrics import balance_score
from ..model import GroupSubscription

__all__ = ["least_balance_score"]


def least_balance_score(group: GroupSubscription) -> int:
    """The lowest balance score any valid assignment (one owner per partition) of ``group``
    can have."""
    holdings = _greedy(group)
    while _improve(group, holdings):
        pass
    return balance_score(sum(held.values()) for held in holdings.values())


def _greedy(group: GroupSubscription) -> dict[str, dict[str, int]]:
    """member -> topic -> partitions held: each partition to its least loaded subscriber."""
    holdings: dict[str, dict[str, int]] = {m: {} for m in group.members}
    load = dict.fromkeys(group.members, 0)
    for topic, count in sorted(group.cluster.partitions_per_topic.items()):
        subscribers = sorted(m for m, member in group.members.items() if topic in member.topics)
        for _ in range(count if subscribers else 0):
            taker = min(subscribers, key=lambda m: (load[m], m))
            holdings[taker][topic] = holdings[taker].get(topic, 0) + 1
            load[taker] += 1
    return holdings


def _improve(group: GroupSubscription, holdings: dict[str, dict[str, int]]) -> bool:
    """Move one partition's worth of load from a fullest member to one holding at least two
    fewer, along a chain of subscribers (each hands one partition of a topic the next
    subscribes to); False when no such chain exists."""
    load = {m: sum(held.values()) for m, held in holdings.items()}
    for source in sorted(load, key=lambda m: -load[m]):
        path = _chain(group, holdings, source, load[source] - 2, load)
        if path:
            for giver, taker, topic in path:
                holdings[giver][topic] -= 1
                holdings[taker][topic] = holdings[taker].get(topic, 0) + 1
            return True
    return False


def _chain(
    group: GroupSubscription,
    holdings: Mapping[str, Mapping[str, int]],
    source: str,
    at_most: int,
    load: Mapping[str, int],
) -> list[tuple[str, str, str]]:
    """Breadth-first: hops (giver, taker, topic) from ``source`` to a member holding at most
    ``at_most`` partitions, or [] when none is reachable."""
    came_from: dict[str, tuple[str, str] | None] = {source: None}
    queue = deque([source])
    while queue:
        giver = queue.popleft()
        for topic, held in holdings[giver].items():
            if not held:
                continue
            for taker, member in group.members.items():
                if taker in came_from or topic not in member.topics:
                    continue
                came_from[taker] = (giver, topic)
                if load[taker] <= at_most:
                    return _path(came_from, taker)
                queue.append(taker)
    return []


def _path(came_from: Mapping[str, tuple[str, str] | None], end: str) -> list[tuple[str, str, str]]:
    hops = []
    taker = end
    while (step := came_from[taker]) is not None:
        giver, topic = step
        hops.append((giver, taker, topic))
        taker = giver
    return hops[::-1]
