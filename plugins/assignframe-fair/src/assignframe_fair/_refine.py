"""Our pass after KIP-49's greedy one: shift partitions along chains until balance is optimal.

The greedy pass can strand a member: a topic with few subscribers goes first and its single
partition lands on a member that could also have taken others, leaving a member that subscribes
only to that topic idle. Sometimes one move repairs that; in general it takes a *chain*: A gives
a partition to B, B gives one (of another topic) to C, ... Only the chain's ends change load.

Phase 1 lowers the maximum: while some most-loaded member can reach, by such a chain, a member
two or more below it, shift one partition along the chain. Phase 2 raises the minimum the same way.
When neither finds a chain, the maximum is as low and the minimum as high as any assignment of
these subscriptions allows (everything reachable from a max member is within one of it, so the
partitions held there cannot be spread thinner; symmetrically for the minimum), so the max-min
spread is optimal. Each walk is linear in the group's size and serves every member-disjoint chain
it finds (Hopcroft-Karp style); a greedy result whose counts are within one costs a single pass
over the loads.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from assignframe import TopicPartition

__all__ = ["rebalance_by_chains"]

Assignment = dict[str, list[TopicPartition]]


class _Holdings:
    """Who holds which partitions of which topic, kept current as partitions move."""

    def __init__(self, assignment: Assignment, subscribers: dict[str, list[str]]) -> None:
        self.subscribers = subscribers
        self.held: dict[str, dict[str, list[int]]] = {m: {} for m in assignment}
        for member_id, partitions in assignment.items():
            for tp in partitions:
                self.held[member_id].setdefault(tp.topic, []).append(tp.partition)
        self.load = {m: len(ps) for m, ps in assignment.items()}

    def move(self, giver: str, taker: str, topic: str) -> None:
        partitions = self.held[giver][topic]
        partition = partitions.pop()
        if not partitions:
            del self.held[giver][topic]
        self.held[taker].setdefault(topic, []).append(partition)
        self.load[giver] -= 1
        self.load[taker] += 1

    def as_assignment(self) -> Assignment:
        return {
            member_id: [TopicPartition(t, p) for t in sorted(by_topic) for p in sorted(by_topic[t])]
            for member_id, by_topic in self.held.items()
        }


def rebalance_by_chains(
    assignment: Assignment, subscribers: dict[str, list[str]], rank: dict[str, int]
) -> Assignment:
    """Return an assignment with the same partitions and an optimal max-min spread.

    :param assignment: member id -> partitions (every member present)
    :param subscribers: topic -> member ids subscribed to it, for topics with partitions
    :param rank: member id -> tie-break rank (lower is visited first, for determinism)
    """
    holdings = _Holdings(assignment, subscribers)
    eligible = sorted({m for ms in subscribers.values() for m in ms}, key=rank.__getitem__)
    if not eligible or _spread(holdings, eligible) <= 1:
        return assignment
    _lower_maximum(holdings, eligible)
    _raise_minimum(holdings, eligible)
    return holdings.as_assignment()


def _spread(holdings: _Holdings, eligible: list[str]) -> int:
    loads = [holdings.load[m] for m in eligible]
    return max(loads) - min(loads)


def _lower_maximum(holdings: _Holdings, eligible: list[str]) -> None:
    while True:
        highest = max(holdings.load[m] for m in eligible)
        sources = [m for m in eligible if holdings.load[m] == highest]
        lighter = {m for m in eligible if holdings.load[m] <= highest - 2}
        if not _shift_along_chains(holdings, sources, lighter.__contains__):
            return


def _raise_minimum(holdings: _Holdings, eligible: list[str]) -> None:
    while True:
        lowest = min(holdings.load[m] for m in eligible)
        sources = [m for m in eligible if holdings.load[m] >= lowest + 2]
        if not sources:
            return
        least_loaded = {m for m in eligible if holdings.load[m] == lowest}
        if not _shift_along_chains(holdings, sources, least_loaded.__contains__):
            return


def _shift_along_chains(
    holdings: _Holdings, sources: list[str], is_target: Callable[[str], bool]
) -> bool:
    """One layered walk, then a shift along every chain that shares no member with another.

    As in Hopcroft-Karp, one walk serves many shifts: a heavily skewed group needs a few walks,
    not one per partition moved. Disjoint chains keep every giver holding what the walk saw it
    hold and every chain end's load as the walk saw it.
    """
    layer, targets = _layers(holdings, sources, is_target)
    givers = _ChainFinder(holdings, layer)
    shifted = False
    for target in targets:
        chain = givers.chain_to_source(target)
        for giver, taker, topic in chain or ():
            holdings.move(giver, taker, topic)
            shifted = True
    return shifted


def _layers(
    holdings: _Holdings, sources: list[str], is_target: Callable[[str], bool]
) -> tuple[dict[str, int], list[str]]:
    """Breadth-first walk member -> held topic -> its subscribers; each topic expanded once.

    :returns: each reached member's distance from the sources, and the targets in walk order
    """
    layer = dict.fromkeys(sources, 0)
    targets: list[str] = []
    expanded_topics: set[str] = set()
    queue = deque(sources)
    while queue:
        giver = queue.popleft()
        for topic in sorted(holdings.held[giver]):
            if topic in expanded_topics:
                continue
            expanded_topics.add(topic)
            for taker in holdings.subscribers[topic]:
                if taker not in layer:
                    layer[taker] = layer[giver] + 1
                    if is_target(taker):
                        targets.append(taker)
                    queue.append(taker)
    return layer, targets


class _ChainFinder:
    """Finds member-disjoint chains back from targets to sources through the walk's layers.

    A member at layer L can receive from a member at layer L-1 holding a topic it subscribes to.
    Members on a found chain are used; members from which no chain exists are dead; each
    (topic, layer) list of candidate givers is scanned once per walk (current-arc pointers).
    """

    def __init__(self, holdings: _Holdings, layer: dict[str, int]) -> None:
        self.layer = layer
        self.blocked: set[str] = set()  # used in a chain, or no chain through it
        self.holders: dict[tuple[str, int], list[str]] = {}
        for member, depth in layer.items():
            for topic in sorted(holdings.held[member]):
                self.holders.setdefault((topic, depth), []).append(member)
        self.next_holder: dict[tuple[str, int], int] = {}
        self.topics_of: dict[str, list[str]] = {}
        for topic in sorted(holdings.subscribers):
            for member in holdings.subscribers[topic]:
                self.topics_of.setdefault(member, []).append(topic)

    def chain_to_source(self, target: str) -> list[tuple[str, str, str]] | None:
        """(giver, taker, topic) moves from a source to ``target``, or None."""
        if target in self.blocked:
            return None
        path, moves = [target], []
        while self.layer[path[-1]] > 0:
            step = self._unblocked_giver(path[-1])
            if step is None:
                self.blocked.add(path.pop())
                if not path:
                    return None
                moves.pop()
                continue
            giver, topic = step
            moves.append((giver, path[-1], topic))
            path.append(giver)
        self.blocked.update(path)
        return moves[::-1]

    def _unblocked_giver(self, taker: str) -> tuple[str, str] | None:
        depth = self.layer[taker] - 1
        for topic in self.topics_of[taker]:
            key = (topic, depth)
            candidates = self.holders.get(key, ())
            index = self.next_holder.get(key, 0)
            while index < len(candidates) and (candidates[index] in self.blocked):
                index += 1
            self.next_holder[key] = index
            if index < len(candidates):
                return candidates[index], topic
        return None
