"""A snapshot from captured bytes, decoded as the group's leader reads them (through the classic
wire mapping, :mod:`assignframe.classic.wire`, the one reader of ConsumerProtocol bytes)."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..classic import wire
from ..errors import CodecError, MalformedSnapshot
from ..model import (
    MAX_PARTITION_COUNT,
    Cluster,
    GroupAssignment,
    Member,
    MemberAssignment,
    TopicPartition,
    count_error,
    group_size_error,
    trusted,
)
from .group_snapshot import GroupSnapshot, MemberInfo, MemberWire
from .schema import merge_notes

__all__ = ["CapturedMember", "snapshot_from_wire"]


@dataclass(frozen=True)
class CapturedMember:
    """One member as read from the wire: its ids, the bytes it sent and was sent, who it is (and
    ``wire.subscription`` and ``wire.assignment`` decoded, when the caller has them: decode
    decodes each once)."""

    member_id: str
    group_instance_id: str | None = None
    wire: MemberWire = MemberWire()
    info: MemberInfo | None = None
    subscription: Any = field(default=None, repr=False, compare=False)
    assignment: Any = field(default=None, repr=False, compare=False)


def snapshot_from_wire(
    group_id: str,
    generation: int,
    protocol: str | None,
    members: Sequence[CapturedMember],
    partitions_per_topic: Mapping[str, int],
    *,
    leader: str | None = None,
    notes: tuple[str, ...] = (),
    lenient: bool = False,
    **group: Any,
) -> GroupSnapshot:
    """A snapshot from captured bytes, decoded as a leader reads them.

    :param lenient: a member whose bytes are missing or undecodable counts as subscribing to
        nothing and owning nothing, with a note (decode shows every generation it saw); when
        False such a member raises :class:`MalformedSnapshot`
    :param group: further :class:`GroupSnapshot` fields (``group_state``, ``observed_at`` ...)
    """
    decoded: dict[str, Member] = {}
    current: dict[str, MemberAssignment] = {}
    found: list[str] = []
    for captured in members:
        where = f"group {group_id!r}: member {captured.member_id!r}"
        try:
            member = _member_from_bytes(where, captured)
            assignment = _assignment_from_bytes(where, captured.wire.assignment,
                                                captured.assignment)
        except MalformedSnapshot as exc:
            if not lenient:
                raise
            found.append(f"{exc}; counted as subscribing to nothing")
            member, assignment = Member(captured.member_id, ()), MemberAssignment(())
        decoded[captured.member_id], current[captured.member_id] = member, assignment
    cluster, cluster_notes = _cluster(partitions_per_topic, decoded, current)
    return GroupSnapshot(
        group_id,
        generation,
        protocol,
        decoded,
        GroupAssignment(current),
        cluster,
        notes=tuple(merge_notes(list(notes), found + cluster_notes)),
        leader=leader,
        wire={m.member_id: m.wire for m in members},
        member_info={m.member_id: m.info for m in members if m.info is not None},
        **group,
    )


def _member_from_bytes(where: str, captured: CapturedMember) -> Member:
    if captured.wire.subscription is None:
        raise MalformedSnapshot(f"{where}: no subscription seen")
    return _member_from_subscription(
        where,
        captured.member_id,
        captured.group_instance_id,
        captured.wire.subscription,
        captured.subscription,
    )


def _member_from_subscription(
    where: str, member_id: str, instance_id: str | None, data: bytes, decoded: Any = None
) -> Member:
    """The member the subscription bytes ``data`` say (``decoded``: when the caller has them)."""
    try:
        decoded = decoded or wire.decode_subscription(data)
    except CodecError as exc:
        raise MalformedSnapshot(f"{where} subscription: {exc}") from None
    return wire.member_from_subscription(member_id, decoded, instance_id, None)


def _assignment_from_bytes(where: str, data: bytes | None, decoded: Any = None
                           ) -> MemberAssignment:
    if not data:  # none seen, or an empty assignment (Java writes nothing for some members)
        return MemberAssignment(())
    if decoded is not None:  # the caller decoded ``data`` already
        return wire.member_assignment(decoded)
    try:
        return wire.decode_member_assignment(data)
    except CodecError as exc:
        raise MalformedSnapshot(f"{where} assignment: {exc}") from None


def _cluster(
    counts: Any, members: Mapping[str, Member], current: Mapping[str, MemberAssignment]
) -> tuple[Cluster, list[str]]:
    """Partition counts; a count the input does not give is inferred from what members hold."""
    if not isinstance(counts, Mapping):
        raise MalformedSnapshot("topic_partitions is not a mapping")
    known = {}
    for topic, n in counts.items():
        if n is None:  # not captured
            continue
        if type(n) is not int or not 0 <= n <= MAX_PARTITION_COUNT:  # (a call only then)
            problem = count_error(n)
            if problem:
                raise MalformedSnapshot(f"topic_partitions[{topic!r}]: {problem}")
        known[topic] = n
    notes: list[str] = []
    partitions = known
    if not known.keys() >= set(map(_topic, _held_or_claimed(members, current))):  # (rare)
        seen: dict[str, int] = {}
        for tp in _held_or_claimed(members, current):
            seen[tp.topic] = max(seen.get(tp.topic, 0), tp.partition + 1)
        inferred = sorted(t for t in seen if t not in known)
        notes = [f"partition count of {t} not captured; inferred {seen[t]}" for t in inferred]
        partitions = {**{t: seen[t] for t in inferred}, **known}
    too_large = group_size_error(partitions)
    if too_large:
        raise MalformedSnapshot(f"topic_partitions: {too_large}")
    # a fresh dict of valid counts, as Cluster() would copy it
    return trusted(Cluster, partitions_per_topic=partitions, partition_racks=None), notes


_topic = operator.itemgetter(0)


def _held_or_claimed(
    members: Mapping[str, Member], current: Mapping[str, MemberAssignment]
) -> Iterator[TopicPartition]:
    return itertools.chain(
        itertools.chain.from_iterable(member.owned_partitions for member in members.values()),
        itertools.chain.from_iterable(assignment.partitions for assignment in current.values()),
    )
