"""``lag-sticky``: count-balanced, lag-balanced within a tolerance, otherwise sticky."""

from __future__ import annotations

from assignframe import (
    GroupAssignment,
    GroupSubscription,
    MemberState,
    RebalanceProtocol,
    Strategy,
    TopicPartition,
)

from ._balance import LagLedger
from ._common import lag_of, partition_lags
from .ownership import decode_previous, encode_previous, previous_owners

DEFAULT_LAG_TOLERANCE = 0.1


class LagStickyStrategy(Strategy):
    """Keep partitions with their previous owners unless counts or lag say otherwise.

    Rules, in priority order:

    1. per topic, every subscriber holds ``floor(P/M)`` or ``ceil(P/M)`` partitions (as lag-aware);
    2. the heaviest member's total lag is at most ``(1 + lag_tolerance)`` times the mean, as far
       as count-neutral swaps between the heaviest and the lightest member can get it;
    3. otherwise every partition stays with its previous owner (generation rules of KIP-341).

    Options: ``lag_tolerance`` (default 0.1). Supports COOPERATIVE: a partition moving to a new
    owner is withheld for one round while its old owner revokes it.
    """

    name = "lag-sticky"
    option_defaults = {"lag_tolerance": DEFAULT_LAG_TOLERANCE}
    protocols = (RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE)

    def subscription_user_data(self, topics: tuple[str, ...], state: MemberState) -> bytes | None:
        if state.generation < 0 and not state.owned_partitions:
            return None
        return encode_previous(state.owned_partitions, state.generation)

    def decode_user_data(self, user_data: bytes | None, subscription_version: int) -> object:
        return decode_previous(user_data)

    def assign(self, group: GroupSubscription) -> GroupAssignment:
        lags = partition_lags(group, self.name)
        tolerance = float(self.options.get("lag_tolerance", DEFAULT_LAG_TOLERANCE))
        plan = _Plan(group, lags)
        for topic, members in group.subscribers_by_topic().items():
            plan.place_topic(topic, members)
        plan.even_out(tolerance)
        return GroupAssignment.from_partitions(plan.withhold_moving_partitions())


class _Plan(LagLedger):
    """The assignment being built: previous owners first, then the pool, per topic."""

    def __init__(self, group: GroupSubscription, lags: dict[TopicPartition, int]) -> None:
        super().__init__(group, lags)
        self.owners = previous_owners(group)

    def place_topic(self, topic: str, members: list[str]) -> None:
        kept: dict[str, list[TopicPartition]] = {m: [] for m in members}
        pool: list[TopicPartition] = []
        partitions = self.group.cluster.partitions(topic)
        for partition in partitions:
            owner = self.owners.get(partition)
            (kept[owner] if owner in kept else pool).append(partition)
        targets = _count_targets(len(partitions), kept)
        for member in members:
            # Shed the lightest partitions first: they unbalance lag least when they move.
            mine = sorted(kept[member], key=lambda tp: (-lag_of(self.lags, tp), tp.partition))
            pool.extend(mine[targets[member]:])
            for partition in mine[: targets[member]]:
                self.give(member, partition)
        for partition in sorted(pool, key=lambda tp: (-lag_of(self.lags, tp), tp.partition)):
            room = [m for m in members if len(self.held[m][topic]) < targets[m]]
            member = min(room, key=lambda m: (self.total_lag[m], self.count(m), m))
            self.give(member, partition)

    def withhold_moving_partitions(self) -> dict[str, list[TopicPartition]]:
        """Drop partitions another member still owns (cooperative: assigned after revocation)."""
        still_owned = {
            tp: m for m, member in self.group.members.items() for tp in member.owned_partitions
        }
        return {
            member: sorted(tp for tp in partitions if still_owned.get(tp, member) == member)
            for member, partitions in self.partitions().items()
        }


def _count_targets(partition_count: int, kept: dict[str, list[TopicPartition]]) -> dict[str, int]:
    """floor/ceil partition counts per member; the ceil slots go to those already holding most."""
    base, extra = divmod(partition_count, len(kept))
    ranked = sorted(kept, key=lambda m: (-len(kept[m]), m))
    return {member: base + (1 if rank < extra else 0) for rank, member in enumerate(ranked)}
