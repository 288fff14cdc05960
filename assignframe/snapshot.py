"""One group at one generation: the snapshot every tool shares.

``decode`` builds it from captured traffic, the fleet generator from the runner, the audit
replays it, the report draws it. Its JSON-lines form (schema ``assignframe.snapshot/1``, documented
in docs/decode.md) is :func:`snapshot_to_dict`, read back by :func:`read_snapshot` alone; decode
adds its own keys beside it (rounds, events, changes), which the reader ignores.

A snapshot keeps the bytes it was read from (``wire``): the JSON form writes them as hex, so
nothing a member sent is lost or re-encoded differently, and the decoded fields beside them for
people. Where no bytes were seen the hex is null and the reader takes the decoded fields: nothing
is made up.

:func:`snapshot_metrics` is the one place a snapshot's validity and metrics come from: the core's
:func:`~assignframe.metrics.round_metrics` with the cooperative rule (a partition a member still
claims in its subscription and is not given is *withheld*, not unowned: the follow-up round
assigns it; eager members claim nothing, so the rule changes nothing for them).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .classic import wire
from .errors import CodecError, MalformedSnapshot
from .metrics import RoundMetrics, round_metrics
from .model import (
    Cluster,
    GroupAssignment,
    GroupSubscription,
    Member,
    MemberAssignment,
    TopicPartition,
)

__all__ = [
    "GROUP_TYPES",
    "GroupSnapshot",
    "MalformedSnapshot",
    "MemberWire",
    "SNAPSHOT_SCHEMA",
    "WireMember",
    "read_snapshot",
    "snapshot_from_wire",
    "snapshot_metrics",
    "snapshot_to_dict",
]

#: The ``schema`` value of a serialized snapshot.
SNAPSHOT_SCHEMA = "assignframe.snapshot/1"
#: Older name of the same layout, written by earlier releases' ``decode --json``.
_COMPATIBLE_SCHEMAS = (SNAPSHOT_SCHEMA, "assignframe.decode.snapshot/1", None)

#: Columns whose Parquet value may be a JSON string instead of a nested value.
_JSON_COLUMNS = ("members", "topic_partitions", "partition_lags")
_MAP_COLUMNS = ("topic_partitions", "partition_lags")


@dataclass(frozen=True)
class MemberWire:
    """The bytes one member's subscription and assignment were read from (None: not seen)."""

    subscription: bytes | None = None
    assignment: bytes | None = None


@dataclass(frozen=True)
class GroupSnapshot:
    """A group at one generation: who subscribed to what, and who owns what now.

    :param group_id: the group
    :param generation: the generation the assignment belongs to (-1 when unknown)
    :param protocol: the group protocol (strategy name) the group elected, or None
    :param members: member_id -> the subscription as the leader read it
    :param current: member_id -> what the member owns after this generation
    :param cluster: partition counts (captured, or inferred from what members hold: see notes)
    :param lags: per-partition lag when known
    :param notes: what was inferred or missing, one sentence each
    :param leader: the leader's member id, when known
    :param wire: member_id -> the bytes the member's subscription/assignment were read from
    :param group_type: ``"classic"`` (JoinGroup/SyncGroup: ``protocol`` is the client strategy the
        group elected, ``generation`` the generation) or ``"consumer"`` (KIP-848: ``protocol`` is
        the server assignor, ``generation`` the group epoch, each member's ``owned_partitions``
        what it reported owning)
    """

    group_id: str
    generation: int
    protocol: str | None
    members: Mapping[str, Member]
    current: GroupAssignment
    cluster: Cluster
    lags: Mapping[TopicPartition, int] | None = None
    notes: tuple[str, ...] = ()
    leader: str | None = None
    wire: Mapping[str, MemberWire] = field(default_factory=dict, repr=False, compare=False)
    group_type: str = "classic"

    def subscription(self) -> GroupSubscription:
        """The leader's view of this generation (the input a strategy would get)."""
        return GroupSubscription(self.members, self.cluster, max(self.generation, 1), {}, self.lags)

    def topics(self) -> tuple[str, ...]:
        """Every subscribed topic, sorted."""
        return tuple(sorted({t for m in self.members.values() for t in m.topics}))

    def partitions(self) -> tuple[TopicPartition, ...]:
        """Every partition of the subscribed topics the cluster has, in topic order."""
        return tuple(tp for t in self.topics() for tp in self.cluster.partitions(t))


def snapshot_metrics(
    snapshot: GroupSnapshot, previous: GroupAssignment | None = None
) -> RoundMetrics:
    """Validity and metrics of the snapshot's assignment (kept/moved against ``previous``)."""
    return round_metrics(snapshot.subscription(), snapshot.current, previous, cooperative=True)


@dataclass(frozen=True)
class WireMember:
    """One member as captured: ids and the bytes it sent and was sent (None: not seen)."""

    member_id: str
    group_instance_id: str | None
    subscription: bytes | None
    assignment: bytes | None


def snapshot_from_wire(
    group_id: str,
    generation: int,
    protocol: str | None,
    members: list[WireMember],
    partitions_per_topic: Mapping[str, int],
    *,
    leader: str | None = None,
    notes: tuple[str, ...] = (),
    lenient: bool = False,
) -> GroupSnapshot:
    """A snapshot from captured bytes, decoded as a leader reads them.

    :param lenient: a member whose bytes are missing or undecodable counts as subscribing to
        nothing and owning nothing, with a note (decode shows every generation it saw); when
        False such a member raises :class:`MalformedSnapshot`
    """
    decoded: dict[str, Member] = {}
    current: dict[str, MemberAssignment] = {}
    sent: dict[str, MemberWire] = {}
    found: list[str] = []
    for captured in members:
        where = f"group {group_id!r}: member {captured.member_id!r}"
        try:
            member = _member_from_bytes(where, captured)
            assignment = _assignment_from_bytes(where, captured.assignment)
        except MalformedSnapshot as exc:
            if not lenient:
                raise
            found.append(f"{exc}; counted as subscribing to nothing")
            member, assignment = Member(captured.member_id, ()), MemberAssignment(())
        decoded[captured.member_id], current[captured.member_id] = member, assignment
        sent[captured.member_id] = MemberWire(captured.subscription, captured.assignment)
    cluster, cluster_notes = _cluster(partitions_per_topic, decoded, current)
    return GroupSnapshot(
        group_id,
        generation,
        protocol,
        decoded,
        GroupAssignment(current),
        cluster,
        notes=tuple(_merge_notes(list(notes), found + cluster_notes)),
        leader=leader,
        wire=sent,
    )


def _member_from_bytes(where: str, captured: WireMember) -> Member:
    if captured.subscription is None:
        raise MalformedSnapshot(f"{where}: no subscription seen")
    try:
        decoded = wire.decode_subscription(captured.subscription)
    except CodecError as exc:
        raise MalformedSnapshot(f"{where} subscription: {exc}") from None
    return wire.member_from_subscription(
        captured.member_id, decoded, captured.group_instance_id, None
    )


def _assignment_from_bytes(where: str, data: bytes | None) -> MemberAssignment:
    if not data:  # none seen, or an empty assignment (Java writes nothing for some members)
        return MemberAssignment(())
    try:
        return wire.decode_member_assignment(data)
    except CodecError as exc:
        raise MalformedSnapshot(f"{where} assignment: {exc}") from None


# -- JSON lines ------------------------------------------------------------------------------


def snapshot_to_dict(snapshot: GroupSnapshot) -> dict[str, Any]:
    """The snapshot as a JSON-ready dict (the JSON-lines form; docs/decode.md lists every key)."""
    result: dict[str, Any] = {
        "schema": SNAPSHOT_SCHEMA,
        "group_type": snapshot.group_type,
        "group_id": snapshot.group_id,
        "generation": snapshot.generation,
        "protocol": snapshot.protocol,
        "leader": snapshot.leader,
        "topic_partitions": {
            t: snapshot.cluster.partitions_per_topic.get(t) for t in snapshot.topics()
        },
        "members": [_member_dict(snapshot, m) for m in snapshot.members.values()],
        "notes": list(snapshot.notes),
    }
    if snapshot.lags is not None:
        result["partition_lags"] = _lags_dict(snapshot.lags)
    return result


def _member_dict(snapshot: GroupSnapshot, member: Member) -> dict[str, Any]:
    sent = snapshot.wire.get(member.member_id, MemberWire())
    current = snapshot.current.assignments.get(member.member_id, MemberAssignment(()))
    return {
        "member_id": member.member_id,
        "group_instance_id": member.group_instance_id,
        "subscription": {
            "hex": _hex(sent.subscription),
            "version": member.subscription_version,
            "topics": list(member.topics),
            "owned_partitions": _pairs(member.owned_partitions),
            "generation_id": member.generation,
            "rack_id": member.rack,
            "user_data": None if member.user_data is None else member.user_data.hex(),
        },
        "assignment": {"hex": _hex(sent.assignment), "partitions": _pairs(current.partitions)},
    }


def _hex(data: bytes | None) -> str | None:
    return None if data is None else data.hex()


def _pairs(partitions: tuple[TopicPartition, ...]) -> list[list[Any]]:
    return [[tp.topic, tp.partition] for tp in partitions]


def _lags_dict(lags: Mapping[TopicPartition, int]) -> dict[str, list[int]]:
    per_topic: dict[str, dict[int, int]] = {}
    for tp, lag in lags.items():
        per_topic.setdefault(tp.topic, {})[tp.partition] = lag
    return {t: [by.get(p, 0) for p in range(max(by) + 1)] for t, by in per_topic.items()}


def read_snapshot(raw: Mapping[str, Any] | str) -> GroupSnapshot:
    """Parse one serialized snapshot (a JSON line, a parsed mapping or a Parquet row).

    Subscriptions and assignments are decoded from their bytes (``hex``) through the codec, as a
    leader would read them; the decoded fields beside the hex are used only when it is absent.

    :raises MalformedSnapshot: invalid JSON, missing fields, undecodable bytes (says which)
    """
    row = _as_mapping(raw)
    if row.get("schema") not in _COMPATIBLE_SCHEMAS:
        raise MalformedSnapshot(f"unknown snapshot schema {row.get('schema')!r}")
    group_id = row.get("group_id")
    if not isinstance(group_id, str) or not group_id:
        raise MalformedSnapshot("missing group_id")
    members_raw = _column(row, "members") or []
    if not isinstance(members_raw, list) or not members_raw:
        raise MalformedSnapshot(f"group {group_id!r}: no members")
    members, current, sent, notes = _read_members(group_id, members_raw)
    cluster, cluster_notes = _cluster(_column(row, "topic_partitions") or {}, members, current)
    given_notes = row.get("notes") or []
    return GroupSnapshot(
        group_id=group_id,
        generation=_int(row.get("generation"), -1),
        protocol=row.get("protocol") or None,
        members=members,
        current=GroupAssignment(current),
        cluster=cluster,
        lags=_lags(_column(row, "partition_lags")),
        notes=tuple(_merge_notes(given_notes, notes + cluster_notes)),
        leader=row.get("leader") if isinstance(row.get("leader"), str) else None,
        wire=sent,
        group_type=_group_type(row.get("group_type")),
    )


#: The kinds of group a snapshot can hold (see :class:`GroupSnapshot`).
GROUP_TYPES = ("classic", "consumer")


def _group_type(value: Any) -> str:
    if value is None:
        return "classic"  # files written before the consumer protocol was read
    if value not in GROUP_TYPES:
        raise MalformedSnapshot(f"group_type {value!r} is not one of {', '.join(GROUP_TYPES)}")
    return str(value)


def _merge_notes(given: Any, found: list[str]) -> list[str]:
    notes = [n for n in given if isinstance(n, str)] if isinstance(given, list) else []
    return notes + [n for n in found if n not in notes]


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
) -> tuple[dict[str, Member], dict[str, MemberAssignment], dict[str, MemberWire], list[str]]:
    members: dict[str, Member] = {}
    current: dict[str, MemberAssignment] = {}
    sent: dict[str, MemberWire] = {}
    notes: list[str] = []
    for index, raw in enumerate(members_raw):
        if not isinstance(raw, Mapping) or not isinstance(raw.get("member_id"), str):
            raise MalformedSnapshot(f"group {group_id!r}: members[{index}] has no member_id")
        member_id = raw["member_id"]
        if member_id in members:
            raise MalformedSnapshot(f"group {group_id!r}: member {member_id!r} listed twice")
        where = f"group {group_id!r}: member {member_id!r}"
        members[member_id], subscription_bytes = _member(where, member_id, raw)
        current[member_id], assignment_bytes, note = _assignment(where, member_id, raw)
        sent[member_id] = MemberWire(subscription_bytes, assignment_bytes)
        if note:
            notes.append(note)
    return members, current, sent, notes


def _member(where: str, member_id: str, raw: Mapping[str, Any]) -> tuple[Member, bytes | None]:
    subscription = raw.get("subscription")
    if not isinstance(subscription, Mapping):
        raise MalformedSnapshot(f"{where} has no subscription")
    instance_id = raw.get("group_instance_id")
    data = _bytes(where, "subscription", subscription.get("hex"))
    if data is not None:
        return _member_from_bytes(where, WireMember(member_id, instance_id, data, None)), data
    return _member_from_fields(where, member_id, subscription, instance_id), None


def _member_from_fields(
    where: str, member_id: str, subscription: Mapping[str, Any], instance_id: str | None
) -> Member:
    topics = subscription.get("topics")
    if not isinstance(topics, list):
        raise MalformedSnapshot(f"{where} subscription has no topics")
    return Member(
        member_id=member_id,
        topics=tuple(topics),
        owned_partitions=_partition_list(where, subscription.get("owned_partitions") or []),
        generation=_int(subscription.get("generation_id"), -1),
        group_instance_id=instance_id,
        rack=subscription.get("rack_id"),
    )


def _assignment(
    where: str, member_id: str, raw: Mapping[str, Any]
) -> tuple[MemberAssignment, bytes | None, str | None]:
    """What the member owns now: the assignment, else (older files) what it received."""
    assignment = raw.get("assignment") or raw.get("received_assignment")
    if not isinstance(assignment, Mapping):
        return MemberAssignment(()), None, f"no assignment seen for member {member_id}"
    data = _bytes(where, "assignment", assignment.get("hex"))
    if data:
        return _assignment_from_bytes(where, data), data, None
    partitions = _partition_list(where, assignment.get("partitions") or [])
    return MemberAssignment(partitions), data, None


def _bytes(where: str, what: str, value: Any) -> bytes | None:
    if value is None:
        return None
    try:
        return bytes.fromhex(value)
    except (TypeError, ValueError):
        raise MalformedSnapshot(f"{where} {what} hex is not hex") from None


def _partition_list(where: str, pairs: Any) -> tuple[TopicPartition, ...]:
    try:
        return tuple(TopicPartition(str(t), int(p)) for t, p in pairs)
    except (TypeError, ValueError):
        raise MalformedSnapshot(f"{where}: bad partition list") from None


def _cluster(
    counts: Any, members: Mapping[str, Member], current: Mapping[str, MemberAssignment]
) -> tuple[Cluster, list[str]]:
    """Partition counts; a count the input does not give is inferred from what members hold."""
    if not isinstance(counts, Mapping):
        raise MalformedSnapshot("topic_partitions is not a mapping")
    seen: dict[str, int] = {}
    for tp in _held_or_claimed(members, current):
        seen[tp.topic] = max(seen.get(tp.topic, 0), tp.partition + 1)
    known = {t: n for t, n in counts.items() if isinstance(n, int) and not isinstance(n, bool)}
    inferred = sorted(t for t in seen if t not in known)
    notes = [f"partition count of {t} not captured; inferred {seen[t]}" for t in inferred]
    return Cluster({**{t: seen[t] for t in inferred}, **known}), notes


def _held_or_claimed(members: Mapping[str, Member], current: Mapping[str, MemberAssignment]):
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
