"""What a captured Streams group (KIP-1071) carries where consumer-protocol groups carry
partitions: *tasks* (a sub-topology id and a partition, active, standby or warm-up: the names and
the order are :mod:`assignframe.streams_assignor`'s) and a *topology* (its sub-topologies and
their source topics, sent by a member joining with epoch 0).

A StreamsGroupHeartbeat request or response carries each kind of task as its own nullable array:
null means that kind is unchanged since the member's last heartbeat, so each kind is carried over
on its own. The group's state at the end of each epoch is a :class:`StreamsEpoch` (decode's own
record: the snapshot model of Streams groups is not decode's to define).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ...snapshot.streams import StreamsGroupMember, StreamsSnapshot
from ...streams_assignor import TASK_KINDS, MemberTasks, TaskId, task_label

__all__ = [
    "StreamsEpoch",
    "captured_streams_snapshot",
    "tasks_seen",
    "described_json",
    "StreamsEpochMember",
    "streams_described",
    "streams_epoch",
    "streams_target",
    "task_labels",
    "tasks_of",
    "topology_of",
]


def _task_ids(task_ids: Iterable[Mapping[str, Any]]) -> tuple[TaskId, ...]:
    return tuple((t["subtopology_id"], p) for t in task_ids for p in t["partitions"])


def tasks_of(fields: Mapping[str, Any], previous: MemberTasks | None) -> MemberTasks | None:
    """A member's tasks as a heartbeat's ``active_tasks``/``standby_tasks``/``warmup_tasks``
    give them, each null kind taken from ``previous`` (unchanged); None when all three are null
    (nothing said)."""
    given = {kind: fields.get(f"{kind}_tasks") for kind in TASK_KINDS}
    if all(value is None for value in given.values()):
        return None
    base = previous or MemberTasks()
    kinds: dict[str, tuple[TaskId, ...]] = {
        kind: getattr(base, kind) if value is None else _task_ids(value)
        for kind, value in given.items()}
    return MemberTasks(**kinds)


def task_labels(tasks: MemberTasks | None) -> dict[str, list[str]] | None:
    """Kind -> the tasks in Kafka's spelling (``0_3``), in task order (JSON- and text-ready)."""
    if tasks is None:
        return None
    return {kind: [task_label(t) for t in getattr(tasks, kind)] for kind in TASK_KINDS}


def topology_of(topology: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """Sub-topology id -> its source topics (sorted), from a heartbeat's or a describe's
    topology."""
    return {s["subtopology_id"]: tuple(sorted(s["source_topics"]))
            for s in topology.get("subtopologies") or ()}


@dataclass(frozen=True)
class StreamsEpochMember:
    """One live member (a stream thread) at the end of an epoch.

    :param tasks: what the broker's heartbeat answers last gave it
    :param owned: what its last heartbeat request said it holds (None: never said)
    """

    member_id: str
    client_id: str | None
    client_host: str | None
    process_id: str | None
    member_epoch: int
    tasks: MemberTasks
    owned: MemberTasks | None


@dataclass(frozen=True)
class StreamsEpoch:
    """A Streams group at the end of one group epoch, as its heartbeats and describes said it.

    :param subtopologies: the topology the members sent (None: no joining request captured)
    :param group_state, target_epoch, target: the last StreamsGroupDescribe answer of this
        epoch (None when none was captured); ``target`` is member id -> its target tasks
    """

    group_id: str
    epoch: int
    observed_at: float
    members: dict[str, StreamsEpochMember]
    topology_epoch: int | None
    subtopologies: dict[str, tuple[str, ...]] | None
    group_state: str | None = None
    target_epoch: int | None = None
    target: dict[str, MemberTasks] | None = None

    def tasks(self, kind: str) -> list[TaskId]:
        """Every task of ``kind`` some live member holds (repeated when two hold it)."""
        return [t for m in self.members.values() for t in getattr(m.tasks, kind)]


def streams_described(described: Mapping[str, Any]) -> dict[str, Any]:
    """One group of a StreamsGroupDescribe answer, the way the timeline keeps describes (the
    keys of the consumer protocol's, plus the topology and each member's process; a member's
    ``current`` and ``target`` tasks as :class:`MemberTasks`, :func:`described_json` spells
    them)."""
    topology = described.get("topology")
    return {
        "group_state": described["group_state"],
        "group_epoch": described["group_epoch"],
        "assignment_epoch": described["assignment_epoch"],
        "assignor": described.get("assignor_name"),
        "topology_epoch": topology["epoch"] if topology else None,
        "subtopologies": topology_of(topology) if topology else None,
        "members": {m["member_id"]: {
            "epoch": m["member_epoch"],
            "client_id": m["client_id"],
            "process_id": m["process_id"],
            "current": tasks_of(m["assignment"], None) or MemberTasks(),
            "target": tasks_of(m["target_assignment"], None) or MemberTasks(),
        } for m in described["members"]},
    }


def described_json(described: Mapping[str, Any]) -> dict[str, Any]:
    """One kept describe (:func:`streams_described`) JSON-ready: tasks as :func:`task_labels`."""
    members = {member_id: {**m, "current": task_labels(m["current"]),
                           "target": task_labels(m["target"])}
               for member_id, m in (described.get("members") or {}).items()}
    return {**described, "members": members}


def streams_epoch(group_id: str, epoch: int, timestamp: float, live: Iterable[Any],
                  topology: Mapping[str, Any] | None,
                  described: list[dict[str, Any]]) -> StreamsEpoch:
    """The group at ``timestamp``: ``live`` are the timeline's active members (their epoch,
    tasks, owned tasks, ``subscription["process_id"]``), ``topology`` the last one a member sent,
    ``described`` the group's describes so far."""
    members = {m.member_id: StreamsEpochMember(
        m.member_id, m.client_id, m.client_host, m.subscription.get("process_id"), m.epoch,
        m.tasks or MemberTasks(), m.owned_tasks) for m in live}
    return StreamsEpoch(group_id, epoch, timestamp, members,
                        topology["epoch"] if topology else None,
                        topology_of(topology) if topology else None,
                        **streams_target(described, epoch, set(members)))


def streams_target(described: list[dict[str, Any]], epoch: int, members: set[str]
                   ) -> dict[str, Any]:
    """What the last StreamsGroupDescribe answer of group epoch ``epoch`` reported: its state
    and each of ``members``' target tasks (nothing when none was captured)."""
    seen = [d for d in described if d["group_epoch"] == epoch and not d["error"]]
    if not seen:
        return {}
    last = seen[-1]
    target = {m: d["target"] for m, d in last["members"].items() if m in members}
    return {"group_state": last["group_state"], "target_epoch": last["assignment_epoch"],
            "target": target}


def tasks_seen(epochs: Iterable[StreamsEpoch], described: Iterable[Mapping[str, Any]]
               ) -> dict[str, int]:
    """Sub-topology -> its tasks as the whole capture shows them: the highest partition any
    member held, was given or was described with, + 1, when every partition below it was seen
    too (a sub-topology whose tasks the capture does not show from 0 up, as a corrupt one's
    2147483647 would not, is left unsized)."""
    held: list[MemberTasks] = []
    for epoch in epochs:
        held += [m.tasks for m in epoch.members.values()] + list((epoch.target or {}).values())
    for answer in described:
        held += [t for m in (answer.get("members") or {}).values()
                 for t in (m["current"], m["target"])]
    seen: dict[str, set[int]] = {}
    for tasks in held:
        for kind in TASK_KINDS:
            for subtopology, partition in getattr(tasks, kind):
                seen.setdefault(subtopology, set()).add(partition)
    return {s: len(ps) for s, ps in seen.items() if ps == set(range(len(ps)))}


def captured_streams_snapshot(epoch: StreamsEpoch, seen: Mapping[str, int]) -> StreamsSnapshot:
    """The epoch as every tool reads a Streams group (what decode writes, the audit replays).

    What heartbeats do not carry is said in a note, never made up: each input topic's
    partitions are inferred from ``seen`` (:func:`tasks_seen` of the whole capture: exact once
    every task has been assigned at some point); without a StreamsGroupDescribe in the epoch, a
    member's target is the tasks its heartbeats last gave it; the lag and the standby replicas
    are unknown.
    """
    target = epoch.target
    members = [StreamsGroupMember(
        m.member_id, m.client_id, m.client_host, m.process_id, m.member_epoch,
        _labels(m.tasks), _labels(target.get(m.member_id, MemberTasks())
                                  if target is not None else m.tasks))
        for m in epoch.members.values()]
    subtopologies = dict(epoch.subtopologies or {})
    partitions = {topic: seen[s] for s, topics in subtopologies.items() if s in seen
                  for topic in topics}
    notes = ["partitions of the input topics inferred from the tasks the capture shows "
             "(highest + 1, when every task below it was seen); "
             "the lag, streams.num.standby.replicas and which sub-topologies keep state are "
             "not read from heartbeats: unknown"]
    if target is None:
        notes.append("no StreamsGroupDescribe captured in this epoch: each member's target is "
                     "the tasks its heartbeats last gave it")
    if epoch.subtopologies is None:
        notes.append("no joining heartbeat captured: the topology is not known")
    return StreamsSnapshot(
        epoch.group_id, epoch.group_state, epoch.epoch,
        epoch.target_epoch if epoch.target_epoch is not None else epoch.epoch,
        epoch.topology_epoch, None, members, subtopologies, notes=notes,
        partitions=partitions, observed_at=epoch.observed_at)


def _labels(tasks: MemberTasks) -> dict[str, tuple[str, ...]]:
    return {kind: tuple(task_label(t) for t in getattr(tasks, kind)) for kind in TASK_KINDS}
