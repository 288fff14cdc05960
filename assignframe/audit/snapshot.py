"""One group snapshot, read from a ``assignframe decode --json`` object (or a Parquet row).

The members' subscriptions and assignments are decoded from their bytes (``hex``) through the
codec, as a leader would read them; the decoded fields next to the hex are used only when the hex
is absent. Anything unreadable raises :class:`MalformedSnapshot` with the reason; the audit
counts it with its line number and goes on.

Besides the decode schema (docs/decode.md) a snapshot may carry ``partition_lags``
(``{topic: [lag per partition]}``), which the fleet generator writes and lag-aware replays use.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import wire
from ..errors import CodecError
from ..model import (
    Cluster,
    GroupAssignment,
    GroupSubscription,
    Member,
    MemberAssignment,
    TopicPartition,
)

__all__ = ["GroupSnapshot", "MalformedSnapshot", "read_snapshot"]

#: Columns whose Parquet value may be a JSON string instead of a nested value.
_JSON_COLUMNS = ("members", "topic_partitions", "partition_lags")
_MAP_COLUMNS = ("topic_partitions", "partition_lags")


class MalformedSnapshot(ValueError):
    """A row that is not a readable group snapshot (the message says why)."""


@dataclass(frozen=True)
class GroupSnapshot:
    """A group at one generation: who subscribed to what, and who owns what now."""

    group_id: str
    generation: int
    protocol: str | None
    members: Mapping[str, Member]
    current: GroupAssignment
    cluster: Cluster
    lags: Mapping[TopicPartition, int] | None
    notes: tuple[str, ...] = ()

    def subscription(self) -> GroupSubscription:
        """The leader's view of this generation (for metrics of the current assignment)."""
        return GroupSubscription(self.members, self.cluster, max(self.generation, 1), {}, self.lags)


def read_snapshot(raw: Mapping[str, Any] | str) -> GroupSnapshot:
    """Parse one snapshot (a JSON line or an already-parsed mapping).

    :raises MalformedSnapshot: invalid JSON, missing fields, undecodable bytes
    """
    row = _as_mapping(raw)
    group_id = row.get("group_id")
    if not isinstance(group_id, str) or not group_id:
        raise MalformedSnapshot("missing group_id")
    members_raw = _column(row, "members") or []
    if not isinstance(members_raw, list) or not members_raw:
        raise MalformedSnapshot(f"group {group_id!r}: no members")
    members, current, notes = _read_members(group_id, members_raw)
    cluster, cluster_notes = _cluster(_column(row, "topic_partitions") or {}, members, current)
    return GroupSnapshot(
        group_id=group_id,
        generation=_int(row.get("generation"), -1),
        protocol=row.get("protocol") or None,
        members=members,
        current=GroupAssignment(current),
        cluster=cluster,
        lags=_lags(_column(row, "partition_lags")),
        notes=tuple(notes + cluster_notes),
    )


def _as_mapping(raw: Mapping[str, Any] | str) -> Mapping[str, Any]:
    if isinstance(raw, Mapping):
        return raw
    try:
        row = json.loads(raw)
    except (ValueError, TypeError) as exc:
        raise MalformedSnapshot(f"not JSON: {exc}") from None
    if not isinstance(row, Mapping):
        raise MalformedSnapshot(f"expected a JSON object, got {type(row).__name__}")
    return row


def _column(row: Mapping[str, Any], name: str) -> Any:
    value = row.get(name)
    if name in _MAP_COLUMNS and isinstance(value, list):
        return dict(value)  # pyarrow reads a Parquet map as a list of (key, value) pairs
    if name in _JSON_COLUMNS and isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError as exc:
            raise MalformedSnapshot(f"column {name}: not JSON: {exc}") from None
    return value


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _read_members(
    group_id: str, members_raw: list[Any]
) -> tuple[dict[str, Member], dict[str, MemberAssignment], list[str]]:
    members: dict[str, Member] = {}
    current: dict[str, MemberAssignment] = {}
    notes: list[str] = []
    for index, raw in enumerate(members_raw):
        if not isinstance(raw, Mapping) or not isinstance(raw.get("member_id"), str):
            raise MalformedSnapshot(f"group {group_id!r}: members[{index}] has no member_id")
        member_id = raw["member_id"]
        if member_id in members:
            raise MalformedSnapshot(f"group {group_id!r}: member {member_id!r} listed twice")
        members[member_id] = _member(group_id, member_id, raw)
        current[member_id], note = _assignment(group_id, member_id, raw)
        if note:
            notes.append(note)
    return members, current, notes


def _member(group_id: str, member_id: str, raw: Mapping[str, Any]) -> Member:
    subscription = raw.get("subscription")
    if not isinstance(subscription, Mapping):
        raise MalformedSnapshot(f"group {group_id!r}: member {member_id!r} has no subscription")
    instance_id = raw.get("group_instance_id")
    data = _bytes(group_id, member_id, "subscription", subscription.get("hex"))
    if data is not None:
        try:
            decoded = wire.decode_subscription(data)
        except CodecError as exc:
            raise MalformedSnapshot(
                f"group {group_id!r}: member {member_id!r} subscription: {exc}"
            ) from None
        return wire.member_from_subscription(member_id, decoded, instance_id, None)
    return _member_from_fields(group_id, member_id, subscription, instance_id)


def _member_from_fields(
    group_id: str, member_id: str, subscription: Mapping[str, Any], instance_id: str | None
) -> Member:
    topics = subscription.get("topics")
    if not isinstance(topics, list):
        raise MalformedSnapshot(
            f"group {group_id!r}: member {member_id!r} subscription has no topics"
        )
    return Member(
        member_id=member_id,
        topics=tuple(topics),
        owned_partitions=_pairs(group_id, member_id, subscription.get("owned_partitions") or []),
        generation=_int(subscription.get("generation_id"), -1),
        group_instance_id=instance_id,
        rack=subscription.get("rack_id"),
    )


def _assignment(
    group_id: str, member_id: str, raw: Mapping[str, Any]
) -> tuple[MemberAssignment, str | None]:
    """What the member owns now: the leader-sent assignment, else what it received."""
    assignment = raw.get("assignment") or raw.get("received_assignment")
    if not isinstance(assignment, Mapping):
        return MemberAssignment(()), f"no assignment seen for member {member_id}"
    data = _bytes(group_id, member_id, "assignment", assignment.get("hex"))
    if data:
        try:
            return wire.decode_member_assignment(data), None
        except CodecError as exc:
            raise MalformedSnapshot(
                f"group {group_id!r}: member {member_id!r} assignment: {exc}"
            ) from None
    return MemberAssignment(_pairs(group_id, member_id, assignment.get("partitions") or [])), None


def _bytes(group_id: str, member_id: str, what: str, value: Any) -> bytes | None:
    if value is None:
        return None
    try:
        return bytes.fromhex(value)
    except (TypeError, ValueError):
        raise MalformedSnapshot(
            f"group {group_id!r}: member {member_id!r} {what} hex is not hex"
        ) from None


def _pairs(group_id: str, member_id: str, pairs: Any) -> tuple[TopicPartition, ...]:
    try:
        return tuple(TopicPartition(str(t), int(p)) for t, p in pairs)
    except (TypeError, ValueError):
        raise MalformedSnapshot(
            f"group {group_id!r}: member {member_id!r}: bad partition list"
        ) from None


def _cluster(
    counts: Any, members: Mapping[str, Member], current: Mapping[str, MemberAssignment]
) -> tuple[Cluster, list[str]]:
    """Partition counts; a count the capture did not show is inferred from what members own."""
    if not isinstance(counts, Mapping):
        raise MalformedSnapshot("topic_partitions is not a mapping")
    seen: dict[str, int] = {}
    for tp in _all_partitions(members, current):
        seen[tp.topic] = max(seen.get(tp.topic, 0), tp.partition + 1)
    known = {t: n for t, n in counts.items() if isinstance(n, int) and not isinstance(n, bool)}
    inferred = sorted(t for t in seen if t not in known)
    notes = [f"partition count of {t} not captured; inferred {seen[t]}" for t in inferred]
    return Cluster({**{t: seen[t] for t in inferred}, **known}), notes


def _all_partitions(members: Mapping[str, Member], current: Mapping[str, MemberAssignment]):
    for member in members.values():
        yield from member.owned_partitions
    for assignment in current.values():
        yield from assignment.partitions


def _lags(value: Any) -> dict[TopicPartition, int] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise MalformedSnapshot("partition_lags is not a mapping of topic -> [lag per partition]")
    try:
        return {
            TopicPartition(t, p): int(lag)
            for t, lags in value.items()
            for p, lag in enumerate(lags)
        }
    except (TypeError, ValueError):
        raise MalformedSnapshot("partition_lags holds a non-integer lag") from None
