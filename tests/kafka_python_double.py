"""An in-memory double of kafka-python 3's client side, to drive the adapter without a broker.

What is faked is only what kafka-python and the broker do around an assignor, the way
kafka-python 3's ``ConsumerCoordinator`` does it: each member calls ``metadata(topics)`` on its
assignors when it joins; the leader gets kafka-python's own ``JoinGroupResponseMember`` objects
whose metadata kafka-python's own ``ConsumerProtocolSubscription`` decoded, and a cluster view
answering ``partitions_for_topic``; each member gets its bytes decoded by kafka-python's
``ConsumerProtocolAssignment`` in ``on_assignment(assignment, generation)``. The client keeps its
owned partitions as kafka-python's ``SubscriptionState`` does: EAGER members give them all up
before joining, COOPERATIVE members the dropped topics' only; a COOPERATIVE member that lost
partitions rejoins, and the whole group rebalances again.

The broker's part is narrowed as the e2e tests narrow Tansu's: every member of a group offers
the same strategy list, so the group runs its first name (the vote is tested on its own).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kafka.coordinator.assignors.abstract import RebalanceProtocol as ClientProtocol
from kafka.protocol.consumer.group import JoinGroupResponse
from kafka.protocol.consumer.metadata import (
    ConsumerProtocolAssignment,
    ConsumerProtocolSubscription,
)
from kafka.structs import TopicPartition as ClientPartition

from assignframe.kafka_python import AssignframeAssignor, assignors
from assignframe.plugins import PluginManager


class ClusterView:
    """The one method of kafka-python's ``ClusterMetadata`` the adapter reads."""

    def __init__(self, partitions_per_topic: Mapping[str, int]) -> None:
        self.partitions_per_topic = dict(partitions_per_topic)

    def partitions_for_topic(self, topic: str) -> set[int] | None:
        count = self.partitions_per_topic.get(topic)
        return set(range(count)) if count else None


@dataclass
class ClientMember:
    """One kafka-python consumer: its assignors and what its SubscriptionState owns."""

    member_id: str
    topics: tuple[str, ...]
    assignors: list[AssignframeAssignor]
    owned: set[ClientPartition] = field(default_factory=set)

    @property
    def protocol(self) -> ClientProtocol:
        """kafka-python 3's rule: the highest protocol all its assignors support."""
        common = set.intersection(*(set(a.supported_protocols()) for a in self.assignors))
        return max(common)


@dataclass(frozen=True)
class ClientRound:
    """What one round put on the wire, and which members must rejoin."""

    generation: int
    subscriptions: dict[str, bytes]
    assignment_bytes: dict[str, bytes]
    revoked: dict[str, tuple[ClientPartition, ...]]


class ClientGroup:
    """A group of in-memory kafka-python consumers sharing one plugin manager."""

    def __init__(self, plugins: PluginManager, partitions_per_topic: Mapping[str, int]) -> None:
        self.plugins = plugins
        self.cluster = ClusterView(partitions_per_topic)
        self.members: dict[str, ClientMember] = {}
        self.generation = 0

    def rebalance(
        self, topics_by_member: Mapping[str, Sequence[str]], strategies: Sequence[str]
    ) -> list[ClientRound]:
        """One rebalance with these members (others leave; new ids are new consumers) and the
        follow-ups cooperative revocations cause, at most 10."""
        self.members = {
            m: self.members.get(m) or ClientMember(m, tuple(t), self._assignors(strategies))
            for m, t in topics_by_member.items()
        }
        for member_id, topics in topics_by_member.items():
            self.members[member_id].topics = tuple(topics)
        rounds = [self._round()]
        while rounds[-1].revoked and len(rounds) <= 10:
            rounds.append(self._round())
        return rounds

    def _assignors(self, strategies: Sequence[str]) -> list[AssignframeAssignor]:
        return assignors(*strategies, plugins=self.plugins)

    def _round(self) -> ClientRound:
        self.generation += 1
        subscriptions = {m: self._join(member) for m, member in self.members.items()}
        leader = next(iter(self.members.values()))
        joined = [
            JoinGroupResponse.JoinGroupResponseMember(
                member_id=m,
                group_instance_id=None,
                metadata=ConsumerProtocolSubscription.decode(data),
            )
            for m, data in subscriptions.items()
        ]
        assignment_bytes = leader.assignors[0].assign(self.cluster, joined)
        revoked = {}
        for member_id, member in self.members.items():
            lost = self._sync(member, assignment_bytes[member_id])
            if lost:
                revoked[member_id] = lost
        return ClientRound(self.generation, subscriptions, assignment_bytes, revoked)

    @staticmethod
    def _join(member: ClientMember) -> bytes:
        if member.protocol is ClientProtocol.EAGER:
            member.owned = set()
        else:
            member.owned = {tp for tp in member.owned if tp.topic in member.topics}
        return member.assignors[0].metadata(set(member.topics))

    def _sync(self, member: ClientMember, data: bytes) -> tuple[ClientPartition, ...]:
        assignment = ConsumerProtocolAssignment.decode(data)
        received = set(assignment.partitions())
        lost = member.owned - received if member.protocol is ClientProtocol.COOPERATIVE else set()
        member.owned = received
        member.assignors[0].on_assignment(assignment, self.generation)
        return tuple(sorted(lost))
