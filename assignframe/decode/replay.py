"""``--replay STRATEGY``: what another installed strategy would have assigned for a generation.

The captured subscriptions become a :class:`~assignframe.model.GroupSubscription` (partition counts
from the capture's Metadata/CreateTopics), and the core's plugin manager runs the strategy exactly
as the runner would: ``decode_user_data`` for each member, then ``assign`` (checked).
"""

from __future__ import annotations

from typing import Any

from ..errors import AssignframeError
from ..model import Cluster, GroupSubscription, Member, TopicPartition
from ..plugins import PluginManager, get_plugin_manager
from .timeline import Snapshot

__all__ = ["group_subscription", "replay_snapshot"]


def _generation(subscription: dict[str, Any]) -> int:
    generation = subscription.get("generation_id")
    return -1 if generation is None else int(generation)


def group_subscription(snapshot: Snapshot, decode_user_data: Any = None) -> GroupSubscription:
    """The leader's input for this generation, rebuilt from the decoded subscriptions."""
    members = {}
    for member_id, member in snapshot.members.items():
        subscription = member.subscription or {}
        user_data = subscription.get("user_data")
        user_data_bytes = None if user_data is None else bytes.fromhex(user_data)
        version = subscription.get("version") or 0
        decoded = (
            decode_user_data(member_id, user_data_bytes, version) if decode_user_data else None
        )
        members[member_id] = Member(
            member_id=member_id,
            topics=tuple(subscription.get("topics") or ()),
            owned_partitions=tuple(
                TopicPartition(t, p) for t, p in subscription.get("owned_partitions") or ()
            ),
            generation=_generation(subscription),
            group_instance_id=member.group_instance_id,
            rack=subscription.get("rack_id"),
            user_data=user_data_bytes,
            decoded_user_data=decoded,
            subscription_version=version,
        )
    cluster = Cluster(snapshot.partitions_per_topic)
    return GroupSubscription(members, cluster, generation=snapshot.generation)


def replay_snapshot(
    snapshot: Snapshot, strategy_name: str, manager: PluginManager | None = None
) -> dict[str, Any]:
    """{"strategy", "assignments": {member: [[topic, partition]]}, "same_as_captured"} or "error".

    :param manager: the plugin manager to take the strategy from (default: the installed plugins)
    """
    result: dict[str, Any] = {"strategy": strategy_name}
    if not snapshot.members:
        return {**result, "error": "no members"}
    try:
        manager = manager or get_plugin_manager()
        strategy = manager.strategy(strategy_name)
        group = group_subscription(
            snapshot, lambda m, data, version: manager.decode_user_data(strategy, m, data, version)
        )
        assignment = manager.assign(strategy, group)
    except AssignframeError as exc:
        return {**result, "error": f"{type(exc).__name__}: {exc}"}
    replayed = {
        member_id: [[tp.topic, tp.partition] for tp in assignment.partitions_of(member_id)]
        for member_id in snapshot.members
    }
    captured = {
        member_id: sorted(map(tuple, (member.effective_assignment or {}).get("partitions") or ()))
        for member_id, member in snapshot.members.items()
    }
    same = all(sorted(map(tuple, replayed[m])) == captured[m] for m in snapshot.members)
    return {**result, "assignments": replayed, "same_as_captured": same}
