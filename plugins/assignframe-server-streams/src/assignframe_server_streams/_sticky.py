"""Kafka 4.3.1's ``StickyTaskAssignor`` (group-coordinator ``streams.assignor``, name ``sticky``).

Quotas: each member may hold ``ceil(active tasks / members)`` active tasks and
``ceil(all tasks / members)`` tasks in all (standbys count ``num_standby_replicas`` per stateful
task); when a member reaches a quota exactly, it leaves the pool and the quota is recomputed over
the rest (Java's integer arithmetic).

Active tasks, sorted by (partition, sub-topology): (1) back to their previous active owner while it
is under the active quota; (2) to the least loaded previous standby owner (Kafka's odd pick,
reproduced: only a process strictly less loaded *and* a member strictly less loaded replace the
first candidate); (3) the rest, sorted by (sub-topology, partition), each to the least loaded
process (a ``PriorityQueue`` by load) and in it to the least loaded member (another heap).
Standby tasks of stateful sub-topologies, sorted by (partition, sub-topology) descending, per
replica: the previous active owner, then a previous standby owner, if the process does not hold
the task and the member is under the total quota; what is left, sorted by (sub-topology,
partition) descending, goes to the least loaded processes that do not hold the task (Kafka logs a
warning and leaves replicas out when none is left).

Iteration orders Java's ties follow, replayed: the members' ``HashMap<String, ...>`` (filled in
the listed order), the processes' ``HashMap<String, ProcessState>(members)``, each process's
``HashMap<String, Integer>`` of member task counts, and both heaps
(:class:`assignframe.javaorder.JavaPriorityQueue`).
"""

from __future__ import annotations

from typing import NamedTuple

from assignframe.javaorder import (
    JavaHashMap,
    JavaPriorityQueue,
    java_string_hash,
    java_string_key,
)
from assignframe.streams_assignor import (
    MemberTasks,
    StreamsGroupSpec,
    StreamsMember,
    StreamsTaskAssignment,
    StreamsTaskAssignor,
    TaskId,
    task_label,
)

from ._process import Process, compare_load

__all__ = ["StickyTaskAssignor", "TaskAssignorFailure"]


class TaskAssignorFailure(RuntimeError):
    """Kafka's assignor throws ``TaskAssignorException`` on this group (tasks and no member)."""


class _Member(NamedTuple):
    process_id: str
    member_id: str


def _java_div(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


def tasks_per_member(tasks: int, members: int) -> int:
    """``computeTasksPerMember``: ``tasks / members``, plus one when ``tasks % members > 0``
    (Java's truncating division and remainder); 0 without members."""
    if members == 0:
        return 0
    quotient = _java_div(tasks, members)
    return quotient + 1 if tasks - quotient * members > 0 else quotient


def _by_partition(task: TaskId) -> tuple:
    return task[1], java_string_key(task[0])


def _by_subtopology(task: TaskId) -> tuple:
    return java_string_key(task[0]), task[1]


class _Run:
    """One ``assign`` call's local state (Java's ``LocalState``)."""

    def __init__(self, group: StreamsGroupSpec) -> None:
        self.standby_replicas = group.num_standby_replicas
        self.group = group
        self.active_tasks: list[TaskId] = []
        self.stateful_tasks: list[TaskId] = []
        total_tasks = 0
        for sub in group.subtopologies:
            tasks = [(sub.subtopology_id, p) for p in range(sub.partitions)]
            self.active_tasks += tasks
            total_tasks += sub.partitions
            if sub.stateful:
                self.stateful_tasks += tasks
                total_tasks += sub.partitions * self.standby_replicas
        self.total_active = len(self.active_tasks)
        self.total_tasks = total_tasks
        self.active_capacity = self.task_capacity = len(group.members)
        self.active_quota = tasks_per_member(self.total_active, self.active_capacity)
        self.total_quota = tasks_per_member(self.total_tasks, self.task_capacity)
        self._index_members()

    def _index_members(self) -> None:
        specs: JavaHashMap[str, StreamsMember] = JavaHashMap(java_string_hash)
        for member in self.group.members:
            specs.put(member.member_id, member)
        self.member_order = specs.keys()
        self.processes: JavaHashMap[str, Process] = JavaHashMap(
            java_string_hash, len(self.group.members)
        )
        self.prev_active: dict[TaskId, _Member] = {}
        self.prev_standby: dict[TaskId, list[_Member]] = {}
        for member_id in self.member_order:
            spec = specs[member_id]
            member = _Member(spec.process_id, member_id)
            self.processes.put_if_absent(spec.process_id, Process(spec.process_id))
            self.processes[spec.process_id].add_member(member_id)
            for task in spec.current.active:
                self.prev_active[task] = member
            for task in spec.current.standby:
                self.prev_standby.setdefault(task, []).append(member)

    # -- quotas ---------------------------------------------------------------------------------

    def _reached(self, count: int, active: bool) -> None:
        if active and count == self.active_quota:
            self.active_capacity -= 1
            self.total_active -= count
            self.active_quota = tasks_per_member(self.total_active, self.active_capacity)
        if count == self.total_quota:
            self.task_capacity -= 1
            self.total_tasks -= count
            self.total_quota = tasks_per_member(self.total_tasks, self.task_capacity)

    def _count(self, member: _Member) -> int:
        return self.processes[member.process_id].member_counts[member.member_id]

    def _give(self, member: _Member, task: TaskId, active: bool) -> None:
        count = self.processes[member.process_id].add_task(member.member_id, task, active)
        self._reached(count, active)

    # -- active tasks ---------------------------------------------------------------------------

    def assign_active(self) -> None:
        tasks = sorted(self.active_tasks, key=_by_partition)
        tasks = [t for t in tasks if not self._kept(self.prev_active.get(t), t)]
        tasks = [t for t in tasks if not self._kept(self._least_loaded_prev(t, None), t)]
        by_load = JavaPriorityQueue(compare_load, [p for _, p in self.processes.items()])
        for task in sorted(tasks, key=_by_subtopology):
            process = by_load.poll()
            if process is None:
                raise TaskAssignorFailure(
                    f"No process available to assign active task {task_label(task)}."
                )
            count = process.add_task_to_least_loaded(task, True)
            if count == -1:
                raise TaskAssignorFailure(
                    f"No member available to assign active task {task_label(task)}."
                )
            self._reached(count, True)
            by_load.add(process)

    def _kept(self, member: _Member | None, task: TaskId) -> bool:
        if member is None or self._count(member) >= self.active_quota:
            return False
        self._give(member, task, True)
        return True

    def _least_loaded_prev(self, task: TaskId, holder_check: TaskId | None) -> _Member | None:
        """``findPrevMemberWithLeastLoad`` over the task's previous standby owners."""
        members = self.prev_standby.get(task)
        if not members:
            return None
        candidate = members[0]
        first_process = self.processes[candidate.process_id]
        best_process_load = first_process.load
        best_member_load = float(first_process.member_counts[candidate.member_id])
        for member in members[1:]:
            process = self.processes[member.process_id]
            if process.load < best_process_load and (
                holder_check is None or not process.has_task(holder_check)
            ):
                member_load = process.member_counts[member.member_id]
                if member_load < best_member_load:
                    best_process_load, best_member_load = process.load, float(member_load)
                    candidate = member
        # Java checks the first candidate's process here, whoever won (reproduced).
        if holder_check is None or not first_process.has_task(holder_check):
            return candidate
        return None

    # -- standby tasks --------------------------------------------------------------------------

    def assign_standby(self) -> None:
        to_least_loaded: list[tuple[TaskId, int]] = []
        for task in sorted(self.stateful_tasks, key=_by_partition, reverse=True):
            for replica in range(self.standby_replicas):
                if self._standby_to_previous(task):
                    continue
                to_least_loaded.append((task, self.standby_replicas - replica))
                break
        to_least_loaded.sort(key=lambda entry: _by_subtopology(entry[0]), reverse=True)
        by_load = JavaPriorityQueue(compare_load, [p for _, p in self.processes.items()])
        for task, remaining in to_least_loaded:
            for _ in range(remaining):
                if not self._standby_to_least_loaded(by_load, task):
                    break  # Kafka logs "not enough available capacity" and moves on

    def _standby_to_previous(self, task: TaskId) -> bool:
        owner = self.prev_active.get(task)
        if owner is not None:
            process = self.processes[owner.process_id]
            if not process.has_task(task) and self._count(owner) < self.total_quota:
                self._give(owner, task, False)
                return True
        if self.prev_standby.get(task):
            owner = self._least_loaded_prev(task, task)
            if owner is not None and self._count(owner) < self.total_quota:
                self._give(owner, task, False)
                return True
        return False

    def _standby_to_least_loaded(self, by_load: JavaPriorityQueue[Process], task: TaskId) -> bool:
        """``assignStandbyToMemberWithLeastLoad``: pop processes until one lacks the task, give
        it there, and push them all back (the last popped first, as the recursion unwinds)."""
        polled: list[Process] = []
        found = False
        while True:
            process = by_load.poll()
            if process is None:
                break
            polled.append(process)
            if not process.has_task(task):
                count = process.add_task_to_least_loaded(task, False)
                if count != -1:
                    found = True
                    self._reached(count, False)
                break
            if not len(by_load):
                break
        for process in reversed(polled):
            by_load.add(process)
        return found

    # -- result ---------------------------------------------------------------------------------

    def result(self) -> StreamsTaskAssignment:
        active: dict[str, set[TaskId]] = {}
        standby: dict[str, set[TaskId]] = {}
        for process in [p for _, p in self.processes.items()]:
            for member_id, tasks in process.active.items():
                active.setdefault(member_id, set()).update(tasks)
            for member_id, tasks in process.standby.items():
                standby.setdefault(member_id, set()).update(tasks)
        return StreamsTaskAssignment(
            {
                m.member_id: MemberTasks(active.get(m.member_id, ()), standby.get(m.member_id, ()))
                for m in self.group.members
            }
        )


class StickyTaskAssignor(StreamsTaskAssignor):
    """Kafka 4.3.1's Streams ``StickyTaskAssignor`` (see the module docstring)."""

    name = "sticky"
    option_defaults: dict = {}

    def assign(self, group: StreamsGroupSpec) -> StreamsTaskAssignment:
        run = _Run(group)
        run.assign_active()
        if run.standby_replicas > 0:
            run.assign_standby()
        return run.result()
