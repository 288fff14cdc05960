"""The consumer protocol (KIP-848) in a simulation run, and the migration between protocols.

The broker's rules live in :mod:`assignframe.rebalance.consumer_group`; this module keeps one run's
consumer-group state (group epoch, targets) and turns a step into the simulator's record:

* the first consumer-protocol member converts a classic group online: every member keeps what it
  owns, the group epoch continues the generation; refused (the member stays classic) when an
  Assignment carries user data (KAFKA-18134);
* while the group is a consumer group, classic members are bridged: they get the server
  assignor's result like everyone and never lead;
* when the last consumer-protocol member is gone the group converts back (downgrade) and the
  classic runner takes over from what members own.

Options (scenario ``options``): ``server_assignors`` (the broker's ``group.consumer.assignors``,
default ``[uniform, range]``), ``heartbeat_interval_ms`` (default 5000, the broker default of
``group.consumer.heartbeat.interval.ms``), ``assignment_interval_ms`` (KIP-1263's batching
interval: the target is computed that long after the change; default 0).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..metrics import metrics_record
from ..model import Cluster, GroupAssignment, GroupSubscription
from ..plugins.manager import PluginManager
from ..rebalance.consumer_group import (
    DEFAULT_SERVER_ASSIGNORS,
    chained_target,
    choose_server_assignor,
    reconcile,
    upgrade_refusal,
)
from ..rebalance.server_chain import Current
from ..server_assignor import server_name
from .group import GroupState
from .scenario import Scenario

__all__ = ["ConsumerSide", "missing_server_assignors"]

DEFAULT_HEARTBEAT_INTERVAL_MS = 5000


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
        self.heartbeat_ms = int(options.get("heartbeat_interval_ms", DEFAULT_HEARTBEAT_INTERVAL_MS))
        self.batch_ms = int(options.get("assignment_interval_ms", 0))
        if self.heartbeat_ms <= 0 or self.batch_ms < 0:
            raise ValueError(
                "options: heartbeat_interval_ms must be > 0, assignment_interval_ms >= 0"
            )
        self.active = False
        self.epoch = 0
        self.assignor: str | None = None
        self.currents: dict[str, Current] = {}

    def convert(
        self, state: GroupState, owned: GroupAssignment | None, generation: int, notes: list[str]
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
        state: GroupState,
        owned: GroupAssignment | None,
        previous: GroupAssignment | None,
        notes: list[str],
    ) -> tuple[GroupSubscription, GroupAssignment, dict[str, Any]]:
        """Compute the target, reconcile members toward it, and measure the step."""
        group = GroupSubscription(state.subscriptions(), state.cluster(), lags=state.lag_map())
        present = _present(owned, group)
        assignor = choose_server_assignor(
            [m.assignor for m in state.consumer_protocol_members()], self.configured
        )
        if assignor != self.assignor:  # another assignor's currents say nothing of this one
            self.currents, self.assignor = {}, assignor
        target, self.currents = chained_target(group, present, assignor, self.pm, self.currents)
        reconciled = reconcile(present, target, self.heartbeat_ms, self.batch_ms)
        if _pairs(target) != _pairs(present):
            self.epoch += 1
        bridged = sorted(m.name for m in state.members.values() if m.protocol == "classic")
        if bridged:
            notes.append(
                f"bridged classic members (get the {assignor} result, never lead): "
                + ", ".join(bridged)
            )
        metrics = metrics_record(group, target, previous, 1, rounds=reconciled.heartbeats)
        unowned = list(reconciled.unowned_ms.values())
        return (
            group,
            target,
            {
                "rebalanced": True,
                "protocol": f"server:{assignor}",
                "group_type": "consumer",
                "generation": self.epoch,
                "rebalance_protocol": "consumer",
                "settled": True,
                "heartbeats": reconciled.heartbeats,
                "revoked": {
                    state.name_of(m): [[tp.topic, tp.partition] for tp in tps]
                    for m, tps in reconciled.revoked.items()
                },
                "unowned_partitions": len(unowned),
                "max_unowned_ms": max(unowned, default=0),
                "total_unowned_ms": sum(unowned),
                "metrics": metrics,
            },
        )


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


def _pairs(assignment: GroupAssignment) -> dict[str, frozenset[Any]]:
    return {m: frozenset(a.partitions) for m, a in assignment.assignments.items()}
