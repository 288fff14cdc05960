"""The consumer protocol (KIP-848) in a simulation run, and the migration between protocols.

The broker's rules live in :mod:`assignframe.kip848.group`; this module keeps one run's
consumer-group state (group epoch, targets) and turns a step into the simulator's record:

* the first consumer-protocol member converts a classic group online: every member keeps what it
  owns, the group epoch continues the generation; refused (the member stays classic) when an
  Assignment carries user data (KAFKA-18134);
* while the group is a consumer group, classic members are bridged: they get the server
  assignor's result like everyone and never lead;
* when the last consumer-protocol member is gone the group converts back (downgrade) and the
  classic runner takes over from what members own.

Each step computes the target (the group epoch grows at every step: each one changes the
membership, a subscription or the metadata) and plays the members' heartbeats until they reach
it (:func:`assignframe.kip848.group.predict_handover`): every member is reconciled
at every heartbeat exactly as Kafka's coordinator does. The coordinator's members carry over
from step to step; a restarted dynamic member joins as a new one, a static one that comes back
under a new member id takes over its predecessor's state (KIP-345) with a client that owns
nothing yet.

Options (scenario ``options``): ``server_assignors`` (the broker's ``group.consumer.assignors``,
default ``[uniform, range]``), ``heartbeat_interval_ms`` (default 5000, the broker default of
``group.consumer.heartbeat.interval.ms``), ``assignment_interval_ms`` (KIP-1263's batching
interval: the target is computed that long after the change; default 0), and how the clients
behave: ``owned_partitions`` (``when_changed``, the Java consumer, or ``always``) and
``revoke_after_heartbeats`` (0, the Java consumer: revoke and acknowledge at once).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from ..kip848.chain import Current
from ..kip848.convergence import ClientBehaviour, Convergence
from ..kip848.group import (
    DEFAULT_SERVER_ASSIGNORS,
    chained_target,
    choose_server_assignor,
    converted_members,
    predict_handover,
    upgrade_refusal,
)
from ..kip848.reconcile import ConsumerGroupMember, ConsumerMemberState
from ..kip848.timing import DEFAULT_HEARTBEAT_INTERVAL_MS
from ..metrics import metrics_record
from ..model import Cluster, GroupAssignment, GroupSubscription, TopicPartition, partition_pairs
from ..plugins.manager import PluginManager
from ..server_assignor import server_name
from .group import SimulatedGroup
from .scenario import Scenario

__all__ = ["ConsumerSide", "missing_server_assignors"]


def missing_server_assignors(scenario: Scenario, pm: PluginManager) -> list[str]:
    """The server assignors a consumer-protocol scenario names (members' ``assignor``, or the
    broker's configured list) that no installed plugin provides; [] for a classic scenario."""
    joins = [e for step in scenario.steps for e in step.events if e.protocol == "consumer"]
    if not joins:
        return []
    named = {e.assignor for e in joins if e.assignor}
    configured = scenario.options.get("server_assignors") or DEFAULT_SERVER_ASSIGNORS
    needed = named or {configured[0]}
    installed = set(pm.registry.server_names())
    return sorted(server_name(n) for n in needed if server_name(n) not in installed)


class ConsumerSide:
    """One run's consumer-group state; ``active`` while the group is a consumer group."""

    def __init__(self, options: Mapping[str, Any], pm: PluginManager) -> None:
        self.pm = pm
        # checked when the scenario was loaded (scenario._check_consumer_options)
        self.configured = tuple(options.get("server_assignors") or DEFAULT_SERVER_ASSIGNORS)
        self.behaviour = ClientBehaviour(
            int(options.get("heartbeat_interval_ms", DEFAULT_HEARTBEAT_INTERVAL_MS)),
            str(options.get("owned_partitions", "when_changed")),
            int(options.get("revoke_after_heartbeats", 0)),
        )
        self.batch_ms = int(options.get("assignment_interval_ms", 0))
        if self.batch_ms < 0:
            raise ValueError("options: assignment_interval_ms must be >= 0")
        self.active = False
        self.epoch = 0
        self.assignor: str | None = None
        self.currents: dict[str, Current] = {}
        self.members: dict[str, ConsumerGroupMember] = {}  # the coordinator's, by member id
        self.instances: dict[str, str] = {}  # member id -> static instance id

    def convert(
        self,
        state: SimulatedGroup,
        owned: GroupAssignment | None,
        generation: int,
        notes: list[str],
    ) -> bool:
        """Convert the classic group online; False (and the upgrading members stay classic)
        when the coordinator refuses."""
        refusal = upgrade_refusal(owned) if owned is not None else None
        if refusal is not None:
            for member in state.consumer_protocol_members():
                state.revert_protocol(member.name)
            notes.append(refusal)
            return False
        self.active, self.epoch = True, generation
        group = GroupSubscription(state.subscriptions(), state.cluster())
        empty = GroupAssignment({})
        self.members = converted_members(owned or empty, group, generation)
        if owned is not None:
            notes.append(
                f"classic group converted to a consumer group at epoch {generation}: "
                "every member keeps its assignment"
            )
        return True

    def downgrade(self, notes: list[str]) -> None:
        self.active = False
        notes.append(
            "the last consumer-protocol member left: the group converts back to classic "
            "(members keep their assignment until the classic rebalance)"
        )

    def step(
        self,
        state: SimulatedGroup,
        owned: GroupAssignment | None,
        previous: GroupAssignment | None,
        notes: list[str],
    ) -> tuple[GroupSubscription, GroupAssignment, dict[str, Any]]:
        """Compute the target, play the heartbeats until members reach it, measure the step."""
        group = GroupSubscription(state.subscriptions(), state.cluster(), lags=state.lag_map())
        present = _present(owned, group)
        assignor = choose_server_assignor(
            [m.assignor for m in state.consumer_protocol_members()], self.configured
        )
        if assignor != self.assignor:  # another assignor's currents say nothing of this one
            self.currents, self.assignor = {}, assignor
        target, self.currents = chained_target(group, present, assignor, self.pm, self.currents)
        self.epoch += 1
        members, clients, rejoining = self._members(group, owned or GroupAssignment({}))
        handover = predict_handover(
            group, members, clients, target, self.epoch, self.behaviour, self.batch_ms, rejoining
        )
        self.members = dict(handover.members)
        self.instances = {
            m.member_id: m.static_id for m in state.members.values() if m.static_id is not None
        }
        bridged = sorted(m.name for m in state.members.values() if m.protocol == "classic")
        if bridged:
            notes.append(
                f"bridged classic members (get the {assignor} result, never lead): "
                + ", ".join(bridged)
            )
        metrics = metrics_record(group, target, previous, 1, rounds=handover.heartbeats)
        record = {
            "rebalanced": True,
            "protocol": f"server:{assignor}",
            "group_type": "consumer",
            "generation": self.epoch,
            "rebalance_protocol": "consumer",
            "settled": True,
            **handover_record(handover, state.name_of),
            "metrics": metrics,
        }
        return group, target, record

    def _members(
        self, group: GroupSubscription, owned: GroupAssignment
    ) -> tuple[dict[str, ConsumerGroupMember], GroupAssignment, frozenset[str]]:
        """The coordinator's members as the step starts, what their clients consume, and who
        rejoins: a member that stays keeps its state (with its new subscription); a static
        member back under a new member id takes over its predecessor's (KIP-345) and rejoins
        with a client owning nothing; anyone else joins."""
        departed = {
            self.instances[m]: member
            for m, member in self.members.items()
            if m not in group.members and m in self.instances
        }
        members: dict[str, ConsumerGroupMember] = {}
        clients: dict[str, list[TopicPartition]] = {}
        rejoining: set[str] = set()
        for member_id, member in group.members.items():
            topics = frozenset(member.topics)
            if member_id in self.members:
                known = self.members[member_id]
                clients[member_id] = _existing(owned.partitions_of(member_id), group.cluster)
            elif member.group_instance_id in departed:
                known = departed.pop(member.group_instance_id)
                clients[member_id] = []
                rejoining.add(member_id)
            else:
                continue
            members[member_id] = replace(known, subscribed_topic_names=topics)
        return members, GroupAssignment.from_partitions(clients), frozenset(rejoining)


def handover_record(handover: Convergence, name_of: Any) -> dict[str, Any]:
    """The step record's hand-over part (docs/simulate.md): members by their scenario names."""
    unowned = [h.unowned_ms for h in handover.handovers]
    return {
        "heartbeats": handover.heartbeats,
        "revoked": {
            name_of(m): [[tp.topic, tp.partition] for tp in tps]
            for m, tps in handover.revoked.items()
        },
        "unowned_partitions": len(unowned),
        "max_unowned_ms": max(unowned, default=0),
        "total_unowned_ms": sum(unowned),
        "handovers": [
            {
                "partition": [h.partition.topic, h.partition.partition],
                "from": None if h.previous_owner is None else name_of(h.previous_owner),
                "to": name_of(h.new_owner),
                "released_ms": h.released_ms,
                "acquired_ms": h.acquired_ms,
                "unowned_ms": h.unowned_ms,
            }
            for h in handover.handovers
        ],
        "reconciliation": [
            _transition(step.at_ms, name_of(step.member), step.after, step.heartbeat.target)
            for step in handover.steps
            if _visible(step.before) != _visible(step.after)
        ],
    }


def _visible(member: ConsumerGroupMember) -> tuple[Any, ...]:
    """What a reconciliation can change (a rebuild that changes none of it is not shown)."""
    return (member.state, member.member_epoch, member.assigned, member.pending_revocation)


def _transition(
    at_ms: int, name: str, member: ConsumerGroupMember, target: frozenset[TopicPartition]
) -> dict[str, Any]:
    waiting = (
        sorted(target - frozenset(member.assigned))
        if member.state is ConsumerMemberState.UNRELEASED_PARTITIONS
        else []
    )
    return {
        "at_ms": at_ms,
        "member": name,
        "state": member.state.value,
        "epoch": member.member_epoch,
        "assigned": partition_pairs(sorted(member.assigned)),
        "pending_revocation": partition_pairs(sorted(member.pending_revocation)),
        "unreleased": [[tp.topic, tp.partition] for tp in waiting],
    }


def _existing(partitions: Iterable[TopicPartition], cluster: Cluster) -> list[TopicPartition]:
    """Partitions beyond a topic's count do not exist (a re-created, smaller topic); those of a
    deleted topic are kept: the coordinator takes them back like any other."""
    counts = cluster.partitions_per_topic
    return [tp for tp in partitions if tp.topic not in counts or tp.partition < counts[tp.topic]]


def _present(owned: GroupAssignment | None, group: GroupSubscription) -> GroupAssignment:
    """What each current member owns (departed members' partitions are free; a member that
    joined owns nothing; partitions of deleted or shrunk topics drop)."""
    held = owned.assignments if owned is not None else {}
    cluster: Cluster = group.cluster
    return GroupAssignment.from_partitions(
        {
            member_id: [
                tp
                for tp in (held[member_id].partitions if member_id in held else ())
                if tp.partition < cluster.partitions_per_topic.get(tp.topic, 0)
            ]
            for member_id in group.members
        }
    )

