"""The heterogeneous builder's ``MemberAssignmentBalancer``: two ranges over sorted members.

Subscribers of one topic are sorted by (assigned partitions, member number). The least loaded
range grows rightwards from the start: each member in it takes one partition per lap, and when a
lap ends the range's level rises by one and takes in members at that level. The most loaded range
grows leftwards from the end the same way, giving partitions up; a member with nothing of the
topic left to give is swapped out of it. The topic is balanced when the two levels differ by at
most one. The exact sequence decides who gets which partition, so it is kept step for step.
"""

from __future__ import annotations

import bisect

__all__ = ["MemberBalancer"]


class MemberBalancer:
    """Picks receivers and givers among one topic's subscribers.

    :param sizes: partitions assigned per member number; shared with the builder, read live
    """

    def __init__(self, sizes: list[int]) -> None:
        self.sizes = sizes
        self.members: list[int] = []
        self.least_end = 0
        self.least_level = -1
        self.next_least = 0
        self.most_start = 0
        self.most_end = 0
        self.most_level = 1
        self.next_most = -1

    def initialize(self, members: list[int]) -> int:
        """Start over with ``members``; returns the spread of their partition counts."""
        if not members:
            raise ValueError("cannot balance an empty subscriber list")
        sizes = self.sizes
        # By (size, member number): ``members`` comes in ascending number, the sort is stable.
        self.members = sorted(members, key=sizes.__getitem__)
        count = len(self.members)
        lowest, highest = sizes[self.members[0]], sizes[self.members[-1]]
        self.least_end, self.least_level, self.next_least = 0, lowest - 1, 0
        self.most_start, self.most_end, self.most_level = count, count, highest + 1
        self.next_most = count - 1
        return highest - lowest

    def next_least_loaded(self) -> int:
        """The member to give the next partition to (assumes it gets one)."""
        if self.next_least >= self.least_end:
            self.least_level += 1
            members, sizes = self.members, self.sizes
            while (
                self.least_end < len(members) and sizes[members[self.least_end]] == self.least_level
            ):
                self.least_end += 1
            self.next_least = 0
        member = self.members[self.next_least]
        self.next_least += 1
        return member

    def least_loaded(self, count: int) -> list[int]:
        """The next ``count`` :meth:`next_least_loaded` members at once, for partitions that
        nobody held. The same sequence: the range grows only over members outside it, whose
        sizes the pending partitions do not change; the caller adds them to ``sizes`` after."""
        members, size_of = self.members, self.sizes.__getitem__
        chosen: list[int] = []
        while count > 0:
            if self.next_least >= self.least_end:
                self.least_level += 1
                # Members past the range are still in size order and at least at the new
                # level: the range grows over those exactly at it (a C-level binary search).
                self.least_end = bisect.bisect_right(
                    members, self.least_level, self.least_end, key=size_of
                )
                self.next_least = 0
            take = min(count, self.least_end - self.next_least)
            chosen += members[self.next_least : self.next_least + take]
            self.next_least += take
            count -= take
        return chosen

    def next_most_loaded(self) -> int:
        """The member to take the next partition from, or -1 when none can give any."""
        members, sizes = self.members, self.sizes
        if self.next_most < self.most_start:
            if self.most_end <= self.most_start and self.most_start > 0:
                # Emptied by exclusions: restart from the next member's level so the range grows.
                self.most_level = sizes[members[self.most_start - 1]]
            else:
                self.most_level -= 1
            while self.most_start > 0 and sizes[members[self.most_start - 1]] == self.most_level:
                self.most_start -= 1
            self.next_most = self.most_end - 1
        if self.next_most < 0:
            return -1
        member = members[self.next_most]
        self.next_most -= 1
        return member

    def exclude_most_loaded(self) -> None:
        """Swap the member :meth:`next_most_loaded` returned last out of the most loaded range."""
        members = self.members
        position = self.next_most + 1
        members[position], members[self.most_end - 1] = (
            members[self.most_end - 1],
            members[position],
        )
        self.most_end -= 1

    def is_balanced(self) -> bool:
        return self.most_level - self.least_level <= 1
