"""Small deterministic strategies the core's tests run (no strategy code lives in the core).

``modulo``: EAGER; partition p of topic t goes to the (p mod n)-th of t's n subscribers in
member-id order (roundrobin-like, depends only on sorted ids).
``cooperative-balance``: COOPERATIVE; keeps what members own, releases what a member holds above
its fair share (without giving it to anyone in the same round) and hands unowned partitions to
the least-loaded subscriber, so a joining member gets partitions only in a follow-up round.
``restless``: COOPERATIVE; every round each member releases a partition, so rebalances never
settle.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from assignframe import (
    GroupAssignment,
    GroupSubscription,
    RebalanceProtocol,
    Strategy,
    TopicPartition,
    hookimpl,
)

__all__ = ["STRATEGIES_PLUGIN", "CooperativeBalance", "Modulo", "Restless"]


def subscribed_partitions(group: GroupSubscription) -> list[TopicPartition]:
    return [tp for topic in group.subscribed_topics() for tp in group.cluster.partitions(topic)]


def subscribers(group: GroupSubscription, topic: str) -> list[str]:
    return sorted(m for m, member in group.members.items() if topic in member.topics)


class Modulo(Strategy):
    """Partition p of a topic goes to subscriber p mod n (subscribers in id order)."""

    name = "modulo"

    def assign(self, group: GroupSubscription) -> GroupAssignment:
        result: dict[str, list[TopicPartition]] = {m: [] for m in sorted(group.members)}
        for tp in subscribed_partitions(group):
            takers = subscribers(group, tp.topic)
            result[takers[tp.partition % len(takers)]].append(tp)
        return GroupAssignment.from_partitions(result)


class CooperativeBalance(Strategy):
    """Sticky and cooperative: keep, release the excess, give out only unowned partitions."""

    name = "cooperative-balance"
    protocols = (RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE)

    def assign(self, group: GroupSubscription) -> GroupAssignment:
        valid = set(subscribed_partitions(group))
        owned_by_someone = {tp for m in group.members.values() for tp in m.owned_partitions}
        kept = self._kept(group, valid)
        active = [m for m in sorted(group.members) if group.members[m].topics]
        share = math.ceil(len(valid) / len(active)) if active else 0
        result = {m: kept[m][:share] for m in sorted(group.members)}
        for tp in sorted(valid - owned_by_someone):
            takers = subscribers(group, tp.topic)
            if takers:
                least = min(takers, key=lambda m: (len(result[m]), m))
                result[least].append(tp)
        return GroupAssignment.from_partitions(result)

    @staticmethod
    def _kept(group: GroupSubscription, valid: set[TopicPartition]) -> Mapping[str, list]:
        claimed: set[TopicPartition] = set()
        kept: dict[str, list[TopicPartition]] = {}
        for member_id in sorted(group.members):
            member = group.members[member_id]
            mine = [tp for tp in member.owned_partitions if tp in valid and tp not in claimed]
            claimed.update(mine)
            kept[member_id] = mine
        return kept


class Restless(Strategy):
    """Cooperative but never satisfied: every member releases its lowest owned partition each
    round, and free partitions go to the least-loaded subscriber."""

    name = "restless"
    protocols = (RebalanceProtocol.COOPERATIVE,)

    def assign(self, group: GroupSubscription) -> GroupAssignment:
        owned = {tp for m in group.members.values() for tp in m.owned_partitions}
        result = {
            m: sorted(member.owned_partitions)[1:] for m, member in sorted(group.members.items())
        }
        for tp in subscribed_partitions(group):
            takers = subscribers(group, tp.topic)
            if tp not in owned:
                least = min(takers, key=lambda m: (len(result[m]), m))
                result[least].append(tp)
        return GroupAssignment.from_partitions(result)


class _StrategiesPlugin:
    @hookimpl
    def register_strategies(self, registry):
        for cls in (Modulo, CooperativeBalance, Restless):
            registry.add(cls)


STRATEGIES_PLUGIN = _StrategiesPlugin()
