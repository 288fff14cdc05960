"""The snapshot's JSON-lines form: :func:`snapshot_to_dict` writes the keys of
:data:`~.schema.SNAPSHOT_FIELDS`, and :func:`read_snapshot` alone reads them back (a JSON line or a
Parquet row); decode's own keys beside them are ignored. Bytes a member sent are written as hex and
read back through :mod:`.from_wire`, so nothing is re-encoded differently."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from operator import countOf
from typing import Any

from ..errors import MalformedSnapshot
from ..model import GroupAssignment, Member, MemberAssignment, partition_pairs, trusted
from .from_wire import _assignment_from_bytes, _cluster, _member_from_subscription
from .group_snapshot import GroupSnapshot, MemberInfo, MemberWire
from .schema import (
    COMPATIBLE_SCHEMAS,
    MEMBER_TYPES,
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
    partition_list,
    text_or_none,
)
from .share import ShareSnapshot
from .streams import StreamsSnapshot

__all__ = ["AnySnapshot", "read_snapshot", "snapshot_to_dict"]

#: A snapshot of a group of any type (:data:`~.schema.GROUP_TYPES`).
AnySnapshot = GroupSnapshot | ShareSnapshot | StreamsSnapshot


def snapshot_to_dict(snapshot: AnySnapshot) -> dict[str, Any]:
    """The snapshot as a JSON-ready dict: for classic and consumer groups the keys of
    :data:`SNAPSHOT_FIELDS`, in that order; share and Streams groups their ``as_dict``."""
    if not isinstance(snapshot, GroupSnapshot):
        return snapshot.as_dict()
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
            "owned_partitions": partition_pairs(member.owned_partitions),
            "generation_id": member.generation,
            "rack_id": member.rack,
            "user_data": None if member.user_data is None else member.user_data.hex(),
        },
        "assignment": {"hex": hex_or_none(sent.assignment), "partitions": partition_pairs(current)},
        "target": None if target is None else {"partitions": partition_pairs(target.partitions)},
    }


def read_snapshot(raw: Mapping[str, Any] | str) -> AnySnapshot:
    """Parse one serialized snapshot (a JSON line, a parsed mapping or a Parquet row) of a
    group of any type (its ``group_type``: absent means classic).

    Subscriptions and assignments are decoded from their bytes (``hex``) through the codec, as a
    leader would read them; the decoded fields beside the hex are used only when it is absent.

    :raises MalformedSnapshot: invalid JSON, missing fields, undecodable bytes (says which)
    """
    row = as_row(raw)
    if row.get("schema") not in COMPATIBLE_SCHEMAS:
        raise MalformedSnapshot(f"unknown snapshot schema {row.get('schema')!r}")
    group_type = group_type_of(row.get("group_type"))
    if group_type == "share":
        return ShareSnapshot.from_dict(row)
    if group_type == "streams":
        return StreamsSnapshot.from_dict(row)
    group_id = row.get("group_id")
    if not isinstance(group_id, str) or not group_id:
        raise MalformedSnapshot("missing group_id")
    members_raw = column(row, "members") or []
    if not isinstance(members_raw, list) or not members_raw:
        raise MalformedSnapshot(f"group {group_id!r}: no members")
    read = _read_members(group_id, members_raw)
    cluster, cluster_notes = _cluster(column(row, "topic_partitions") or {}, read.members,
                                      read.current)
    return trusted(  # every field, each checked above; the dicts are this reading's own
        GroupSnapshot,
        group_id=group_id,
        generation=int_or(row.get("generation"), -1),
        protocol=row.get("protocol") or None,
        members=read.members,
        current=trusted(GroupAssignment, assignments=read.current),
        cluster=cluster,
        lags=lags_from_lists(column(row, "partition_lags")),
        notes=tuple(merge_notes(row.get("notes") or [], read.notes + cluster_notes)),
        leader=text_or_none(row.get("leader")),
        wire=read.wire,
        group_type=group_type,
        group_state=text_or_none(row.get("group_state")),
        member_info=read.info,
        target=trusted(GroupAssignment, assignments=read.target) if read.target else None,
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
    members, current, wires, notes = read.members, read.current, read.wire, read.notes
    for index, raw in enumerate(members_raw):
        # type() first: an isinstance() check against the Mapping ABC costs several times more
        if type(raw) is not dict and not isinstance(raw, Mapping) or \
                not isinstance(member_id := raw.get("member_id"), str):
            raise MalformedSnapshot(f"group {group_id!r}: members[{index}] has no member_id")
        if member_id in members:
            raise MalformedSnapshot(f"group {group_id!r}: member {member_id!r} listed twice")
        where = f"group {group_id!r}: member {member_id!r}"
        members[member_id], subscription_bytes = _member(where, member_id, raw)
        current[member_id], assignment_bytes, note = _assignment(where, member_id, raw)
        wires[member_id] = trusted(
            MemberWire, subscription=subscription_bytes, assignment=assignment_bytes
        )
        info = _member_info(raw)
        if info is not None:
            read.info[member_id] = info
        target = raw.get("target")
        if target is not None and (type(target) is dict or isinstance(target, Mapping)):
            read.target[member_id] = trusted(
                MemberAssignment,
                partitions=partition_list(where, target.get("partitions") or []),
                user_data=None,
            )
        if note:
            notes.append(note)
    return read


def _member_info(raw: Mapping[str, Any]) -> MemberInfo | None:
    """Who the member is; None when nothing is known (equal to ``MemberInfo()``)."""
    get = raw.get
    # text_or_none() written out: a call per field costs more than its check
    client_id = value if isinstance(value := get("client_id"), str) and value else None
    client_host = value if isinstance(value := get("client_host"), str) and value else None
    client_software = value if isinstance(value := get("client_software"), str) and value else None
    protocols = get("protocols")
    if type(protocols) is not list:
        protocols = ()
    elif countOf(map(type, protocols), str) == len(protocols):  # the usual: only names
        protocols = tuple(protocols)
    else:
        protocols = tuple(p for p in protocols if isinstance(p, str))
    member_type = get("member_type")
    if member_type not in MEMBER_TYPES:
        member_type = None
    member_epoch = int_or(get("member_epoch"), None)
    if client_id is client_host is client_software is member_type is member_epoch is None \
            and not protocols:
        return None
    return trusted(  # each field checked above, protocols a tuple
        MemberInfo, client_id=client_id, client_host=client_host,
        client_software=client_software, protocols=protocols, member_type=member_type,
        member_epoch=member_epoch,
    )


def _member(where: str, member_id: str, raw: Mapping[str, Any]) -> tuple[Member, bytes | None]:
    subscription = raw.get("subscription")
    if type(subscription) is not dict and not isinstance(subscription, Mapping):
        raise MalformedSnapshot(f"{where} has no subscription")
    instance_id = raw.get("group_instance_id")
    data = bytes_from_hex(where, "subscription", subscription.get("hex"))
    if data is None:
        return _member_from_fields(where, member_id, subscription, instance_id), None
    fields = _MEMBERS_BY_SUBSCRIPTION.get(data)
    if fields is None:
        member = _member_from_subscription(where, member_id, instance_id, data)
        if len(_MEMBERS_BY_SUBSCRIPTION) >= _MAX_CACHED_SUBSCRIPTIONS:
            _MEMBERS_BY_SUBSCRIPTION.clear()
        _MEMBERS_BY_SUBSCRIPTION[data] = vars(member)  # frozen: its fields never change
        return member, data
    ids = {"member_id": member_id, "group_instance_id": instance_id}
    return trusted(Member, **fields | ids), data  # the cached member's fields, its own ids


#: Subscription bytes -> the fields of the member they decode to (its ids aside). Members of a
#: group, and groups of a fleet, often send identical bytes (671 distinct subscriptions among
#: the 6,093 members of 500 generated groups); copying the fields is cheaper than the cached
#: decoding and the wire mapping's call chain. Bounded (emptied when full), as the codec's own.
_MEMBERS_BY_SUBSCRIPTION: dict[bytes, dict[str, Any]] = {}
_MAX_CACHED_SUBSCRIPTIONS = 2048


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
    if type(assignment) is not dict and not isinstance(assignment, Mapping):
        return MemberAssignment(()), None, f"no assignment seen for member {member_id}"
    data = bytes_from_hex(where, "assignment", assignment.get("hex"))
    if data:
        return _assignment_from_bytes(where, data), data, None
    partitions = partition_list(where, assignment.get("partitions") or [])
    return trusted(MemberAssignment, partitions=partitions, user_data=None), data, None
