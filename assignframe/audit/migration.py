"""Consumer-protocol groups in the audit, and the migration section of classic groups.

* A ``group_type="consumer"`` snapshot is replayed through the broker's server assignors (its
  members cannot choose a client strategy): :data:`SERVER_STRATEGIES`.
* A classic group gets a *migration section*: would an online upgrade be refused and why
  (KAFKA-18134: an Assignment carrying user data), which server assignor the broker would
  choose (no member names one before the upgrade, so the broker's first configured), and the
  movement, balance and validity predicted under ``uniform`` and ``range`` against what the
  group's current strategy assigned.

The rules are :mod:`assignframe.rebalance.consumer_group`'s; this module only applies them to a
snapshot.
"""

from __future__ import annotations

from typing import Any

from ..metrics import metrics_record
from ..model import GroupAssignment
from ..plugins.manager import PluginManager
from ..rebalance.consumer_group import (
    DEFAULT_SERVER_ASSIGNORS,
    choose_server_assignor,
    target_assignment,
    upgrade_refusal,
)
from ..server_assignor import server_name
from ..snapshot import GroupSnapshot

__all__ = ["SERVER_STRATEGIES", "migration_section", "server_replay"]

#: What a consumer-protocol group is replayed through (qualified names, as ``plugins`` shows).
SERVER_STRATEGIES = tuple(server_name(n) for n in DEFAULT_SERVER_ASSIGNORS)


def server_replay(
    snapshot: GroupSnapshot, assignor: str, pm: PluginManager
) -> tuple[GroupAssignment, dict[str, Any]]:
    """The server assignor's target for the snapshot's members, measured against what they own
    (one round: the broker computes a target, it has no follow-up rounds)."""
    group = snapshot.subscription()
    target = target_assignment(group, snapshot.current, assignor, pm)
    return target, metrics_record(group, target, snapshot.current, 1, 1)


def migration_section(snapshot: GroupSnapshot, pm: PluginManager) -> dict[str, Any] | None:
    """The classic group's migration prediction (None for a consumer group)."""
    if snapshot.group_type != "classic":
        return None
    refusal = upgrade_refusal(snapshot.current)
    predicted = []
    for assignor in DEFAULT_SERVER_ASSIGNORS:
        try:
            _, metrics = server_replay(snapshot, assignor, pm)
            predicted.append({"assignor": server_name(assignor), "metrics": metrics})
        except Exception as exc:  # one assignor failing on one group is a result, not a crash
            predicted.append({"assignor": server_name(assignor), "error": f"{exc}"})
    return {
        "current_strategy": snapshot.protocol,
        "upgrade_refused": refusal is not None,
        "refusal": refusal,
        "server_assignor": server_name(choose_server_assignor([])),
        "predicted": predicted,
    }
