"""Branch and bound for the most even total lag a count-balanced assignment can reach.

The search space is every assignment the proposal's count rule allows: each subscriber of a topic
holds ``floor`` or ``ceil`` of its partitions, and the members' partition counts, as a multiset,
stay those of the starting assignment (the search never trades count balance for lag). Within
it the objective is the issue's measure: lowest max/min total lag per member, then lowest
maximum. A search that finishes has found the optimum, so no assignment with the same count
balance that respects the per-topic rule (range's and roundrobin's both do) is more even.

Partitions are placed in decreasing lag, each member tried lightest first; a branch is cut when
its bound cannot beat the best assignment found so far (at first, the one given). The work is
capped by a budget; a search that runs out keeps the best assignment it has seen.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import NamedTuple

#: Work cap of one search, in member evaluations (each a few integer operations): about 20 ms
#: of CPython. Enough to finish on ~97 % of groups of 2-4 members and up to 24 partitions
#: (bench/compare.py); on larger groups the search keeps the best assignment it reached.
SEARCH_BUDGET = 50_000


def is_more_even(high: int, low: int, best_high: int, best_low: int) -> bool:
    """True if totals spanning ``low..high`` beat ``best_low..best_high``: ratio, then maximum.

    Ratios are compared by cross-multiplication (exact on ints); a zero minimum makes the ratio
    infinite, except when everything is zero (ratio 1).
    """
    ratio = _compare_ratios(high, low, best_high, best_low)
    return ratio < 0 or (ratio == 0 and high < best_high)


def _compare_ratios(high: int, low: int, other_high: int, other_low: int) -> int:
    """Sign of ``high/low - other_high/other_low`` with the zero conventions above."""
    if low == 0 and high == 0:
        high, low = 1, 1
    if other_low == 0 and other_high == 0:
        other_high, other_low = 1, 1
    if low == 0 or other_low == 0:
        return (low == 0) - (other_low == 0)
    difference = high * other_low - other_high * low
    return (difference > 0) - (difference < 0)


@dataclass
class Holdings:
    """One assignment in index form: ``owner[i]`` is the member index of ``items[i]``."""

    members: list[str]
    topics: list[str]
    member_topics: list[list[int]]
    #: (lag, topic index, partition number), decreasing lag: the order partitions are placed in.
    items: list[tuple[int, int, int]]
    owner: list[int]


class SearchOutcome(NamedTuple):
    """What a search found: ``owner`` as in ``Holdings.owner``; ``optimal`` if it finished."""

    owner: list[int]
    optimal: bool


class _Search:
    """Mutable state of one depth-first search; ``run`` returns the best owners found.

    Per topic ``t``: ``floor[t]`` partitions per subscriber, ``slots[t]`` subscribers get one
    more, and ``prefix[t]`` sums its lags in placement order (unplaced ones are a suffix).
    """

    def __init__(self, holdings: Holdings, budget: int) -> None:
        self.holdings = holdings
        self.budget = budget
        members, topics = len(holdings.members), len(holdings.topics)
        self.subscribers = [
            [m for m, ts in enumerate(holdings.member_topics) if t in ts] for t in range(topics)
        ]
        self.prefix: list[list[int]] = [[0] for _ in range(topics)]
        for lag, t, _ in holdings.items:
            self.prefix[t].append(self.prefix[t][-1] + lag)
        self.floor, self.slots = [], []
        for t in range(topics):
            floor, slots = divmod(len(self.prefix[t]) - 1, max(1, len(self.subscribers[t])))
            self.floor.append(floor)
            self.slots.append(slots)
        self.total = sum(lag for lag, _, _ in holdings.items)
        self.target = sorted(_counts(holdings))
        self.best_owner = list(holdings.owner)
        self.best_high, self.best_low = _span(_totals(holdings))
        self.lag = [0] * members
        self.count = [0] * members
        self.held = [[0] * topics for _ in range(members)]
        self.below_floor = [sum(self.floor[t] for t in ts) for ts in holdings.member_topics]
        self.ceil_used = [0] * topics
        self.placed = [0] * topics
        # Members with the same topics, counts and lag are interchangeable: try one of them.
        self.kind = _subscription_kinds(holdings.member_topics)
        self.bound_cost = members + sum(len(ts) for ts in holdings.member_topics)

    def run(self) -> SearchOutcome:
        if self._bound_cannot_beat():
            return SearchOutcome(self.best_owner, True)  # the start is already optimal
        items = self.holdings.items
        chosen: list[int] = []
        options = [self._candidates(0)]
        while options and self.budget > 0:
            if not options[-1]:
                options.pop()
                if chosen:
                    self._take_back(len(chosen) - 1, chosen.pop())
                continue
            member = options[-1].pop()
            depth = len(chosen)
            ceil_taken = self._place(depth, member)
            if self._cut(ceil_taken):
                self._take_back(depth, member)
                continue
            chosen.append(member)
            if len(chosen) == len(items):
                self._leaf(chosen)
                self._take_back(depth, chosen.pop())
                continue
            options.append(self._candidates(depth + 1))
        return SearchOutcome(self.best_owner, not options)

    def _candidates(self, depth: int) -> list[int]:
        """Members that may take item ``depth``, heaviest first (they are popped from the end)."""
        _, t, _ = self.holdings.items[depth]
        floor, ceil_full = self.floor[t], self.ceil_used[t] >= self.slots[t]
        seen: set[tuple] = set()
        result = []
        self.budget -= len(self.subscribers[t])
        for member in self.subscribers[t]:
            held = self.held[member]
            if held[t] > floor or (held[t] == floor and ceil_full):
                continue
            signature = (self.kind[member], self.lag[member], *held)
            if signature not in seen:
                seen.add(signature)
                result.append(member)
        result.sort(key=lambda m: (-self.lag[m], -m))
        return result

    def _place(self, depth: int, member: int) -> bool:
        lag, t, _ = self.holdings.items[depth]
        ceil_taken = self.held[member][t] == self.floor[t]
        if ceil_taken:
            self.ceil_used[t] += 1
        else:
            self.below_floor[member] -= 1
        self.held[member][t] += 1
        self.placed[t] += 1
        self.lag[member] += lag
        self.count[member] += 1
        return ceil_taken

    def _take_back(self, depth: int, member: int) -> None:
        lag, t, _ = self.holdings.items[depth]
        self.held[member][t] -= 1
        if self.held[member][t] == self.floor[t]:
            self.ceil_used[t] -= 1
        else:
            self.below_floor[member] += 1
        self.placed[t] -= 1
        self.lag[member] -= lag
        self.count[member] -= 1

    def _cut(self, ceil_taken: bool) -> bool:
        # Taking a ceil slot is the only step that narrows which final counts stay reachable.
        return (ceil_taken and not self._counts_reachable()) or self._bound_cannot_beat()

    def _bound_cannot_beat(self) -> bool:
        """Whether no completion can beat the best so far.

        Every member ends between the lightest and the heaviest lag its remaining room allows,
        and the totals sum to ``self.total``: sharing lag evenly within those ranges gives the
        highest minimum and the lowest maximum any completion could reach.
        """
        self.budget -= self.bound_cost
        lightest, heaviest = self._final_lag_ranges()
        low = min(min(heaviest), _highest_floor(lightest, self.total))
        high = max(max(lightest), _lowest_ceiling(heaviest, self.total))
        return not is_more_even(high, low, self.best_high, self.best_low)

    def _final_lag_ranges(self) -> tuple[list[int], list[int]]:
        """Per member, the least and the most total lag it can end with.

        The least adds the lightest unplaced partitions of each topic it holds fewer than the
        floor of; the most adds the heaviest ones it still has room for (ceil slot included
        while the topic has one free).
        """
        lightest, heaviest = list(self.lag), list(self.lag)
        floors, placed, prefixes = self.floor, self.placed, self.prefix
        free = [used < slots for used, slots in zip(self.ceil_used, self.slots, strict=True)]
        for member, topics in enumerate(self.holdings.member_topics):
            held = self.held[member]
            least = most = 0
            for t in topics:
                prefix, missing = prefixes[t], floors[t] - held[t]
                if missing > 0:
                    least += prefix[-1] - prefix[-1 - missing]
                room = missing + 1 if missing >= 0 and free[t] else missing
                if room > 0:
                    most += prefix[placed[t] + room] - prefix[placed[t]]
            lightest[member] += least
            heaviest[member] += most
        return lightest, heaviest

    def _counts_reachable(self) -> bool:
        """Can the final counts still be the target multiset? Interval-to-point matching."""
        floors = self.floor
        free = [used < slots for used, slots in zip(self.ceil_used, self.slots, strict=True)]
        intervals = []
        for m, topics in enumerate(self.holdings.member_topics):
            held = self.held[m]
            lowest = self.count[m] + self.below_floor[m]
            open_ceils = sum(1 for t in topics if free[t] and held[t] <= floors[t])
            intervals.append((lowest, lowest + open_ceils))
        self.budget -= self.bound_cost
        intervals.sort()
        ends: list[int] = []
        next_interval = 0
        for value in self.target:
            while next_interval < len(intervals) and intervals[next_interval][0] <= value:
                heapq.heappush(ends, intervals[next_interval][1])
                next_interval += 1
            if not ends or heapq.heappop(ends) < value:
                return False
        return True

    def _leaf(self, chosen: list[int]) -> None:
        high, low = _span(self.lag)
        if sorted(self.count) == self.target and is_more_even(
            high, low, self.best_high, self.best_low
        ):
            self.best_owner = list(chosen)
            self.best_high, self.best_low = high, low


def most_even(holdings: Holdings, budget: int = SEARCH_BUDGET) -> SearchOutcome:
    """The most even assignment found within ``budget`` (``holdings`` itself if none beats it)."""
    if len(holdings.members) < 2 or not holdings.items:
        return SearchOutcome(list(holdings.owner), True)
    if budget <= 0:
        return SearchOutcome(list(holdings.owner), False)
    return _Search(holdings, budget).run()


def _highest_floor(lags: list[int], total: int) -> int:
    """Highest level every member could be raised to by sharing ``total`` (lags never drop).

    The heaviest members keep their lag; the others share the rest evenly: the answer is that
    share for the largest set of light members whose own lags do not exceed it.
    """
    ordered = sorted(lags)
    rest = total
    for k in range(len(ordered), 0, -1):
        if ordered[k - 1] * k <= rest:
            return rest // k
        rest -= ordered[k - 1]
    return 0


def _lowest_ceiling(reachable: list[int], total: int) -> int:
    """Lowest level no member need exceed when sharing ``total`` under caps ``reachable``."""
    ordered = sorted(reachable)
    rest = total
    for j, cap in enumerate(ordered):
        sharing = len(ordered) - j
        if cap * sharing >= rest:
            return -(-rest // sharing)
        rest -= cap
    return total  # not reached: the caps of a reachable state always hold the total


def _subscription_kinds(member_topics: list[list[int]]) -> list[int]:
    kinds: dict[tuple[int, ...], int] = {}
    return [kinds.setdefault(tuple(sorted(ts)), len(kinds)) for ts in member_topics]


def _counts(holdings: Holdings) -> list[int]:
    counts = [0] * len(holdings.members)
    for owner in holdings.owner:
        counts[owner] += 1
    return counts


def _totals(holdings: Holdings) -> list[int]:
    totals = [0] * len(holdings.members)
    for (lag, _, _), owner in zip(holdings.items, holdings.owner, strict=True):
        totals[owner] += lag
    return totals


def _span(totals: list[int]) -> tuple[int, int]:
    return max(totals), min(totals)
