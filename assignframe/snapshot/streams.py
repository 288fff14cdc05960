"""A Streams group (KIP-1071) at one assignment epoch: :class:`StreamsSnapshot`.

A Streams group's members (stream threads) hold tasks ``SUBTOPOLOGY_PARTITION`` of three kinds
(active, standby, warm-up) and reconcile toward a target like consumer-protocol members; a task's
input is that partition of every source topic of its sub-topology, so its lag is measured on them
from the group's committed offsets. The snapshot is what ``inspect`` shows, ``watch`` records, the
metrics export and the audit replays: tasks per member by kind, balance, idle members, lag per
task and sub-topology, the members reconciling and the tasks each still holds that its target
gave to another. A value the broker did not give is None ("unknown"), never 0 or -1.

Its JSON form (:meth:`StreamsSnapshot.as_dict`, read back by :meth:`StreamsSnapshot.from_dict`
through :func:`assignframe.snapshot.read_snapshot`) carries the ``schema`` and ``group_type``
keys of every snapshot line, what was read, and the numbers derived from it (not read back).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import MalformedSnapshot
from ..streams_assignor import TASK_KINDS, parse_task_label, task_order
from .problems import GroupProblem, listed, member_label, state_problems
from .schema import (
    counts_field,
    epoch_group_header,
    list_field,
    mapping_field,
    optional_int,
    read_epoch_group_header,
    required_int,
    required_text,
    text_or_none,
)
from .share import spread

__all__ = ["StreamsGroupMember", "StreamsSnapshot", "label_order"]


def label_order(label: str) -> tuple[Any, ...]:
    """The order of task labels (``0_1``): sub-topology, then partition, as Kafka sorts; a label
    that spells no task (a corrupt capture's) after every task, by its text."""
    try:
        return task_order(parse_task_label(label))
    except ValueError:
        return (float("inf"), label, -1)


@dataclass(frozen=True)
class StreamsGroupMember:
    """A member of a Streams group as the broker describes it (the assignor's input is
    :class:`assignframe.streams_assignor.StreamsMember`)."""

    member_id: str
    client_id: str | None
    client_host: str | None
    process_id: str | None
    member_epoch: int
    tasks: dict[str, tuple[str, ...]]  # kind -> task ids ("0_1"), as held now
    target: dict[str, tuple[str, ...]]  # kind -> task ids, the broker's target


@dataclass
class StreamsSnapshot:
    """A Streams group as the broker described it.

    :param subtopologies: sub-topology id -> its source topics (empty: topology not described)
    :param partitions: topic -> partitions, as the cluster's metadata knew them
    :param stateful: the sub-topologies with state (changelog topics): they have standby tasks
    :param num_standby_replicas: the group's ``streams.num.standby.replicas``, None: not read
    :param task_lags: active task -> its lag (None: an input partition without a known lag)
    """

    group_id: str
    state: str | None
    group_epoch: int
    assignment_epoch: int
    topology_epoch: int | None
    assignor: str | None
    members: list[StreamsGroupMember]
    subtopologies: dict[str, tuple[str, ...]]
    task_lags: dict[str, int | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    partitions: dict[str, int] = field(default_factory=dict)
    stateful: tuple[str, ...] = ()
    num_standby_replicas: int | None = None
    observed_at: float | None = None

    group_type = "streams"

    def task_count(self, subtopology: str) -> int | None:
        """Its tasks: the most partitions of its source topics (None: a topic not sized)."""
        sizes = [self.partitions.get(t) for t in self.subtopologies.get(subtopology, ())]
        known = [n for n in sizes if n is not None]
        return max(known) if known and len(known) == len(sizes) else None

    def all_tasks(self) -> list[str]:
        """Every task of the topology (sub-topology x partitions of its source topics) that
        Metadata could size; tasks members hold are added when the topology was not read."""
        tasks = set()
        for subtopology in self.subtopologies:
            count = self.task_count(subtopology)
            if count:
                tasks |= {f"{subtopology}_{p}" for p in range(count)}
        tasks |= {t for m in self.members for t in m.target.get("active", ())}
        return sorted(tasks, key=label_order)

    def owners(self) -> dict[str, str]:
        """Active task -> the member holding it now (the watch history's ``moved`` events)."""
        return {t: m.member_id for m in self.members for t in m.tasks.get("active", ())}

    def unassigned(self) -> list[str]:
        held = {t for m in self.members for t in m.tasks.get("active", ())}
        return [t for t in self.all_tasks() if t not in held]

    def double_active(self) -> list[str]:
        """Active tasks two members hold at once (never right: one task, one active owner)."""
        seen: dict[str, int] = {}
        for m in self.members:
            for t in m.tasks.get("active", ()):
                seen[t] = seen.get(t, 0) + 1
        return sorted((t for t, n in seen.items() if n > 1), key=label_order)

    def spread(self, kind: str = "active") -> int | None:
        return spread([len(m.tasks.get(kind, ())) for m in self.members])

    def idle(self) -> list[StreamsGroupMember]:
        return [m for m in self.members if not m.tasks.get("active")]

    def reconciling(self) -> list[str]:
        """Members whose tasks are not their target, or whose epoch is short of the group's
        assignment epoch (one revoking tasks stays at its old epoch until it has given them
        up)."""
        return [m.member_id for m in self.members
                if m.tasks != m.target or m.member_epoch < self.assignment_epoch]

    def waited_for(self) -> dict[str, list[str]]:
        """member -> active tasks of its target that it does not hold yet because no member
        has released them (held by nobody in the describe: Kafka describes a member's
        assigned tasks without those pending revocation)."""
        held = {t for m in self.members for t in m.tasks.get("active", ())}
        waiting = {m.member_id: [t for t in m.target.get("active", ()) if t not in held]
                   for m in self.members}
        return {member: tasks for member, tasks in waiting.items() if tasks}

    def not_given_up(self) -> dict[str, list[str]]:
        """member -> the active tasks it still holds that its target gave to another: tasks
        shown held but not in its target, and the tasks others wait for, said of the members
        still at an epoch before the assignment epoch (the only ones that can be holding them:
        a member that has revoked everything it was asked to is moved to the new epoch)."""
        holding = {m.member_id: [t for t in m.tasks.get("active", ())
                                 if t not in m.target.get("active", ())] for m in self.members}
        waited = sorted({t for tasks in self.waited_for().values() for t in tasks},
                        key=label_order)
        if waited:
            for m in self.members:
                if m.member_epoch < self.assignment_epoch:
                    holding[m.member_id] = holding[m.member_id] + waited
        return {member: tasks for member, tasks in holding.items() if tasks}

    def member_lag(self, member: StreamsGroupMember) -> int | None:
        known = [lag for t in member.tasks.get("active", ())
                 if (lag := self.task_lags.get(t)) is not None]
        return sum(known) if known else None

    def total_lag(self) -> int | None:
        """The active tasks' lag summed; None when a task's is not known (or none is held)."""
        lags = list(self.task_lags.values())
        return sum(lag for lag in lags if lag is not None) if lags and None not in lags else None

    def subtopology_lags(self) -> dict[str, int | None]:
        lags: dict[str, int | None] = {}
        for task, lag in self.task_lags.items():
            subtopology = parse_task_label(task)[0]
            if lag is not None:
                lags[subtopology] = (lags.get(subtopology) or 0) + lag
            else:
                lags.setdefault(subtopology, None)
        return lags

    def problems(self) -> list[GroupProblem]:
        found: list[GroupProblem] = []
        unassigned, twice, idle = self.unassigned(), self.double_active(), self.idle()
        if unassigned:
            found.append(GroupProblem(f"{len(unassigned)} active task(s) held by no member: "
                                      + listed(unassigned), "unowned"))
        if twice:
            found.append(GroupProblem(f"{len(twice)} active task(s) held by two members: "
                                      + listed(twice), "double-owned"))
        if idle:
            found.append(GroupProblem(f"{len(idle)} member(s) without active tasks: "
                                      + listed([member_label(m.member_id, m.client_id)
                                                for m in idle]), "idle"))
        names = {m.member_id: m.client_id for m in self.members}
        holding = self.not_given_up()
        if holding:
            found.append(GroupProblem("holding tasks it has not given up: " + listed(
                [f"{member_label(member, names.get(member))} ({', '.join(tasks)})"
                 for member, tasks in holding.items()]), "reconciling"))
        waiting = self.waited_for()
        if waiting:
            found.append(GroupProblem("waiting for tasks not yet released: " + listed(
                [f"{member_label(member, names.get(member))} ({', '.join(tasks)})"
                 for member, tasks in waiting.items()]), "reconciling"))
        reconciling = self.reconciling()
        if reconciling:
            found.append(GroupProblem(f"{len(reconciling)} member(s) reconciling toward epoch "
                                      f"{self.assignment_epoch}", "reconciling"))
        return found + state_problems(self.state)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form: what was read, then the derived numbers (not read back)."""
        return {
            **epoch_group_header("streams", self),
            "topology_epoch": self.topology_epoch,
            "subtopologies": {s: list(t) for s, t in self.subtopologies.items()},
            "stateful": list(self.stateful), "num_standby_replicas": self.num_standby_replicas,
            "topic_partitions": self.partitions,
            "members": [{"member_id": m.member_id, "client_id": m.client_id,
                         "client_host": m.client_host,
                         "process_id": m.process_id, "member_epoch": m.member_epoch,
                         "tasks": {k: list(v) for k, v in m.tasks.items()},
                         "target": {k: list(v) for k, v in m.target.items()},
                         "lag": self.member_lag(m)} for m in self.members],
            "lag": {"tasks": self.task_lags, "subtopologies": self.subtopology_lags()},
            "notes": self.notes,
            "spread": {kind: self.spread(kind) for kind in TASK_KINDS},
            "unassigned": self.unassigned(), "idle": [m.member_id for m in self.idle()],
            "reconciling": self.reconciling(), "not_given_up": self.not_given_up(),
            "waited_for": self.waited_for(),
        }

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> StreamsSnapshot:
        """Read :meth:`as_dict`'s form back.

        :raises MalformedSnapshot: a field missing or of the wrong type (says which)
        """
        where, header = read_epoch_group_header(row, "Streams group")
        members = [_member(where, i, m) for i, m in enumerate(list_field(row, "members", where))]
        subtopologies = {}
        for s, topics in mapping_field(where, "subtopologies", row.get("subtopologies")).items():
            if not isinstance(topics, list):
                raise MalformedSnapshot(f"{where}: subtopologies[{s!r}] is not a list")
            subtopologies[str(s)] = tuple(str(t) for t in topics)
        lags = mapping_field(where, "lag", row.get("lag"))
        task_lags = {str(t): optional_int(where, f"lag.tasks[{t!r}]", v)
                     for t, v in mapping_field(where, "lag.tasks", lags.get("tasks")).items()}
        try:
            for task in task_lags:
                parse_task_label(task)
        except ValueError as exc:
            raise MalformedSnapshot(f"{where}: lag.tasks: {exc}") from None
        return cls(
            **header, members=members, subtopologies=subtopologies, task_lags=task_lags,
            topology_epoch=optional_int(where, "topology_epoch", row.get("topology_epoch")),
            notes=[str(n) for n in list_field(row, "notes", where)],
            partitions=counts_field(where, "topic_partitions", row.get("topic_partitions")),
            stateful=tuple(str(s) for s in list_field(row, "stateful", where)),
            num_standby_replicas=optional_int(where, "num_standby_replicas",
                                              row.get("num_standby_replicas")))


def _tasks(where: str, value: Any) -> dict[str, tuple[str, ...]]:
    tasks = {}
    for kind, labels in mapping_field(where, "tasks", value).items():
        if kind not in TASK_KINDS or not isinstance(labels, list):
            raise MalformedSnapshot(f"{where}: {kind!r} is not a task kind with a list of tasks")
        try:
            for label in labels:
                parse_task_label(str(label))
        except ValueError as exc:
            raise MalformedSnapshot(f"{where}: {exc}") from None
        tasks[kind] = tuple(sorted(map(str, labels), key=label_order))
    return tasks


def _member(where: str, index: int, raw: Any) -> StreamsGroupMember:
    if not isinstance(raw, Mapping):
        raise MalformedSnapshot(f"{where}: members[{index}] is not an object")
    member_id = required_text(raw, "member_id", f"{where} members[{index}]")
    at = f"{where} member {member_id!r}"
    return StreamsGroupMember(
        member_id, text_or_none(raw.get("client_id")), text_or_none(raw.get("client_host")),
        text_or_none(raw.get("process_id")), required_int(raw, "member_epoch", at),
        _tasks(f"{at} tasks", raw.get("tasks")), _tasks(f"{at} target", raw.get("target")))
