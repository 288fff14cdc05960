"""Count-neutral swaps that even out total lag; shared by both lag strategies.

A swap exchanges partitions of one topic between two members that both subscribe to it (or moves
one when the giver holds more of that topic and more partitions overall), so per-topic partition
counts stay within floor/ceil and the members' overall counts keep their spread. Each accepted
swap moves lag ``shift`` from a heavier member to a lighter one with ``0 < shift < gap``, which
strictly lowers the sum of squared totals: the loop always ends.
"""

from __future__ import annotations

from collections import defaultdict

from assignframe import GroupSubscription, TopicPartition

from ._common import lag_of


class LagLedger:
    """Who holds which partitions of which topic, and each member's total lag."""

    def __init__(self, group: GroupSubscription, lags: dict[TopicPartition, int]) -> None:
        self.group = group
        self.lags = lags
        self.held: dict[str, dict[str, list[TopicPartition]]] = {
            m: defaultdict(list) for m in group.members
        }
        self.total_lag = dict.fromkeys(group.members, 0)

    def give(self, member: str, partition: TopicPartition) -> None:
        self.held[member][partition.topic].append(partition)
        self.total_lag[member] += lag_of(self.lags, partition)

    def count(self, member: str) -> int:
        return sum(len(ps) for ps in self.held[member].values())

    def partitions(self) -> dict[str, list[TopicPartition]]:
        return {m: [tp for ps in self.held[m].values() for tp in ps] for m in self.group.members}

    def even_out(self, tolerance: float = 0.0, max_swaps: int | None = None) -> int:
        """Swap until the heaviest member is within ``(1 + tolerance)`` of the mean, or no swap
        helps; returns the number of swaps made."""
        members = sorted(self.group.members)
        if len(members) < 2:
            return 0
        limit = max_swaps if max_swaps is not None else 16 * sum(map(self.count, members)) + 16
        mean = sum(self.total_lag.values()) / len(members)
        for swaps in range(limit):
            heavy = max(members, key=lambda m: (self.total_lag[m], m))
            if self.total_lag[heavy] <= (1 + tolerance) * mean:
                return swaps
            if not self._swap_any(heavy, members):
                return swaps
        return limit

    def _swap_any(self, heavy: str, members: list[str]) -> bool:
        """Lower the maximum (heaviest with anyone lighter), else raise the minimum."""
        by_lag = sorted(members, key=lambda m: (self.total_lag[m], m))
        if any(self._swap(heavy, light) for light in by_lag if light != heavy):
            return True
        lightest = by_lag[0]
        return any(self._swap(other, lightest) for other in reversed(by_lag[1:-1]))

    def _swap(self, heavy: str, light: str) -> bool:
        """Apply the exchange that best evens ``heavy`` and ``light``; False if none helps."""
        gap = self.total_lag[heavy] - self.total_lag[light]
        if gap <= 0:
            return False
        best: tuple[int, TopicPartition, TopicPartition | None] | None = None
        for topic, theirs in sorted(self.held[heavy].items()):
            if topic not in self.group.members[light].topics:
                continue
            ours = self.held[light][topic]
            candidates: list[TopicPartition | None] = list(ours)
            if len(theirs) > len(ours) and self.count(heavy) > self.count(light):
                candidates.append(None)  # a plain move keeps both within floor/ceil
            for give in theirs:
                for take in candidates:
                    shift = lag_of(self.lags, give) - (lag_of(self.lags, take) if take else 0)
                    if 0 < shift < gap and (best is None or abs(gap - 2 * shift) < best[0]):
                        best = (abs(gap - 2 * shift), give, take)
        if best is None:
            return False
        _, give, take = best
        self._move(heavy, light, give)
        if take is not None:
            self._move(light, heavy, take)
        return True

    def _move(self, source: str, target: str, partition: TopicPartition) -> None:
        self.held[source][partition.topic].remove(partition)
        self.total_lag[source] -= lag_of(self.lags, partition)
        self.give(target, partition)
