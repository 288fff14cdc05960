"""The object aiokafka holds in ``partition_assignment_strategy``: one strategy of one consumer.

aiokafka calls it the way it calls its own assignors (``name``, ``metadata``, ``assign``,
``on_assignment``); the adapter's coordinator (:mod:`.coordinator`) adds what aiokafka does not
pass: every member's subscription bytes on the leader, and the generation of each assignment.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..classic import wire
from ..model import Cluster, MemberState
from ..rebalance.bridge import ConsumerBridge, JoinedMember, partition_counts

__all__ = ["AiokafkaAssignor"]


class AiokafkaAssignor:
    """An aiokafka assignor running one assignframe strategy for one consumer.

    Build it with :func:`assignframe.aiokafka.assignors`; it keeps that consumer's state, never
    share one instance between consumers.
    """

    def __init__(self, bridge: ConsumerBridge) -> None:
        self.bridge = bridge
        # Set by the coordinator around a leader's assignment and before each assignment arrives.
        self._joined: list[JoinedMember] | None = None
        self._generation = -1

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.bridge!r})"

    @property
    def name(self) -> str:
        return self.bridge.name

    @property
    def state(self) -> MemberState:
        """What this consumer remembers from its last assignment."""
        return self.bridge.state

    # -- what the coordinator adds ----------------------------------------------------------

    def lead(self, members: Iterable[Any]) -> None:
        """The JoinGroup response's members, as aiokafka received them: ``(member_id, bytes)``,
        or ``(member_id, group_instance_id, bytes)`` from JoinGroup v5 on. The next
        :meth:`assign` reads them instead of aiokafka's v0-only decoding."""
        self._joined = [
            JoinedMember(member[0], member[1] if len(member) == 3 else None, bytes(member[-1]))
            for member in members
        ]

    def done_leading(self) -> None:
        self._joined = None

    def expect_generation(self, generation: int) -> None:
        """The generation of the assignment aiokafka hands to :meth:`on_assignment` next."""
        self._generation = generation

    # -- aiokafka's assignor interface ---------------------------------------------------------

    def metadata(self, topics: Iterable[str]) -> bytes:
        return self.bridge.subscription(topics)

    def assign(self, cluster: Any, members: Mapping[str, Any]) -> dict[str, bytes]:
        joined = self._joined
        if joined is None:  # aiokafka's own coordinator: it kept only the v0 fields
            joined = [
                JoinedMember(
                    member_id, None, wire.encode_v0_subscription(view.subscription, view.user_data)
                )
                for member_id, view in members.items()
            ]
        topics = {t for view in members.values() for t in view.subscription}
        return self.bridge.assign(joined, Cluster(partition_counts(cluster, topics)))

    def on_assignment(self, assignment: Any) -> None:
        raw = assignment if isinstance(assignment, bytes) else assignment.encode()
        self.bridge.on_assignment(raw, self._generation)
