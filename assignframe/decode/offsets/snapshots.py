"""Groups rebuilt from ``__consumer_offsets`` as the typed snapshots every tool shares.

``decode offsets --json`` writes one line per group that has members: the core snapshot's
serialization (:func:`assignframe.snapshot.snapshot_to_dict`, so ``assignframe audit`` reads it
as it is) plus ``source`` and the group's ``committed_offsets``. Classic groups come from their
last group metadata record (generation, elected protocol, leader, each member's subscription and
assignment bytes, decoded as a leader reads them); consumer-protocol groups from their KIP-848
records (group and assignment epochs, members, current and target assignments, member epochs,
classic members of a mixed group); share and Streams groups from theirs, as the snapshot types
``inspect`` writes for them (:mod:`.share_streams_snapshots`).

The records do not hold everything a live describe shows, and nothing is made up for it: the
group's state (None), a consumer group's server assignor when no member asked for one, and, with
no Metadata at hand (``--file``), topic names behind Kafka 4.1's topic ids and partition counts
(inferred from what members hold, with a note). Groups without members (offsets only, Empty,
deleted) are not snapshots (the audit reads groups with members): :func:`offsets_snapshots`
names them so the CLI says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...model import Cluster, GroupAssignment, Member, MemberAssignment, TopicPartition
from ...snapshot import CapturedMember, GroupSnapshot, MemberInfo, MemberWire, snapshot_from_wire
from ...snapshot import snapshot_to_dict as core_snapshot_dict
from ...snapshot.jsonform import AnySnapshot
from .group_state import ConsumerGroupState, GroupRebuild
from .share_streams_snapshots import recorded_share_snapshot, recorded_streams_snapshot

__all__ = ["RebuiltGroups", "TopicInfo", "offsets_snapshots"]

SOURCE = "__consumer_offsets"
_NO_ASSIGNOR = ("the server assignor is not in the records (no member asked for one: the "
                "broker's default, the first of group.consumer.assignors)")


@dataclass(frozen=True)
class TopicInfo:
    """A topic as the broker's Metadata names it: Kafka's topic id (base64) and partitions."""

    topic_id: str | None
    partitions: int


@dataclass
class RebuiltGroups:
    """:func:`offsets_snapshots`' answer: ``lines`` (JSON-ready, one per group with members) and
    ``without_members`` (group id -> why it has no snapshot)."""

    lines: list[dict[str, Any]] = field(default_factory=list)
    without_members: dict[str, str] = field(default_factory=dict)


def offsets_snapshots(rebuild: GroupRebuild, topics: Mapping[str, TopicInfo] | None = None,
                      ) -> RebuiltGroups:
    """Every group the records mention, as snapshot lines or a reason why not (by group id)."""
    topics = topics or {}
    names = {info.topic_id: name for name, info in topics.items() if info.topic_id}
    counts = {name: info.partitions for name, info in topics.items()}
    found = RebuiltGroups()
    ids = sorted(set(rebuild.classic) | set(rebuild.groups) | set(rebuild.committed)
                 | set(rebuild.share) | set(rebuild.streams))
    for group_id in ids:
        committed = rebuild.committed.get(group_id, {})
        snapshot: AnySnapshot | None
        if group_id in rebuild.groups:
            snapshot, why = _consumer(rebuild.groups[group_id], names, counts)
        elif group_id in rebuild.share:
            snapshot, why = recorded_share_snapshot(rebuild.share[group_id], names, counts)
        elif group_id in rebuild.streams:
            snapshot, why = recorded_streams_snapshot(rebuild.streams[group_id], counts)
        elif rebuild.classic.get(group_id) is not None:
            snapshot, why = _classic(group_id, rebuild.classic[group_id] or {}, counts)
        else:
            deleted = group_id in rebuild.classic
            snapshot, why = None, "deleted (tombstone)" if deleted else "no group metadata"
        if snapshot is None:
            offsets = f"{len(committed)} committed offset(s)" if committed else "no offsets"
            found.without_members[group_id] = f"{why}; {offsets}"
            continue
        line = core_snapshot_dict(snapshot)
        line["source"] = SOURCE
        line["committed_offsets"] = [[t, p, o] for (t, p), o in sorted(committed.items())]
        found.lines.append(line)
    return found


def _classic(group_id: str, value: dict[str, Any], counts: Mapping[str, int],
             ) -> tuple[GroupSnapshot | None, str]:
    members = value.get("members") or []
    if not members:
        return None, f"classic, no members (generation {value.get('generation')})"
    if value.get("protocol_type") != "consumer":
        return None, f"protocol type {value.get('protocol_type')!r}: not a consumer group"
    captured = [CapturedMember(
        m["member_id"], m.get("group_instance_id"),
        MemberWire(_bytes(m.get("subscription")), _bytes(m.get("assignment"))),
        MemberInfo(client_id=m.get("client_id") or None, client_host=m.get("client_host") or None),
    ) for m in members]
    written = value.get("current_state_timestamp") or -1
    snapshot = snapshot_from_wire(
        group_id, value["generation"], value.get("protocol"), captured,
        counts, leader=value.get("leader"), lenient=True,
        notes=("rebuilt from __consumer_offsets: the records hold no group state",),
        observed_at=written / 1000 if written > 0 else None,
    )
    return snapshot, ""


def _bytes(text: str | None) -> bytes | None:
    return bytes.fromhex(text) if text else None


def _consumer(state: ConsumerGroupState, names: Mapping[str, str], counts: Mapping[str, int],
              ) -> tuple[GroupSnapshot | None, str]:
    if state.deleted:
        return None, "deleted (tombstone)"
    if not state.members:
        return None, f"consumer protocol, no members (group epoch {state.group_epoch})"
    members: dict[str, Member] = {}
    current: dict[str, MemberAssignment] = {}
    target: dict[str, MemberAssignment] = {}
    info: dict[str, MemberInfo] = {}
    unnamed: set[str] = set()
    for member_id, meta in state.members.items():
        now = state.current.get(member_id)
        owned = _named(now.assigned if now else (), state, names, unnamed)
        epoch = now.member_epoch if now else -1
        members[member_id] = Member(member_id, meta.subscribed_topic_names,
                                    owned_partitions=owned, generation=epoch,
                                    group_instance_id=meta.instance_id, rack=meta.rack_id)
        current[member_id] = MemberAssignment(owned)
        wanted = state.target.get(member_id)
        target[member_id] = MemberAssignment(
            _named(wanted.partitions if wanted else (), state, names, unnamed))
        info[member_id] = MemberInfo(
            client_id=meta.client_id or None, client_host=meta.client_host or None,
            member_type="classic" if meta.classic_member_metadata else "consumer",
            member_epoch=epoch)
    assignor = _assignor(state)
    notes = ["rebuilt from __consumer_offsets: the records hold no group state"]
    if assignor is None:
        notes.append(_NO_ASSIGNOR)
    if unnamed:
        notes.append(f"topic ids not named (no Metadata for them): {', '.join(sorted(unnamed))}")
    cluster, inferred = _cluster(counts, [*current.values(), *target.values()], members)
    snapshot = GroupSnapshot(
        state.group_id, state.group_epoch if state.group_epoch is not None else -1, assignor,
        members, GroupAssignment(current), cluster, notes=tuple(notes + inferred),
        group_type="consumer", member_info=info, target=GroupAssignment(target),
        target_epoch=state.assignment_epoch, assignor=assignor)
    return snapshot, ""


def _named(pairs: Iterable[TopicPartition], state: ConsumerGroupState, names: Mapping[str, str],
           unnamed: set[str]) -> tuple[TopicPartition, ...]:
    """Partitions by topic name: group_state named what ConsumerGroupPartitionMetadata named
    (Kafka before 4.1); the rest are topic ids, named from Metadata when it was read."""
    named = []
    for topic, partition in pairs:
        if topic in names:
            topic = names[topic]
        elif topic not in state.topic_names.values():
            unnamed.add(topic)
        named.append(TopicPartition(topic, partition))
    return tuple(sorted(named))


def _assignor(state: ConsumerGroupState) -> str | None:
    asked = {m.server_assignor for m in state.members.values()} - {None, ""}
    return asked.pop() if len(asked) == 1 else None


def _cluster(counts: Mapping[str, int], assignments: Iterable[MemberAssignment],
             members: Mapping[str, Member]) -> tuple[Cluster, list[str]]:
    """Partition counts of the subscribed topics: Metadata's, else inferred from what is held."""
    topics = {t for m in members.values() for t in m.topics}
    held: dict[str, int] = {}
    for assignment in assignments:
        for tp in assignment.partitions:
            held[tp.topic] = max(held.get(tp.topic, 0), tp.partition + 1)
    known = {t: counts[t] for t in topics | set(held) if t in counts}
    inferred = sorted(t for t in held if t not in known)
    notes = [f"partition count of {t} not read; inferred {held[t]}" for t in inferred]
    return Cluster({**{t: held[t] for t in inferred}, **known}), notes
