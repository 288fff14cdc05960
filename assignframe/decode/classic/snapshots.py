"""A decoded generation as the core's typed :class:`~assignframe.snapshot.GroupSnapshot`.

Built in process from the bytes the capture carried (no JSON, no hex), so ``decode``, the audit
and the report read one object and compute one set of metrics from it.
"""

from __future__ import annotations

from ...snapshot import CapturedMember, GroupSnapshot, MemberInfo, MemberWire, snapshot_from_wire
from .timeline import MemberRound, Snapshot

__all__ = ["group_snapshot", "member_info"]


def group_snapshot(snapshot: Snapshot) -> GroupSnapshot:
    """The typed snapshot of one captured generation (members that sent nothing readable
    count as subscribing to nothing, with a note)."""
    members = []
    for member_id, member in snapshot.members.items():
        subscription, assignment = member.subscription, member.effective_assignment
        members.append(CapturedMember(
            member_id,
            member.group_instance_id,
            MemberWire(None if subscription is None else subscription.raw,
                       None if assignment is None else assignment.raw),
            member_info(member),
            None if subscription is None else subscription.decoded,
            None if assignment is None else assignment.decoded,
        ))
    return snapshot_from_wire(
        snapshot.group_id,
        snapshot.generation,
        snapshot.protocol,
        members,
        snapshot.partitions_per_topic,
        leader=snapshot.leader,
        notes=tuple(snapshot.notes),
        lenient=True,
        observed_at=snapshot.synced_at or snapshot.first_seen,
    )


def member_info(member: MemberRound) -> MemberInfo:
    """Who a classic member is, as its connection showed it."""
    return MemberInfo(
        client_id=member.client_id,
        client_host=member.connection,
        client_software=member.client_software,
        protocols=tuple(member.protocols),
    )
