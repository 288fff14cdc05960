"""What a pass read of a group, as the typed :class:`~assignframe.snapshot.GroupSnapshot` every
tool shares (the same type ``decode`` builds from a capture).

Classic groups: the member metadata and assignment bytes DescribeGroups returned are decoded as
a leader reads them (:func:`~assignframe.snapshot.snapshot_from_wire`: the codec, then the
group's strategy's user-data reader). Consumer-protocol groups: ConsumerGroupDescribe's members,
their current and target assignments, epochs, assignor and member types.

A group this cannot read fully is never passed off as healthy: :func:`unreadable` says why
(for example Tansu 0.6.0's DescribeGroups, which answers Stable with member ids but no member
metadata: "broker returned no member metadata for group g1").
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..classic.wire import decode_member_assignment
from ..errors import CodecError
from ..lag import committed_lag
from ..model import Cluster, GroupAssignment, Member, MemberAssignment, TopicPartition
from ..snapshot import CapturedMember, GroupSnapshot, MemberInfo, MemberWire, snapshot_from_wire
from .group_records import group_generation
from .reader import ClusterRead, GroupRead

__all__ = ["NOT_SNAPSHOTTED", "REBALANCING", "group_snapshot", "rebalancing",
           "rebalancing_assignments", "unreadable"]

#: classic group states in which Kafka's DescribeGroups leaves member metadata out
REBALANCING = ("PreparingRebalance", "CompletingRebalance")
#: ConsumerGroupDescribe v1's member type (KIP-1099): 0 classic, 1 consumer
_MEMBER_TYPES = {0: "classic", 1: "consumer"}
#: group types with no GroupSnapshot: judged as views of their own (.share_streams)
NOT_SNAPSHOTTED = ("share", "streams")


def unreadable(group: GroupRead) -> str | None:
    """Why ``group`` cannot be shown as read (None: it can)."""
    if group.problems:
        return f"group {group.group_id}: " + "; ".join(group.problems)
    described = group.described
    if described is None:
        return f"group {group.group_id}: not described"
    if group.group_type == "classic" and described.members and \
            all(not m.member_metadata for m in described.members) and \
            described.group_state not in REBALANCING:
        return f"broker returned no member metadata for group {group.group_id}"
    if group.group_type == "classic" and described.members and \
            described.protocol_type not in ("consumer", ""):
        return (f"group {group.group_id} has protocol type {described.protocol_type!r}: "
                "not a consumer group (Connect, Schema Registry ...)")
    return None


def rebalancing(group: GroupRead) -> bool:
    """A classic group between generations whose members Kafka describes without their
    subscriptions (their current assignments are still described: :func:`rebalancing_assignments`),
    so there is nothing to make a snapshot of yet."""
    return group.group_type == "classic" and group.described is not None and \
        group.described.group_state in REBALANCING and \
        all(not m.member_metadata for m in group.described.members)


def rebalancing_assignments(group: GroupRead) -> dict[str, tuple[TopicPartition, ...]]:
    """What each member of a rebalancing classic group holds: Kafka describes every member's
    current assignment in any state (``describeNoMetadata`` leaves out only the subscription),
    so the partitions are known while the new generation is made. An assignment that does not
    decode counts as nothing held (the group is not snapshotted, so nothing is judged on it)."""
    held: dict[str, tuple[TopicPartition, ...]] = {}
    for m in group.described.members:
        try:
            held[m.member_id] = decode_member_assignment(m.member_assignment).partitions \
                if m.member_assignment else ()
        except CodecError:
            held[m.member_id] = ()
    return held


def group_snapshot(read: ClusterRead, group: GroupRead) -> GroupSnapshot | None:
    """The snapshot of ``group`` (None for a group with no members, one :func:`unreadable`, one
    :func:`rebalancing`, or a share or Streams group: see :mod:`.share_streams`)."""
    if unreadable(group) or not group.described.members or rebalancing(group) or \
            group.group_type in NOT_SNAPSHOTTED:
        return None
    if group.group_type == "consumer":
        snapshot = _consumer(read, group)
    else:
        snapshot = _classic(read, group)
    return snapshot


def _classic(read: ClusterRead, group: GroupRead) -> GroupSnapshot:
    described = group.described
    members = [CapturedMember(
        m.member_id, m.group_instance_id,
        MemberWire(m.member_metadata or None, m.member_assignment or None),
        # DescribeGroups shows the elected protocol's metadata only, not what else was offered
        MemberInfo(client_id=m.client_id or None, client_host=m.client_host or None),
    ) for m in described.members]
    generation = group_generation(group.recorded, described.group_state,
                                  (m.member_id for m in described.members))
    snapshot = snapshot_from_wire(
        group.group_id, -1 if generation is None else generation,
        described.protocol_data or None, members, read.partitions,
        lenient=True, group_state=described.group_state, observed_at=read.observed_at,
        notes=() if generation is not None else (_generation_unknown(group),),
    )
    return _with_lags(read, group, snapshot)


def _generation_unknown(group: GroupRead) -> str:
    """Why a classic group's generation is not known (DescribeGroups does not report it; the
    members' subscriptions carry their previous generation, never the group's)."""
    if group.recorded is None:
        return ("generation unknown: DescribeGroups does not report it and no GroupMetadata "
                "record of the group was read from __consumer_offsets")
    return (f"generation unknown: state {group.described.group_state}; the last stored "
            f"generation, {group.recorded.generation}, is of other members or not yet current")


def _consumer(read: ClusterRead, group: GroupRead) -> GroupSnapshot:
    described = group.described
    members: dict[str, Member] = {}
    current: dict[str, MemberAssignment] = {}
    target: dict[str, MemberAssignment] = {}
    info: dict[str, MemberInfo] = {}
    for m in described.members:
        owned = _partitions(m.assignment)
        members[m.member_id] = Member(m.member_id, tuple(m.subscribed_topic_names),
                                      owned_partitions=owned, generation=m.member_epoch,
                                      group_instance_id=m.instance_id, rack=m.rack_id)
        current[m.member_id] = MemberAssignment(owned)
        target[m.member_id] = MemberAssignment(_partitions(m.target_assignment))
        info[m.member_id] = MemberInfo(
            client_id=m.client_id or None, client_host=m.client_host or None,
            member_type=_MEMBER_TYPES.get(getattr(m, "member_type", -1), "consumer"),
            member_epoch=m.member_epoch)
    topics = {t for m in members.values() for t in m.topics}
    snapshot = GroupSnapshot(
        group.group_id, described.group_epoch, described.assignor_name or None, members,
        GroupAssignment(current), Cluster({t: read.partitions.get(t, 0) for t in topics
                                           if t in read.partitions}),
        group_type="consumer", group_state=described.group_state, member_info=info,
        target=GroupAssignment(target), target_epoch=described.assignment_epoch,
        assignor=described.assignor_name or None, observed_at=read.observed_at)
    return _with_lags(read, group, snapshot)


def _partitions(assignment: Any) -> tuple[TopicPartition, ...]:
    return tuple(TopicPartition(t.topic_name, p) for t in assignment.topic_partitions
                 for p in sorted(t.partitions))


def _with_lags(read: ClusterRead, group: GroupRead, snapshot: GroupSnapshot) -> GroupSnapshot:
    """Lag of every subscribed partition whose lag is known (:func:`assignframe.lag.committed_lag`:
    a partition holding records that nothing was committed for has none here, null in JSON)."""
    lags = {}
    for tp in snapshot.partitions():
        lag = committed_lag(read.end_offsets.get(tp), group.committed.get(tp))
        if lag is not None:
            lags[tp] = lag
    return replace(snapshot, lags=lags or None)
