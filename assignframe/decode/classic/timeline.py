"""Build per-group rebalance timelines from decoded Kafka messages.

One :class:`Snapshot` per group generation: created by the first successful JoinGroup response of
that generation, filled by the leader's JoinGroup response (every member's subscription), the
leader's SyncGroup request (the assignments it sent) and each member's SyncGroup response (what it
received). LeaveGroup requests and JoinGroup/SyncGroup/Heartbeat errors become events of the
generation during which they happened.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import assignframe_codec as codec

from ...snapshot import GroupSnapshot
from ..traffic.messages import Message
from .embedded import Payload, assignment_payload, foreign_payload, subscription_payload

__all__ = ["GroupTimeline", "MemberRound", "Snapshot", "TimelineBuilder"]



@dataclass
class MemberRound:
    """One member in one generation. Each payload is held once (:class:`~.embedded.Payload`:
    its bytes, what they decode to, and its JSON view made from those)."""

    member_id: str
    group_instance_id: str | None = None
    client_id: str | None = None
    client_software: str | None = None
    connection: str | None = None
    protocols: list[str] = field(default_factory=list)
    subscription: Payload | None = None
    subscription_source: str | None = None
    assignment: Payload | None = None  # what the leader sent for this member
    received: Payload | None = None  # what the member got back in its SyncGroup response

    @property
    def effective_assignment(self) -> Payload | None:
        """The leader's assignment for the member, else what the member received."""
        return self.assignment if self.assignment is not None else self.received


@dataclass
class Snapshot:
    """One generation of one group, as far as the capture shows it."""

    group_id: str
    generation: int
    first_seen: float
    protocol_type: str | None = None
    protocol: str | None = None
    leader: str | None = None
    members: dict[str, MemberRound] = field(default_factory=dict)
    synced_at: float | None = None
    partitions_per_topic: dict[str, int] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # filled by analysis.analyse()
    typed: GroupSnapshot | None = field(default=None, repr=False)
    changes: dict[str, Any] | None = None
    metrics: dict[str, Any] | None = None
    replay: dict[str, Any] | None = None

    def member(self, member_id: str) -> MemberRound:
        if member_id not in self.members:
            self.members[member_id] = MemberRound(member_id)
        return self.members[member_id]

    @property
    def complete(self) -> bool:
        """Every member has an assignment (leader-sent or received)."""
        return bool(self.members) and all(m.effective_assignment for m in self.members.values())


@dataclass
class GroupTimeline:
    group_id: str
    snapshots: list[Snapshot]


@dataclass
class TimelineBuilder:
    """Feed :class:`~..traffic.messages.Message` objects in capture order, then call
    :meth:`timelines`."""

    snapshots: dict[tuple[str, int], Snapshot] = field(default_factory=dict)
    current: dict[str, Snapshot] = field(default_factory=dict)
    early_events: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    requests: dict[tuple[str, int], Message] = field(default_factory=dict)
    partitions_per_topic: dict[str, int] = field(default_factory=dict)
    client_software: dict[str, str] = field(default_factory=dict)

    def add(self, message: Message) -> None:
        if message.error:
            return
        frame = message.frame
        if frame.is_request:
            self.requests[(frame.stream, frame.correlation_id)] = message
            handler = getattr(self, f"_on_{frame.api_name.lower()}_request", None)
            if handler:
                handler(message)
            return
        assert frame.request is not None
        request = self.requests.pop((frame.request.stream, frame.correlation_id), None)
        handler = getattr(self, f"_on_{frame.api_name.lower()}_response", None)
        if handler and request is not None:
            handler(request, message)

    # -- cluster view ------------------------------------------------------------------------
    def _on_metadata_response(self, request: Message, response: Message) -> None:
        self.partitions_per_topic.update(response.fields["partitions_per_topic"])

    def _on_createtopics_request(self, message: Message) -> None:
        for topic, count in message.fields["partitions_per_topic"].items():
            if count > 0:
                self.partitions_per_topic.setdefault(topic, count)

    def _on_apiversions_request(self, message: Message) -> None:
        name = message.fields.get("client_software_name")
        if name:
            software = f"{name} {message.fields.get('client_software_version') or ''}".strip()
            self.client_software[_client_side(message)] = software

    # -- group membership --------------------------------------------------------------------
    def _event(self, group_id: str, event: dict[str, Any]) -> None:
        snapshot = self.current.get(group_id)
        if snapshot is None:
            self.early_events.setdefault(group_id, []).append(event)
        else:
            snapshot.events.append(event)

    def _snapshot(self, group_id: str, generation: int, timestamp: float) -> Snapshot:
        key = (group_id, generation)
        snapshot = self.snapshots.get(key)
        if snapshot is None:
            snapshot = Snapshot(group_id, generation, timestamp)
            snapshot.events.extend(self.early_events.pop(group_id, []))
            self.snapshots[key] = snapshot
            self.current[group_id] = snapshot
        snapshot.partitions_per_topic = dict(self.partitions_per_topic)
        return snapshot

    def _on_joingroup_response(self, request: Message, response: Message) -> None:
        fields, asked = response.fields, request.fields
        group_id, frame = asked["group_id"], response.frame
        if fields["error_code"]:
            self._event(
                group_id,
                _error_event(
                    "join_error",
                    frame,
                    asked.get("member_id") or fields.get("member_id"),
                    fields["error_code"],
                ),
            )
            return
        snapshot = self._snapshot(group_id, fields["generation_id"], frame.timestamp)
        snapshot.protocol_type = fields.get("protocol_type") or asked.get("protocol_type")
        snapshot.protocol, snapshot.leader = fields.get("protocol_name"), fields.get("leader")
        member = snapshot.member(fields["member_id"])
        own = next(
            (p["metadata"] for p in asked.get("protocols") or () if p["name"] == snapshot.protocol),
            None,
        )
        self._round(
            snapshot,
            "join",
            frame,
            member.member_id,
            subscription=None if own is None else own.hex(),
            listed_members=len(fields.get("members") or ()),
        )
        member.group_instance_id = asked.get("group_instance_id")
        member.client_id, member.connection = frame.client_id, _client_side(request)
        member.client_software = self.client_software.get(member.connection)
        member.protocols = [p["name"] for p in asked.get("protocols") or ()]
        if member.subscription is None:
            self._subscribe(snapshot, member, own, "member's JoinGroup request")
        for listed in fields.get("members") or ():
            other = snapshot.member(listed["member_id"])
            other.group_instance_id = listed.get("group_instance_id", other.group_instance_id)
            self._subscribe(snapshot, other, listed["metadata"], "leader's JoinGroup response")

    def _subscribe(
        self, snapshot: Snapshot, member: MemberRound, metadata: bytes | None, source: str
    ) -> None:
        if snapshot.protocol_type not in (None, "consumer"):
            member.subscription = foreign_payload(metadata, snapshot.protocol_type)
        else:
            member.subscription = subscription_payload(
                metadata, snapshot.protocol, member.member_id
            )
        member.subscription_source = source

    def _on_syncgroup_request(self, message: Message) -> None:
        fields = message.fields
        if not fields.get("assignments"):
            return
        snapshot = self._snapshot(
            fields["group_id"], fields["generation_id"], message.frame.timestamp
        )
        snapshot.leader = snapshot.leader or fields["member_id"]
        for sent in fields["assignments"]:
            member = snapshot.member(sent["member_id"])
            member.assignment = assignment_payload(sent["assignment"])

    def _on_syncgroup_response(self, request: Message, response: Message) -> None:
        asked, fields, frame = request.fields, response.fields, response.frame
        if fields["error_code"]:
            self._event(
                asked["group_id"],
                _error_event("sync_error", frame, asked["member_id"], fields["error_code"]),
            )
            return
        snapshot = self._snapshot(asked["group_id"], asked["generation_id"], frame.timestamp)
        member = snapshot.member(asked["member_id"])
        member.received = assignment_payload(fields["assignment"])
        snapshot.synced_at = frame.timestamp
        self._round(
            snapshot,
            "sync",
            frame,
            asked["member_id"],
            assignment=fields["assignment"].hex(),
            sent_assignments=len(asked.get("assignments") or ()),
        )

    @staticmethod
    def _round(snapshot: Snapshot, kind: str, frame: Any, member_id: str, **details: Any) -> None:
        """Record one JoinGroup/SyncGroup exchange; a second join of a member is a follow-up."""
        if kind == "join" and any(
            r["type"] == "join" and r["member_id"] == member_id for r in snapshot.rounds
        ):
            snapshot.notes.append(
                f"{member_id} joined generation {snapshot.generation} again (follow-up round; "
                "the coordinator kept the generation)"
            )
        snapshot.rounds.append(
            {
                "type": kind,
                "timestamp": frame.timestamp,
                "member_id": member_id,
                "connection": frame.stream.split("->")[1],
                **details,
            }
        )

    def _on_leavegroup_request(self, message: Message) -> None:
        for leaving in message.fields["members"]:
            event = {
                "type": "leave",
                "timestamp": message.frame.timestamp,
                "member_id": leaving["member_id"],
                "group_instance_id": leaving.get("group_instance_id"),
                "reason": leaving.get("reason"),
                "connection": _client_side(message),
            }
            self._event(message.fields["group_id"], event)

    def _on_heartbeat_response(self, request: Message, response: Message) -> None:
        code = response.fields["error_code"]
        if code:
            event = _error_event(
                "heartbeat_error", response.frame, request.fields["member_id"], code
            )
            event["generation"] = request.fields["generation_id"]
            self._event(request.fields["group_id"], event)

    def timelines(self) -> list[GroupTimeline]:
        """Every group's snapshots in the order their generations first appeared."""
        by_group: dict[str, list[Snapshot]] = {}
        for snapshot in sorted(self.snapshots.values(), key=lambda s: s.first_seen):
            by_group.setdefault(snapshot.group_id, []).append(snapshot)
        for group_id, events in self.early_events.items():
            if group_id not in by_group:
                orphan = Snapshot(group_id, -1, events[0]["timestamp"], events=list(events))
                orphan.notes.append("no successful JoinGroup captured for this group")
                by_group[group_id] = [orphan]
        return [GroupTimeline(group_id, snapshots) for group_id, snapshots in by_group.items()]


def _client_side(message: Message) -> str:
    return message.frame.stream.split("->")[0]


def _error_event(kind: str, frame: Any, member_id: str | None, code: int) -> dict[str, Any]:
    return {
        "type": kind,
        "timestamp": frame.timestamp,
        "member_id": member_id,
        "error_code": code,
        "error": codec.error_name(code),  # Kafka's error table is the codec's
    }


def build_timelines(messages: Iterable[Message]) -> list[GroupTimeline]:
    builder = TimelineBuilder()
    for message in messages:
        builder.add(message)
    return builder.timelines()
