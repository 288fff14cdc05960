"""One Kafka Streams process (a ``KafkaStreams`` instance) while tasks are handed out: its members
(threads), their task counts, and the heap that picks its least loaded member (Kafka's
``streams.assignor.ProcessState``)."""

from __future__ import annotations

from assignframe.javaorder import JavaHashMap, JavaPriorityQueue, java_string_hash
from assignframe.streams_assignor import TaskId

__all__ = ["Process", "compare_load"]

#: ``Double.MAX_VALUE``: a process's load before its first member joins.
_NO_MEMBERS_LOAD = 1.7976931348623157e308


def _compare_counts(a: list, b: list) -> int:
    """``Map.Entry.comparingByValue()`` on ``[member id, task count]`` entries."""
    return (a[1] > b[1]) - (a[1] < b[1])


def compare_load(a: Process, b: Process) -> int:
    """``Comparator.comparingDouble(ProcessState::load)``."""
    return (a.load > b.load) - (a.load < b.load)


class Process:
    """A process's members and tasks; :meth:`add_task` and :meth:`add_task_to_least_loaded`
    return the member's new task count, as Java's do."""

    def __init__(self, process_id: str) -> None:
        self.process_id = process_id
        self.capacity = 0
        self.task_count = 0
        self.load = _NO_MEMBERS_LOAD
        #: ``HashMap<String, Integer>`` (default size): its iteration order fills the heap.
        self.member_counts: JavaHashMap[str, int] = JavaHashMap(java_string_hash)
        self.active: dict[str, set[TaskId]] = {}
        self.standby: dict[str, set[TaskId]] = {}
        self.tasks: set[TaskId] = set()
        self._members_by_load: JavaPriorityQueue[list] | None = None

    def add_member(self, member_id: str) -> None:
        self.member_counts.put(member_id, 0)
        self.capacity += 1
        self._compute_load()

    def has_task(self, task: TaskId) -> bool:
        return task in self.tasks

    def add_task(self, member_id: str, task: TaskId, active: bool) -> int:
        """To this member; the member heap is dropped (rebuilt on the next least-loaded pick)."""
        count = self._add(member_id, task, active)
        self._members_by_load = None
        return count

    def add_task_to_least_loaded(self, task: TaskId, active: bool) -> int:
        """To the member on top of the heap (-1 when the process has no member)."""
        if not len(self.member_counts):
            return -1
        if len(self.member_counts) == 1:
            return self._add(self.member_counts.keys()[0], task, active)
        if self._members_by_load is None:
            self._members_by_load = JavaPriorityQueue(
                _compare_counts, ([m, c] for m, c in self.member_counts.items())
            )
        entry = self._members_by_load.poll()
        assert entry is not None  # the heap holds every member
        entry[1] = self._add(entry[0], task, active)
        self._members_by_load.add(entry)
        return entry[1]

    def _add(self, member_id: str, task: TaskId, active: bool) -> int:
        self.task_count += 1
        self.tasks.add(task)
        (self.active if active else self.standby).setdefault(member_id, set()).add(task)
        count = self.member_counts[member_id] + 1
        self.member_counts.put(member_id, count)
        self._compute_load()
        return count

    def _compute_load(self) -> None:
        self.load = -1.0 if self.capacity <= 0 else self.task_count / self.capacity
