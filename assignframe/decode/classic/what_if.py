"""``--replay STRATEGY``: what another installed strategy would have assigned for a generation.

The generation's typed snapshot (:mod:`.snapshots`) gives the leader's input; the core's plugin
manager runs the strategy as a leader would: each member's user data through the strategy's
:class:`~assignframe.classic.protocol.UserDataReader`, then ``assign`` (checked).

The captured user data is the elected strategy's. Replaying that same strategy, it is read as
the leader read it (a member's own options, e.g. ``redundant``'s ``replicas``, included); a
member whose bytes do not read counts as having sent none, as in the runner, and is listed.
When the capture does not show the elected strategy, the bytes are read as the replayed one's.
Replaying another strategy, what the members would have sent *it* was never captured: every
member counts as having sent none for it, with one warning per member that sent user data (and,
for a strategy whose members advertise options in user data, one saying those are unknown:
:mod:`assignframe.rebalance.preferences`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...classic.protocol import UserDataReader
from ...errors import AssignframeError
from ...model import GroupSubscription, Member
from ...plugins.manager import PluginManager, get_plugin_manager
from ...rebalance.preferences import member_preferences
from ...strategy import Strategy
from .embedded import Payload
from .snapshots import group_snapshot
from .timeline import Snapshot

__all__ = ["replay_snapshot"]


def _leader_view(
    snapshot: Snapshot, strategy: Strategy, manager: PluginManager
) -> tuple[GroupSubscription, list[str]]:
    typed = snapshot.typed or group_snapshot(snapshot)
    read = UserDataReader(manager, strategy, f"group {snapshot.group_id!r}")
    members: dict[str, Member] = {}
    warnings: list[str] = []
    foreign = typed.protocol is not None and typed.protocol != strategy.name
    if foreign:
        warnings += [
            f"member {member_id!r}: its user data is {typed.protocol}'s, not "
            f"{strategy.name}'s (what it would send {strategy.name!r} is not in the capture); "
            "replayed as a member that sent none"
            for member_id, member in typed.members.items()
            if member.user_data
        ]
        warnings += member_preferences(manager, strategy, typed.members, typed.protocol).notes
    for member_id, member in typed.members.items():
        user_data = None if foreign else member.user_data
        kept, decoded = read(member_id, user_data, member.subscription_version)
        if kept is None and user_data is not None:
            warnings.append(
                f"member {member_id!r}: user data {strategy.name!r} cannot read; replayed as "
                "a member that sent none"
            )
        members[member_id] = dataclasses.replace(
            member, user_data=kept, decoded_user_data=decoded
        )
    group = typed.subscription()
    return dataclasses.replace(group, members=members, generation=snapshot.generation), warnings


def replay_snapshot(
    snapshot: Snapshot, strategy_name: str, manager: PluginManager | None = None
) -> dict[str, Any]:
    """{"strategy", "assignments": {member: [[topic, partition]]}, "same_as_captured",
    "warnings"} or {"strategy", "error"}.

    :param manager: the plugin manager to take the strategy from (default: the installed plugins)
    """
    result: dict[str, Any] = {"strategy": strategy_name}
    if not snapshot.members:
        return {**result, "error": "no members"}
    try:
        manager = manager or get_plugin_manager()
        strategy = manager.strategy(strategy_name)
        group, warnings = _leader_view(snapshot, strategy, manager)
        assignment = manager.assign(strategy, group)
    except AssignframeError as exc:
        return {**result, "error": f"{type(exc).__name__}: {exc}"}
    replayed = {
        member_id: [[tp.topic, tp.partition] for tp in assignment.partitions_of(member_id)]
        for member_id in snapshot.members
    }
    captured = {
        member_id: sorted(map(tuple, _partitions(member.effective_assignment)))
        for member_id, member in snapshot.members.items()
    }
    same = all(sorted(map(tuple, replayed[m])) == captured[m] for m in snapshot.members)
    return {**result, "assignments": replayed, "same_as_captured": same, "warnings": warnings}


def _partitions(payload: Payload | None) -> list[list[Any]]:
    """The partitions an assignment shows ([] when none was captured or it does not decode)."""
    return (payload.view.get("partitions") or []) if payload is not None else []
