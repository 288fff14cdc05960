"""Timelines of consumer-protocol groups (KIP-848) from ConsumerGroupHeartbeat/Describe traffic,
of share groups (KIP-932) from ShareGroupHeartbeat/Describe traffic and of Streams groups
(KIP-1071) from StreamsGroupHeartbeat/Describe traffic, by one mechanism: what differs between
the APIs is one row of :data:`HEARTBEAT_APIS`.

A member sends ConsumerGroupHeartbeat (API 68); its subscription fields are null when unchanged
since its last heartbeat, so each member's last known subscription is carried here. The broker
answers with the member's epoch and, when it changed, the member's whole assignment (null means
"unchanged"). An epoch of -1 (or -2 for a static member) in a request is a leave. A member that
neither left nor heartbeated during the last three heartbeat intervals of the capture vanished.

Each time the highest member epoch seen in a group grows, a new epoch starts; the group's state
at the end of that epoch (every live member's subscription and the assignment the broker last sent
it) becomes a :class:`~assignframe.snapshot.GroupSnapshot` with ``group_type`` ``"consumer"`` or
``"share"``. Topic ids are named from the capture's Metadata responses (ids stay when unknown).

Share groups (KIP-932) differ where Kafka's protocol differs: a ShareGroupHeartbeat request
carries no owned partitions, no server assignor, no instance id (no static members: only -1
leaves) and no regex; a share member gets its target assignment at once (the coordinator does
not wait for anybody to revoke: several members may hold one partition), so there is no
reconciliation to check; and ShareGroupDescribe reports each member's assignment, with no
separate target.

Streams groups (KIP-1071) hold tasks, not partitions (:mod:`.streams`): each heartbeat answer
gives the member's active, standby and warm-up tasks (each kind null when unchanged), a joining
request carries the application's topology, and -1 / -2 leave as in the consumer protocol. Each
epoch's state is a :class:`~.streams.StreamsEpoch` in the group's ``epochs`` (no snapshot:
``snapshots`` stays empty), with the last StreamsGroupDescribe of the epoch (state, target tasks).
Their heartbeats are not checked against reconciliation rules.

Every answered consumer-protocol heartbeat is checked against the coordinator's own rules
(:func:`assignframe.kip848.reconcile.observe_heartbeat`): an answer Kafka's coordinator could
not have given (a new epoch or new partitions while the member still owned partitions it had to
revoke, an epoch going back, a heartbeat it would have fenced) is an ``impossible`` event with
the reason.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from assignframe_codec import error_name

from ...kip848.reconcile import ObservedMember, observe_heartbeat
from ...model import Cluster, GroupAssignment, Member, TopicPartition
from ...snapshot import GroupSnapshot, MemberInfo
from ...streams_assignor import MemberTasks
from ..traffic.messages import Message
from .streams import (
    StreamsEpoch,
    streams_described,
    streams_epoch,
    streams_target,
    task_labels,
    tasks_of,
)

__all__ = [
    "HEARTBEAT_APIS",
    "ConsumerGroupTimeline",
    "ConsumerMember",
    "ConsumerTimelineBuilder",
    "HeartbeatApi",
    "build_consumer_timelines",
    "merge_classic_members",
]

LEAVE_EPOCHS = {-1: "leave", -2: "static leave"}
VANISHED_INTERVALS = 3  # heartbeat intervals of silence at the capture's end


@dataclass(frozen=True)
class HeartbeatApi:
    """What one group type's heartbeat API carries; the timeline machinery is the same.

    :param group_type: the snapshots' ``group_type`` (and their members' ``member_type``)
    :param heartbeat: the heartbeat response kind (its request is read with it)
    :param describe: the describe response kind
    :param subscription: the request fields that say what a member subscribes to (null:
        unchanged since its last heartbeat)
    :param owned: the request field where the member reports what it owns, or None
    :param leave_epochs: request member epochs that leave the group
    :param reconciled: members revoke before they receive (KIP-848), checked per heartbeat
    :param described_target: the describe reports a target assignment per member
    :param tasks: the group holds tasks, not partitions (Streams, :mod:`.streams`)
    """

    group_type: str
    heartbeat: str
    describe: str
    subscription: tuple[str, ...]
    owned: str | None
    leave_epochs: dict[int, str]
    reconciled: bool
    described_target: bool
    tasks: bool = False


#: The consumer protocol's (KIP-848), share groups' (KIP-932) and Streams groups' (KIP-1071)
#: heartbeat APIs, as Kafka 4.3.1's {ConsumerGroup,ShareGroup,StreamsGroup}{Heartbeat,Describe}
#: {Request,Response}.json define them (Streams: -1 leaves, -2 a static member will rejoin).
HEARTBEAT_APIS = (
    HeartbeatApi("consumer", "ConsumerGroupHeartbeatResponse", "ConsumerGroupDescribeResponse",
                 ("instance_id", "rack_id", "subscribed_topic_names", "subscribed_topic_regex",
                  "server_assignor"), "topic_partitions", LEAVE_EPOCHS, True, True),
    HeartbeatApi("share", "ShareGroupHeartbeatResponse", "ShareGroupDescribeResponse",
                 ("rack_id", "subscribed_topic_names"), None, {-1: "leave"}, False, False),
    HeartbeatApi("streams", "StreamsGroupHeartbeatResponse", "StreamsGroupDescribeResponse",
                 ("instance_id", "rack_id", "process_id"), None, LEAVE_EPOCHS, False, True,
                 tasks=True),
)
_BY_HEARTBEAT = {api.heartbeat: api for api in HEARTBEAT_APIS}
_BY_DESCRIBE = {api.describe: api for api in HEARTBEAT_APIS}


@dataclass
class ConsumerMember:
    """One member's state as carried through its heartbeats."""

    member_id: str
    client_id: str | None = None
    client_host: str | None = None
    epoch: int = 0
    subscription: dict[str, Any] = field(default_factory=dict)
    owned: list[list[Any]] | None = None  # as the member last reported it
    assignment: list[list[Any]] | None = None  # as the broker last sent it
    heartbeat_interval_ms: int | None = None
    last_seen: float = 0.0
    state: str = "active"  # active | left | fenced | vanished
    observed: ObservedMember | None = None  # the coordinator's last answers, by topic id
    request_epoch: int = 0  # of the heartbeat being answered
    reported: frozenset[TopicPartition] | None = None  # its owned partitions, by topic id
    joined: bool = False  # the coordinator answered one of its heartbeats without an error
    tasks: MemberTasks | None = None  # Streams: as the broker last sent them
    owned_tasks: MemberTasks | None = None  # Streams: as the member last reported them


@dataclass
class ConsumerGroupTimeline:
    group_id: str
    group_type: str = "consumer"  # or "share" (KIP-932), "streams" (KIP-1071)
    members: dict[str, ConsumerMember] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    snapshots: list[GroupSnapshot] = field(default_factory=list)
    described: list[dict[str, Any]] = field(default_factory=list)
    partitions_per_topic: dict[str, int] = field(default_factory=dict)
    group_epoch: int = 0
    epochs: list[StreamsEpoch] = field(default_factory=list)  # Streams: one per group epoch
    topology: dict[str, Any] | None = None  # Streams: the last topology a member sent


class ConsumerTimelineBuilder:
    """Fed one message at a time (the capture is streamed); :meth:`finish` gives the groups."""

    def __init__(self) -> None:
        self.groups: dict[str, ConsumerGroupTimeline] = {}
        self.topic_names: dict[str, str] = {}
        self.partitions_per_topic: dict[str, int] = {}
        self.last_timestamp = 0.0

    def add(self, message: Message) -> None:
        self.last_timestamp = max(self.last_timestamp, message.frame.timestamp)
        if message.kind == "MetadataResponse":
            self.topic_names.update(message.fields.get("topic_names") or {})
            self.partitions_per_topic.update(message.fields.get("partitions_per_topic") or {})
        elif message.kind in _BY_HEARTBEAT and message.frame.request:
            self._heartbeat(message, _BY_HEARTBEAT[message.kind])
        elif message.kind in _BY_DESCRIBE:
            self._describe(message, _BY_DESCRIBE[message.kind])

    def _group(self, group_id: str, api: HeartbeatApi) -> ConsumerGroupTimeline:
        """A group id names one group of one type on a cluster."""
        return self.groups.setdefault(group_id, ConsumerGroupTimeline(group_id, api.group_type))

    def _names(self, topic_partitions: Iterable[dict[str, Any]] | None) -> list[list[Any]] | None:
        if topic_partitions is None:
            return None
        return sorted([self.topic_names.get(t["topic_id"], t["topic_id"]), p]
                      for t in topic_partitions for p in t["partitions"])

    def _heartbeat(self, response: Message, api: HeartbeatApi) -> None:
        frame = response.frame
        assert frame.request is not None
        from ..traffic.messages import (
            read_message,  # the request's fields (already decoded once: cheap)
        )

        request = read_message(frame.request)
        if request is None or request.error:
            return
        sent, got = request.fields, response.fields
        group = self._group(sent["group_id"], api)
        member_id = got.get("member_id") or sent["member_id"]
        member = group.members.get(member_id)
        if member is None:
            member = group.members[member_id] = ConsumerMember(
                member_id, frame.client_id, frame.stream.split("->")[0]
            )
        if not member.joined and not got["error_code"]:  # a refused first heartbeat (e.g.
            member.joined = True  # NOT_COORDINATOR while the coordinator loads) is no join
            group.events.append(_event(frame, "join", member_id))
        member.last_seen = frame.timestamp
        self._request(group, member, sent, frame, api)
        self._response(group, member, got, frame, api)

    def _request(self, group: ConsumerGroupTimeline, member: ConsumerMember,
                 sent: dict[str, Any], frame: Any, api: HeartbeatApi) -> None:
        for name in api.subscription:  # null means unchanged since the last heartbeat
            if sent.get(name) is not None:
                member.subscription[name] = sent[name]
        if api.owned is not None:
            owned = self._names(sent.get(api.owned))
            if owned is not None:
                member.owned = owned
            member.reported = _by_id(sent.get(api.owned))
        if api.tasks:
            member.owned_tasks = tasks_of(sent, member.owned_tasks) or member.owned_tasks
            if sent.get("topology") is not None:
                group.topology = sent["topology"]
        member.request_epoch = sent["member_epoch"]
        leave = api.leave_epochs.get(sent["member_epoch"])
        if leave:
            member.state = "left"
            group.events.append(_event(frame, leave, member.member_id))

    def _response(self, group: ConsumerGroupTimeline, member: ConsumerMember,
                  got: dict[str, Any], frame: Any, api: HeartbeatApi) -> None:
        if got["error_code"]:
            name = error_name(got["error_code"])
            if name == "FENCED_MEMBER_EPOCH" or name == "UNKNOWN_MEMBER_ID":
                member.state = "fenced"
                member.observed = None
            group.events.append(_event(frame, "error", member.member_id, error=name,
                                       message=got.get("error_message")))
            return
        member.heartbeat_interval_ms = got.get("heartbeat_interval_ms")
        if api.reconciled:
            self._check(group, member, got, frame)
        if api.tasks:
            tasks = tasks_of(got, member.tasks)
            changed = tasks is not None and tasks != member.tasks
            member.tasks = tasks or member.tasks
            held: dict[str, Any] = {"tasks": task_labels(member.tasks)}
        else:
            assignment = self._names((got.get("assignment") or {}).get("topic_partitions"))
            changed = assignment is not None and assignment != member.assignment
            if got.get("assignment") is not None:
                member.assignment = assignment
            held = {"partitions": member.assignment}
        if member.state == "left" or got["member_epoch"] < 0:
            return  # the next epoch shows the group without it
        if changed or got["member_epoch"] != member.epoch:
            group.events.append(_event(frame, "assignment" if changed else "epoch",
                                       member.member_id, epoch=got["member_epoch"], **held))
        member.epoch = got["member_epoch"]
        self._snapshot(group, frame.timestamp)

    def _check(self, group: ConsumerGroupTimeline, member: ConsumerMember,
               got: dict[str, Any], frame: Any) -> None:
        """Could Kafka's coordinator have answered this heartbeat so? (Leaves are not checked;
        a member first seen mid-capture is checked from its first full assignment on.)"""
        epoch, request_epoch = got["member_epoch"], member.request_epoch
        if request_epoch < 0 or epoch < 0:
            member.observed = None
            return
        assigned = _by_id((got.get("assignment") or {}).get("topic_partitions"))
        before = ObservedMember(0, -1, frozenset()) if request_epoch == 0 else member.observed
        if before is None:
            if assigned is not None:
                member.observed = ObservedMember(epoch, epoch, assigned)
            return
        named = self._named_partitions
        after, problems = observe_heartbeat(
            before, request_epoch, member.reported, epoch, assigned)
        if problems:  # said with topic names: the same map for every partition of the step
            _, problems = observe_heartbeat(
                ObservedMember(before.epoch, before.previous_epoch, named(before.assigned),
                               named(before.revoking)),
                request_epoch, None if member.reported is None else named(member.reported),
                epoch, None if assigned is None else named(assigned))
        member.observed = after
        for problem in problems:
            group.events.append(_event(frame, "impossible", member.member_id, reason=problem))

    def _named_partitions(self, partitions: frozenset[TopicPartition]) -> frozenset[TopicPartition]:
        return frozenset(TopicPartition(self.topic_names.get(tp.topic, tp.topic), tp.partition)
                         for tp in partitions)

    def _snapshot(self, group: ConsumerGroupTimeline, timestamp: float) -> None:
        """Start a snapshot when the group epoch grows; else the epoch's snapshot is updated."""
        self._mark_vanished(group, timestamp)
        epoch = max((m.epoch for m in group.members.values()), default=0)
        if group.group_type == "streams":
            live = [m for m in group.members.values() if m.state == "active"]
            streams = streams_epoch(group.group_id, epoch, timestamp, live, group.topology,
                                    group.described)
            if group.epochs and group.epochs[-1].epoch == epoch:
                group.epochs[-1] = streams
            elif epoch > group.group_epoch or not group.epochs:
                group.epochs.append(streams)
        else:
            snapshot = _group_snapshot(group, epoch, self.partitions_per_topic, timestamp)
            if group.snapshots and group.snapshots[-1].generation == epoch:
                group.snapshots[-1] = snapshot
            elif epoch > group.group_epoch or not group.snapshots:
                group.snapshots.append(snapshot)
        group.group_epoch = max(group.group_epoch, epoch)

    def _mark_vanished(self, group: ConsumerGroupTimeline, now: float) -> None:
        for member in group.members.values():
            interval = (member.heartbeat_interval_ms or 5000) / 1000
            if member.state == "active" and now - member.last_seen > VANISHED_INTERVALS * interval:
                member.state = "vanished"
                group.events.append({"event": "vanished", "member_id": member.member_id,
                                     "timestamp": member.last_seen})

    def _describe(self, response: Message, api: HeartbeatApi) -> None:
        for described in response.fields.get("groups") or ():
            group = self._group(described["group_id"], api)
            error = error_name(described["error_code"]) if described["error_code"] else None
            if api.tasks:
                group.described.append({"error": error, **streams_described(described)})
                continue
            group.described.append({
                "error": error,
                "group_state": described["group_state"],
                "group_epoch": described["group_epoch"],
                "assignment_epoch": described["assignment_epoch"],
                "assignor": described["assignor_name"],
                "members": {m["member_id"]: {
                    "epoch": m["member_epoch"],
                    "current": _named(m["assignment"]),
                    "target": (_named(m["target_assignment"]) if api.described_target
                               else None),
                } for m in described["members"]},
            })

    def finish(self) -> list[ConsumerGroupTimeline]:
        for group in self.groups.values():
            group.partitions_per_topic = dict(self.partitions_per_topic)
            self._mark_vanished(group, self.last_timestamp)
            # a describe answered after an epoch's last heartbeat answer describes it too
            group.snapshots = [dataclasses.replace(s, **_described(group, s.generation,
                                                                   set(s.members)))
                               for s in group.snapshots]
            group.epochs = [dataclasses.replace(e, **streams_target(group.described, e.epoch,
                                                                    set(e.members)))
                            for e in group.epochs]
        return sorted(self.groups.values(), key=lambda g: g.group_id)


def _by_id(topic_partitions: Iterable[dict[str, Any]] | None) -> frozenset[TopicPartition] | None:
    """Partitions as the wire names them (topic ids: stable whatever Metadata says later)."""
    if topic_partitions is None:
        return None
    return frozenset(TopicPartition(t["topic_id"], p)
                     for t in topic_partitions for p in t["partitions"])


def _named(assignment: dict[str, Any]) -> list[list[Any]]:
    return sorted([t["topic_name"], p] for t in assignment["topic_partitions"]
                  for p in t["partitions"])


def _event(frame: Any, kind: str, member_id: str, **details: Any) -> dict[str, Any]:
    return {"event": kind, "member_id": member_id, "timestamp": frame.timestamp,
            "stream": frame.stream, "offset": frame.offset, **details}


def _group_snapshot(group: ConsumerGroupTimeline, epoch: int,
                    partitions_per_topic: dict[str, int], timestamp: float) -> GroupSnapshot:
    live = {m.member_id: m for m in group.members.values() if m.state == "active"}
    members = {member_id: Member(
        member_id,
        tuple(m.subscription.get("subscribed_topic_names") or ()),
        owned_partitions=tuple(TopicPartition(t, p) for t, p in m.owned or ()),
        generation=m.epoch,
        group_instance_id=m.subscription.get("instance_id"),
        rack=m.subscription.get("rack_id"),
    ) for member_id, m in live.items()}
    current = GroupAssignment.from_partitions(
        {member_id: [tuple(pair) for pair in m.assignment or ()] for member_id, m in live.items()})
    assignor = next((m.subscription.get("server_assignor") for m in live.values()
                     if m.subscription.get("server_assignor")), None)
    info = {member_id: MemberInfo(client_id=m.client_id, client_host=m.client_host,
                                  member_type=group.group_type, member_epoch=m.epoch)
            for member_id, m in live.items()}
    return GroupSnapshot(group.group_id, epoch, assignor, members, current,
                         Cluster(dict(partitions_per_topic)), group_type=group.group_type,
                         member_info=info, observed_at=timestamp,
                         **_described(group, epoch, set(members)))


def _described(group: ConsumerGroupTimeline, epoch: int, members: set[str]) -> dict[str, Any]:
    """What the last ConsumerGroupDescribe of this group epoch reported: state, assignor, the
    target assignment (nothing when none was captured)."""
    seen = [d for d in group.described if d["group_epoch"] == epoch and not d["error"]]
    if not seen:
        return {}
    last = seen[-1]
    target = {m: [tuple(p) for p in d["target"]] for m, d in last["members"].items()
              if m in members and d["target"] is not None}
    return {"group_state": last["group_state"], "assignor": last["assignor"] or None,
            "target_epoch": last["assignment_epoch"],
            "target": GroupAssignment.from_partitions(target) if target else None}


def merge_classic_members(groups: Iterable[ConsumerGroupTimeline],
                          timelines: Iterable[Any]) -> None:
    """A group mixing protocols is one group: classic members (bridged JoinGroup/SyncGroup, whose
    generation is the group epoch) join each epoch's snapshot from the last classic generation at
    or before that epoch. ``timelines`` are the classic
    :class:`~..classic.timeline.GroupTimeline` objects after analysis (their ``typed``
    snapshots); modifies ``groups`` in place."""
    classic = {timeline.group_id: timeline for timeline in timelines}
    for group in groups:
        timeline = classic.get(group.group_id)
        if timeline is None:
            continue
        typed = [s.typed for s in timeline.snapshots if s.typed is not None]
        group.snapshots = [_with_classic(snapshot, typed) for snapshot in group.snapshots]


def _with_classic(snapshot: GroupSnapshot, classic: list[GroupSnapshot]) -> GroupSnapshot:
    earlier = [c for c in classic if c.generation <= snapshot.generation]
    if not earlier:
        return snapshot
    source = earlier[-1]
    members = {**source.members, **snapshot.members}
    current = {**source.current.assignments, **snapshot.current.assignments}
    info = {m: dataclasses.replace(source.info(m), member_type="classic") for m in source.members}
    note = f"classic members from generation {source.generation}: {', '.join(source.members)}"
    return dataclasses.replace(snapshot, members=members, current=GroupAssignment(current),
                               member_info={**info, **snapshot.member_info},
                               notes=(*snapshot.notes, note))


def build_consumer_timelines(messages: Iterable[Message]) -> list[ConsumerGroupTimeline]:
    """The consumer-protocol groups of a capture's messages, each with its epochs' snapshots."""
    builder = ConsumerTimelineBuilder()
    for message in messages:
        builder.add(message)
    return builder.finish()
