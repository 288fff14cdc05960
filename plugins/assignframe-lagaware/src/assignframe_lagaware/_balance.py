"""Count-neutral swaps that even out total lag; shared by both lag strategies.

A swap exchanges partitions of one topic between two members that both subscribe to it (or moves
one when the giver holds more of that topic and more partitions overall), so per-topic partition
counts stay within floor/ceil and the members' overall counts keep their spread. Each accepted
swap moves lag ``shift`` from a heavier member to a lighter one with ``0 < shift < gap``, which
strictly lowers the sum of squared totals: the loop always ends.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import defaultdict

from assignframe import GroupSubscription, TopicPartition

from ._common import lag_of
from ._exact import Holdings

#: How many of the lightest (heaviest) members a swap round tries as partners.
PARTNERS = 6


class LagLedger:
    """Who holds which partitions of which topic, and each member's total lag.

    Per member and topic, holdings are kept as a sorted list of ``(lag, partition number)``
    pairs: swaps then search with bisect on plain ints, with no TopicPartition hashing in the
    inner loop. ``holdings`` and ``reassign`` hand the assignment to the exact search
    (``_exact``) and take its answer back.
    """

    def __init__(self, group: GroupSubscription, lags: dict[TopicPartition, int]) -> None:
        self.group = group
        self.lags = lags
        self.held: dict[str, dict[str, list[tuple[int, int]]]] = {
            m: defaultdict(list) for m in group.members
        }
        self.total_lag = dict.fromkeys(group.members, 0)
        self.counts = dict.fromkeys(group.members, 0)

    def give(self, member: str, partition: TopicPartition) -> None:
        self._add(member, partition.topic, (lag_of(self.lags, partition), partition.partition))

    def _add(self, member: str, topic: str, item: tuple[int, int]) -> None:
        insort(self.held[member][topic], item)
        self.total_lag[member] += item[0]
        self.counts[member] += 1

    def _remove(self, member: str, topic: str, item: tuple[int, int]) -> None:
        holdings = self.held[member][topic]
        del holdings[bisect_left(holdings, item)]
        self.total_lag[member] -= item[0]
        self.counts[member] -= 1

    def count(self, member: str) -> int:
        return self.counts[member]

    def partitions(self) -> dict[str, list[TopicPartition]]:
        """member -> partitions, topic by topic in partition order."""
        cluster = self.group.cluster
        by_topic = {topic: cluster.partitions(topic) for topic in cluster.partitions_per_topic}
        return {
            member: [
                by_topic[topic][p]
                for topic in sorted(held)
                for p in sorted(p for _, p in held[topic])
            ]
            for member, held in self.held.items()
        }

    def holdings(self) -> Holdings:
        """The current assignment in the index form the exact search works on."""
        members = sorted(self.held)
        topics = sorted({t for held in self.held.values() for t, items in held.items() if items})
        topic_index = {t: i for i, t in enumerate(topics)}
        member_topics = [
            sorted(topic_index[t] for t in set(self.group.members[m].topics) if t in topic_index)
            for m in members
        ]
        placed = sorted(
            (-lag, topic_index[t], p, m)
            for m, member in enumerate(members)
            for t, items in self.held[member].items()
            for lag, p in items
        )
        items = [(-negative_lag, t, p) for negative_lag, t, p, _ in placed]
        return Holdings(members, topics, member_topics, items, [m for *_, m in placed])

    def reassign(self, holdings: Holdings, owner: list[int]) -> None:
        """Replace the assignment by ``owner`` (indices into ``holdings``)."""
        for member in self.held:
            self.held[member] = defaultdict(list)
            self.total_lag[member] = 0
            self.counts[member] = 0
        for (lag, t, p), m in zip(holdings.items, owner, strict=True):
            self._add(holdings.members[m], holdings.topics[t], (lag, p))

    def even_out(self, tolerance: float = 0.0, max_swaps: int | None = None) -> int:
        """Swap until the heaviest member is within ``(1 + tolerance)`` of the mean, or no swap
        helps; returns the number of swaps made."""
        members = sorted(self.group.members)
        if len(members) < 2:
            return 0
        limit = max_swaps if max_swaps is not None else 16 * sum(self.counts.values()) + 16
        mean = sum(self.total_lag.values()) / len(members)
        for swaps in range(limit):
            heavy = max(members, key=lambda m: (self.total_lag[m], m))
            if self.total_lag[heavy] <= (1 + tolerance) * mean:
                return swaps
            if not self._swap_any(heavy, members):
                return swaps
        return limit

    def _swap_any(self, heavy: str, members: list[str]) -> bool:
        """Lower the maximum (heaviest with one of the lightest), else raise the minimum.

        Only the ``PARTNERS`` lightest (heaviest) candidates are tried: the best exchanges are
        almost always between the extremes, and trying every member made large groups quadratic.
        """
        by_lag = sorted(members, key=lambda m: (self.total_lag[m], m))
        lighter = [m for m in by_lag if m != heavy][:PARTNERS]
        if any(self._swap(heavy, light) for light in lighter):
            return True
        lightest = by_lag[0]
        heavier = list(reversed(by_lag[1:-1]))[:PARTNERS]
        return any(self._swap(other, lightest) for other in heavier)

    def _swap(self, heavy: str, light: str) -> bool:
        """Apply the exchange that best evens ``heavy`` and ``light``; False if none helps.

        The ideal exchange moves half the gap; per topic, a binary search over the lighter
        member's sorted lags finds the partner closest to that for each partition given.
        """
        gap = self.total_lag[heavy] - self.total_lag[light]
        if gap <= 0:
            return False
        best: tuple[float, str, tuple[int, int], tuple[int, int] | None] | None = None
        may_move = self.counts[heavy] > self.counts[light]
        light_topics = self.group.members[light].topics
        for topic, theirs in self.held[heavy].items():
            if not theirs or topic not in light_topics:
                continue
            ours = self.held[light][topic]
            # A plain move (take nothing) keeps both within floor/ceil when heavy holds more.
            move_ok = may_move and len(theirs) > len(ours)
            for given, partition in theirs:
                target = given - gap / 2
                ideal = bisect_left(ours, (target, -1))
                candidates = [ours[i] for i in (ideal - 1, ideal) if 0 <= i < len(ours)]
                if move_ok:
                    candidates.append((0, -1))
                for take in candidates:
                    shift = given - take[0]
                    if 0 < shift < gap and (best is None or abs(gap - 2 * shift) < best[0]):
                        best = (abs(gap - 2 * shift), topic, (given, partition),
                                None if take[1] < 0 else take)
        if best is None:
            return False
        _, topic, give, taken = best
        self._remove(heavy, topic, give)
        self._add(light, topic, give)
        if taken is not None:
            self._remove(light, topic, taken)
            self._add(heavy, topic, taken)
        return True
