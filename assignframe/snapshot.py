"""One group at one generation: the snapshot every tool shares.

``decode`` builds it from captured traffic, the fleet generator from the runner, the audit
replays it, the report draws it. Its JSON-lines form (schema ``assignframe.snapshot/1``, documented
in docs/decode.md) is :func:`snapshot_to_dict`, read back by :func:`read_snapshot` alone; decode
adds its own keys beside it (rounds, events, changes), which the reader ignores.

Beside the assignment, a snapshot holds what an operator asks of a group: its state as the
coordinator reports it, who each member is (:class:`MemberInfo`: client id and host, the client
software, the strategies it offered, its epoch and, in a mixed consumer-protocol group, whether it
is a classic or a consumer member), a consumer-protocol group's *target* assignment beside what
members own now (the difference is reconciliation in progress), the server assignor the
coordinator runs, and when it was observed. ``decode`` and the live cluster reader fill what they
see; every field they do not know is None.

:data:`SNAPSHOT_FIELDS` is the one description of the serialized form: the JSON keys, their types,
and the Parquet schema derived from them (:mod:`assignframe.audit.parquet_input`).

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

from collections.abc import Mapping, Sequence
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
from .snapshot_schema import (
    COMPATIBLE_SCHEMAS,
    MEMBER_FIELDS,
    MEMBER_TYPES,
    SNAPSHOT_FIELDS,
    SNAPSHOT_SCHEMA,
    as_row,
    bytes_from_hex,
    column,
    group_type_of,
    hex_or_none,
    int_or,
    lags_from_lists,
    lags_to_lists,
    merge_notes,
    number_or_none,
    pairs,
    partition_list,
    text_or_none,
)

__all__ = [
    "CapturedMember", "GroupSnapshot", "MEMBER_FIELDS", "MEMBER_TYPES",
    "MalformedSnapshot", "MemberInfo", "MemberWire", "SNAPSHOT_FIELDS", "SNAPSHOT_SCHEMA",
    "read_snapshot", "snapshot_from_wire", "snapshot_metrics", "snapshot_to_dict",
]  # fmt: skip

@dataclass(frozen=True)
class MemberWire:
    """The bytes one member's subscription and assignment were read from (None: not seen)."""

    subscription: bytes | None = None
    assignment: bytes | None = None


@dataclass(frozen=True)
class MemberInfo:
    """Who a member is, beyond what it subscribes to (None or empty: not known).

    Its rack and static instance id are the subscription's (:class:`~assignframe.model.Member`).

    :param client_id: the client id the member connects with
    :param client_host: where it connects from (``host`` or ``host:port``)
    :param client_software: the client library and version it announced (ApiVersions v3+)
    :param protocols: classic: the strategies it offered in JoinGroup, most preferred first
    :param member_type: ``"classic"`` or ``"consumer"``: in a consumer-protocol group, whether the
        member still speaks JoinGroup/SyncGroup (a mixed group) or ConsumerGroupHeartbeat
    :param member_epoch: consumer protocol: the member's epoch (behind the group epoch while it
        reconciles)
    """

    client_id: str | None = None
    client_host: str | None = None
    client_software: str | None = None
    protocols: tuple[str, ...] = ()
    member_type: str | None = None
    member_epoch: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "protocols", tuple(self.protocols))


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
        the server assignor members asked for, ``generation`` the group epoch, each member's
        ``owned_partitions`` what it reported owning)
    :param group_state: the state the coordinator reported (``Stable``, ``PreparingRebalance``,
        ``CompletingRebalance``, ``Empty``, ``Dead``; consumer protocol: ``Assigning``,
        ``Reconciling`` ...), None when not known
    :param member_info: member_id -> who the member is (:class:`MemberInfo`)
    :param target: consumer protocol: member_id -> its target assignment, which ``current``
        reaches as members reconcile; None when not known
    :param target_epoch: consumer protocol: the epoch of ``target`` (the assignment epoch)
    :param assignor: consumer protocol: the server assignor the coordinator reported running
        (ConsumerGroupDescribe); None when not reported
    :param observed_at: when the snapshot was observed (Unix seconds), None when not known
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
    group_state: str | None = None
    member_info: Mapping[str, MemberInfo] = field(default_factory=dict)
    target: GroupAssignment | None = None
    target_epoch: int | None = None
    assignor: str | None = None
    observed_at: float | None = None

    def subscription(self) -> GroupSubscription:
        """The leader's view of this generation (the input a strategy would get)."""
        return GroupSubscription(self.members, self.cluster, max(self.generation, 1), {}, self.lags)

    def topics(self) -> tuple[str, ...]:
        """Every subscribed topic, sorted."""
        return tuple(sorted({t for m in self.members.values() for t in m.topics}))

    def partitions(self) -> tuple[TopicPartition, ...]:
        """Every partition of the subscribed topics the cluster has, in topic order."""
        return tuple(tp for t in self.topics() for tp in self.cluster.partitions(t))

    def info(self, member_id: str) -> MemberInfo:
        """What is known of who ``member_id`` is (an empty :class:`MemberInfo` when nothing)."""
        return self.member_info.get(member_id) or _UNKNOWN_MEMBER

    def reconciling(self) -> tuple[str, ...]:
        """Consumer protocol: members whose current assignment is not yet their target."""
        if self.target is None:
            return ()
        return tuple(
            m
            for m, target in self.target.assignments.items()
            if set(target.partitions) != set(self.current.partitions_of(m))
        )


_UNKNOWN_MEMBER = MemberInfo()


def snapshot_metrics(
    snapshot: GroupSnapshot, previous: GroupAssignment | None = None
) -> RoundMetrics:
    """Validity and metrics of the snapshot's assignment (kept/moved against ``previous``)."""
    return round_metrics(snapshot.subscription(), snapshot.current, previous, cooperative=True)


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
    try:
        decoded = captured.subscription or wire.decode_subscription(captured.wire.subscription)
    except CodecError as exc:
        raise MalformedSnapshot(f"{where} subscription: {exc}") from None
    return wire.member_from_subscription(
        captured.member_id, decoded, captured.group_instance_id, None
    )


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


def snapshot_to_dict(snapshot: GroupSnapshot) -> dict[str, Any]:
    """The snapshot as a JSON-ready dict: the keys of :data:`SNAPSHOT_FIELDS`, in that order."""
    result: dict[str, Any] = {
        "schema": SNAPSHOT_SCHEMA,
        "group_type": snapshot.group_type,
        "group_id": snapshot.group_id,
        "generation": snapshot.generation if snapshot.generation >= 0 else None,  # unknown
        "protocol": snapshot.protocol,
        "leader": snapshot.leader,
        "group_state": snapshot.group_state,
        "assignor": snapshot.assignor,
        "target_epoch": snapshot.target_epoch,
        "observed_at": snapshot.observed_at,
        "topic_partitions": {
            t: snapshot.cluster.partitions_per_topic.get(t) for t in snapshot.topics()
        },
        "partition_lags": None if snapshot.lags is None else lags_to_lists(
            snapshot.lags, {t: snapshot.cluster.partitions_per_topic.get(t, 0)
                            for t in snapshot.topics()}),
        "members": [_member_dict(snapshot, m) for m in snapshot.members.values()],
        "notes": list(snapshot.notes),
    }
    return result


def _member_dict(snapshot: GroupSnapshot, member: Member) -> dict[str, Any]:
    sent = snapshot.wire.get(member.member_id, MemberWire())
    current = snapshot.current.partitions_of(member.member_id)
    info = snapshot.info(member.member_id)
    target = None if snapshot.target is None else snapshot.target.assignments.get(member.member_id)
    return {
        "member_id": member.member_id,
        "group_instance_id": member.group_instance_id,
        "client_id": info.client_id,
        "client_host": info.client_host,
        "client_software": info.client_software,
        "protocols": list(info.protocols),
        "member_type": info.member_type,
        "member_epoch": info.member_epoch,
        "subscription": {
            "hex": hex_or_none(sent.subscription),
            "version": member.subscription_version,
            "topics": list(member.topics),
            "owned_partitions": pairs(member.owned_partitions),
            "generation_id": member.generation,
            "rack_id": member.rack,
            "user_data": None if member.user_data is None else member.user_data.hex(),
        },
        "assignment": {"hex": hex_or_none(sent.assignment), "partitions": pairs(current)},
        "target": None if target is None else {"partitions": pairs(target.partitions)},
    }


def read_snapshot(raw: Mapping[str, Any] | str) -> GroupSnapshot:
    """Parse one serialized snapshot (a JSON line, a parsed mapping or a Parquet row).

    Subscriptions and assignments are decoded from their bytes (``hex``) through the codec, as a
    leader would read them; the decoded fields beside the hex are used only when it is absent.

    :raises MalformedSnapshot: invalid JSON, missing fields, undecodable bytes (says which)
    """
    row = as_row(raw)
    if row.get("schema") not in COMPATIBLE_SCHEMAS:
        raise MalformedSnapshot(f"unknown snapshot schema {row.get('schema')!r}")
    group_id = row.get("group_id")
    if not isinstance(group_id, str) or not group_id:
        raise MalformedSnapshot("missing group_id")
    members_raw = column(row, "members") or []
    if not isinstance(members_raw, list) or not members_raw:
        raise MalformedSnapshot(f"group {group_id!r}: no members")
    read = _read_members(group_id, members_raw)
    cluster, cluster_notes = _cluster(column(row, "topic_partitions") or {}, read.members,
                                      read.current)
    return GroupSnapshot(
        group_id=group_id,
        generation=int_or(row.get("generation"), -1),
        protocol=row.get("protocol") or None,
        members=read.members,
        current=GroupAssignment(read.current),
        cluster=cluster,
        lags=lags_from_lists(column(row, "partition_lags")),
        notes=tuple(merge_notes(row.get("notes") or [], read.notes + cluster_notes)),
        leader=text_or_none(row.get("leader")),
        wire=read.wire,
        group_type=group_type_of(row.get("group_type")),
        group_state=text_or_none(row.get("group_state")),
        member_info=read.info,
        target=GroupAssignment(read.target) if read.target else None,
        target_epoch=int_or(row.get("target_epoch"), None),
        assignor=text_or_none(row.get("assignor")),
        observed_at=number_or_none(row.get("observed_at")),
    )


@dataclass
class _ReadMembers:
    members: dict[str, Member] = field(default_factory=dict)
    current: dict[str, MemberAssignment] = field(default_factory=dict)
    wire: dict[str, MemberWire] = field(default_factory=dict)
    info: dict[str, MemberInfo] = field(default_factory=dict)
    target: dict[str, MemberAssignment] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _read_members(group_id: str, members_raw: list[Any]) -> _ReadMembers:
    read = _ReadMembers()
    for index, raw in enumerate(members_raw):
        if not isinstance(raw, Mapping) or not isinstance(raw.get("member_id"), str):
            raise MalformedSnapshot(f"group {group_id!r}: members[{index}] has no member_id")
        member_id = raw["member_id"]
        if member_id in read.members:
            raise MalformedSnapshot(f"group {group_id!r}: member {member_id!r} listed twice")
        where = f"group {group_id!r}: member {member_id!r}"
        read.members[member_id], subscription_bytes = _member(where, member_id, raw)
        read.current[member_id], assignment_bytes, note = _assignment(where, member_id, raw)
        read.wire[member_id] = MemberWire(subscription_bytes, assignment_bytes)
        info = _member_info(raw)
        if info != _UNKNOWN_MEMBER:
            read.info[member_id] = info
        target = raw.get("target")
        if isinstance(target, Mapping):
            read.target[member_id] = MemberAssignment(
                partition_list(where, target.get("partitions") or [])
            )
        if note:
            read.notes.append(note)
    return read


def _member_info(raw: Mapping[str, Any]) -> MemberInfo:
    member_type = raw.get("member_type")
    protocols = raw.get("protocols")
    return MemberInfo(
        client_id=text_or_none(raw.get("client_id")),
        client_host=text_or_none(raw.get("client_host")),
        client_software=text_or_none(raw.get("client_software")),
        protocols=tuple(p for p in protocols if isinstance(p, str))
        if isinstance(protocols, list)
        else (),
        member_type=member_type if member_type in MEMBER_TYPES else None,
        member_epoch=int_or(raw.get("member_epoch"), None),
    )


def _member(where: str, member_id: str, raw: Mapping[str, Any]) -> tuple[Member, bytes | None]:
    subscription = raw.get("subscription")
    if not isinstance(subscription, Mapping):
        raise MalformedSnapshot(f"{where} has no subscription")
    instance_id = raw.get("group_instance_id")
    data = bytes_from_hex(where, "subscription", subscription.get("hex"))
    if data is not None:
        captured = CapturedMember(member_id, instance_id, MemberWire(data))
        return _member_from_bytes(where, captured), data
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
        owned_partitions=partition_list(where, subscription.get("owned_partitions") or []),
        generation=int_or(subscription.get("generation_id"), -1),
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
    data = bytes_from_hex(where, "assignment", assignment.get("hex"))
    if data:
        return _assignment_from_bytes(where, data), data, None
    partitions = partition_list(where, assignment.get("partitions") or [])
    return MemberAssignment(partitions), data, None


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


