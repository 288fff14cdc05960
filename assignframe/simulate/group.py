"""The group as the timeline changes it: who is in, what they offer, the topics and their lags.

Each scenario member maps to a *member id* the runner keeps state under. A restarted dynamic
member comes back as a new consumer (Kafka hands it a new member id and it owns nothing), so its
member id gets an incarnation suffix (``C0~1``); reports show the scenario name.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..model import Cluster, Member, TopicPartition
from ..rebalance.runner import Consumer
from .events import Event
from .scenario import Scenario

__all__ = ["MemberConfig", "SimulatedGroup", "StepChange"]


@dataclass(frozen=True)
class MemberConfig:
    """One scenario member's configuration and incarnation."""

    name: str
    topics: tuple[str, ...]
    strategies: tuple[str, ...] | None
    rack: str | None
    static_id: str | None
    incarnation: int = 0
    protocol: str = "classic"
    assignor: str | None = None

    @property
    def member_id(self) -> str:
        return self.name if self.incarnation == 0 else f"{self.name}~{self.incarnation}"


@dataclass
class StepChange:
    """What applying one step's events did: does it rebalance, and what to note."""

    rebalance: bool = False
    notes: list[str] | None = None

    def note(self, text: str) -> None:
        self.notes = (self.notes or []) + [text]


class SimulatedGroup:
    """Members and topics of the simulated group (mutable; one per simulation run)."""

    def __init__(self, scenario: Scenario) -> None:
        self.members: dict[str, MemberConfig] = {}
        self.partitions = {t.name: t.partitions for t in scenario.topics}
        self.racks = {t.name: t.racks for t in scenario.topics if t.racks is not None}
        self.lags = {t.name: t.lags for t in scenario.topics if t.lags is not None}

    # -- what the runner needs -------------------------------------------------------------

    def consumers(self, default_strategies: tuple[str, ...]) -> list[Consumer]:
        """The members joining the next round, in join order."""
        return [
            Consumer(m.member_id, m.topics, m.strategies or default_strategies, m.rack, m.static_id)
            for m in self.members.values()
        ]

    def cluster(self) -> Cluster:
        racks = {t: r for t, r in self.racks.items() if t in self.partitions and r is not None}
        return Cluster(dict(self.partitions), racks or None)

    def lag_map(self) -> dict[TopicPartition, int] | None:
        if not self.lags:
            return None
        return {
            TopicPartition(t, p): lag for t, lags in self.lags.items() for p, lag in enumerate(lags)
        }

    def name_of(self, member_id: str) -> str:
        return member_id.split("~", 1)[0]

    # -- events ----------------------------------------------------------------------------

    def apply(self, event: Event, change: StepChange) -> None:
        """Apply one event, recording whether it triggers a rebalance and any note."""
        getattr(self, f"_{event.kind}")(event, change)

    def _join(self, e: Event, change: StepChange) -> None:
        self.members[e.member or ""] = MemberConfig(
            e.member or "",
            e.topics or (),
            e.strategies,
            e.rack,
            e.static_id,
            protocol=e.protocol or "classic",
            assignor=e.assignor,
        )
        change.rebalance = True

    def _leave(self, e: Event, change: StepChange) -> None:
        member = self.members.pop(e.member or "")
        change.rebalance = True
        if member.static_id:
            change.note(
                f"{member.name} is static: it sends no LeaveGroup, so the group "
                "rebalances only after session.timeout.ms"
            )

    def _crash(self, e: Event, change: StepChange) -> None:
        self.members.pop(e.member or "")
        change.rebalance = True
        change.note(
            f"{e.member} crashed: removed after session.timeout.ms, partitions "
            "unconsumed until then"
        )

    def _subscribe(self, e: Event, change: StepChange) -> None:
        member = self.members[e.member or ""]
        self.members[member.name] = replace(member, topics=e.topics or ())
        change.rebalance = True

    def _restart(self, e: Event, change: StepChange) -> None:
        member = self.members[e.member or ""]
        updated = replace(
            member,
            topics=e.topics if e.topics is not None else member.topics,
            strategies=e.strategies if e.strategies is not None else member.strategies,
            rack=e.rack if e.rack is not None else member.rack,
        )
        if member.static_id and updated == member:
            change.note(f"{member.name} is static and rejoined unchanged: no rebalance (KIP-345)")
            return
        self.members[member.name] = replace(updated, incarnation=member.incarnation + 1)
        change.rebalance = True

    def _upgrade(self, e: Event, change: StepChange) -> None:
        self._switch(e, change)

    def _downgrade(self, e: Event, change: StepChange) -> None:
        self._switch(e, change)

    def _switch(self, e: Event, change: StepChange) -> None:
        """A restart on the other protocol: a dynamic member comes back with a new member id
        (owning nothing); a static one keeps its id and, through conversion, its partitions."""
        member = self.members[e.member or ""]
        incarnation = member.incarnation + (0 if member.static_id else 1)
        assignor = e.assignor if e.assignor is not None else member.assignor
        self.members[member.name] = replace(
            member, protocol=e.protocol or "classic", assignor=assignor, incarnation=incarnation
        )
        change.rebalance = True

    def revert_protocol(self, name: str) -> None:
        """A refused upgrade: the member stays on the classic protocol."""
        self.members[name] = replace(self.members[name], protocol="classic")

    def consumer_protocol_members(self) -> list[MemberConfig]:
        return [m for m in self.members.values() if m.protocol == "consumer"]

    def subscriptions(self) -> dict[str, Member]:
        """What the coordinator knows of each member (no user data in the consumer protocol)."""
        return {
            m.member_id: Member(m.member_id, m.topics, group_instance_id=m.static_id, rack=m.rack)
            for m in self.members.values()
        }

    def _add_partitions(self, e: Event, change: StepChange) -> None:
        self.partitions[e.topic or ""] = e.partitions or 0
        if e.racks is not None:
            self.racks[e.topic or ""] = e.racks
        old_lags = self.lags.get(e.topic or "")
        if old_lags is not None:  # new partitions start with no lag
            self.lags[e.topic or ""] = old_lags + (0,) * ((e.partitions or 0) - len(old_lags))
        change.rebalance = True

    def _delete_topic(self, e: Event, change: StepChange) -> None:
        for table in (self.partitions, self.racks, self.lags):
            table.pop(e.topic or "", None)
        change.rebalance = True

    def _lag(self, e: Event, change: StepChange) -> None:
        self.lags[e.topic or ""] = e.lags or ()
        change.note(f"lag of {e.topic} changed (lag alone triggers no rebalance)")
