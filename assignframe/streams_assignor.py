"""The broker-side task assignor of Streams groups (KIP-1071), as a plugin kind.

A Streams group's coordinator assigns *tasks*, not partitions: a task is a sub-topology id and a
partition number (``("0", 3)``, shown ``0_3``), one per input partition of the sub-topology. A
member (one Kafka Streams thread) runs in a *process* (its ``process_id``, one per
``KafkaStreams`` instance); it gets *active* tasks, *standby* tasks (copies of a stateful task's
state, never on the process running the task) and *warm-up* tasks. The assignor sees each member's
current target tasks and returns the new ones.

A Streams task assignor is a class with a ``name`` (the broker's, ``group.streams.assignors``)
and an ``assign`` method, registered like any strategy and shown as ``streams:<name>``::

    from assignframe import hookimpl
    from assignframe.streams_assignor import (
        MemberTasks, StreamsTaskAssignment, StreamsTaskAssignor,
    )

    class NothingToAnyone(StreamsTaskAssignor):
        name = "nothing"

        def assign(self, group):
            return StreamsTaskAssignment({m.member_id: MemberTasks() for m in group.members})

    @hookimpl
    def register_strategies(registry):
        registry.add(NothingToAnyone)
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .configurable import Configurable

__all__ = [
    "STREAMS_GROUP",
    "STREAMS_PREFIX",
    "TASK_KINDS",
    "MemberTasks",
    "StreamsGroupSpec",
    "StreamsMember",
    "StreamsTaskAssignment",
    "StreamsTaskAssignor",
    "Subtopology",
    "TaskId",
    "parse_task_label",
    "streams_name",
    "task_label",
    "task_order",
]

STREAMS_GROUP = "streams"
#: Prefix of every Streams task assignor's qualified name (``streams:sticky``).
STREAMS_PREFIX = "streams:"
#: The kinds of task a Streams member holds (KIP-1071), in the order Kafka lists them.
TASK_KINDS = ("active", "standby", "warmup")

#: A task: (sub-topology id, partition).
TaskId = tuple[str, int]


def streams_name(name: str) -> str:
    """Qualified name of the Streams task assignor ``name`` (``sticky`` -> ``streams:sticky``)."""
    return name if name.startswith(STREAMS_PREFIX) else STREAMS_PREFIX + name


def task_label(task: TaskId) -> str:
    """Kafka's spelling of a task (``TaskId.toString()``): ``<subtopology>_<partition>``."""
    return f"{task[0]}_{task[1]}"


def parse_task_label(label: str) -> TaskId:
    """The task a :func:`task_label` spells (a sub-topology id may itself hold ``_``, or be
    empty: the describe carries whatever string the topology gave).

    :raises ValueError: no ``_<partition>`` at its end
    """
    subtopology, underscore, partition = label.rpartition("_")
    if not underscore or not (partition.isascii() and partition.isdecimal()):
        raise ValueError(f"not a task label <subtopology>_<partition>: {label!r}")
    return subtopology, int(partition)


def task_order(task: TaskId) -> tuple[Any, ...]:
    """The one order of tasks, for the assignor's results and for what ``inspect`` shows:
    sub-topologies by number (``2`` before ``10``; named ones after, by name), then partition."""
    subtopology, partition = task
    number = subtopology.isascii() and subtopology.isdecimal()
    return (int(subtopology) if number else float("inf"), subtopology, partition)


def _tasks(tasks: Iterable[TaskId]) -> tuple[TaskId, ...]:
    return tuple(sorted({(str(s), int(p)) for s, p in tasks}, key=task_order))


@dataclass(frozen=True)
class Subtopology:
    """One sub-topology: its id, its task count (the most partitions of its input topics) and
    whether it keeps state (then it has standby tasks)."""

    subtopology_id: str
    partitions: int
    stateful: bool = False


@dataclass(frozen=True)
class MemberTasks:
    """A member's tasks by kind (each sorted by sub-topology id, then partition)."""

    active: tuple[TaskId, ...] = ()
    standby: tuple[TaskId, ...] = ()
    warmup: tuple[TaskId, ...] = ()

    def __post_init__(self) -> None:
        for kind in TASK_KINDS:
            object.__setattr__(self, kind, _tasks(getattr(self, kind)))


@dataclass(frozen=True)
class StreamsMember:
    """A member as the assignor sees it: its process and its current target tasks."""

    member_id: str
    process_id: str
    current: MemberTasks = field(default_factory=MemberTasks)
    instance_id: str | None = None
    rack: str | None = None


@dataclass(frozen=True)
class StreamsGroupSpec:
    """The assignor's input.

    :param members: in the order the coordinator puts them into its ``HashMap`` of member specs
        (it decides ties only where member ids collide in that map)
    :param subtopologies: the topology (its order does not matter)
    :param num_standby_replicas: the group's ``streams.num.standby.replicas``
    """

    members: tuple[StreamsMember, ...]
    subtopologies: tuple[Subtopology, ...]
    num_standby_replicas: int = 0

    def __post_init__(self) -> None:
        ids = [m.member_id for m in self.members]
        if len(set(ids)) != len(ids):
            raise ValueError("a member id is listed twice")
        if self.num_standby_replicas < 0:
            raise ValueError("num_standby_replicas must be >= 0")


@dataclass(frozen=True)
class StreamsTaskAssignment:
    """Member id -> its new tasks (every member of the group)."""

    members: Mapping[str, MemberTasks]


class StreamsTaskAssignor(Configurable, abc.ABC):
    """Base class of every Streams task assignor (see the module docstring)."""

    #: The broker's name for it; shown as ``streams:<name>``.
    name: ClassVar[str]
    _kind: ClassVar[str] = "Streams task assignor"
    group_types: ClassVar[tuple[str, ...]] = (STREAMS_GROUP,)

    @classmethod
    def qualified_name(cls) -> str:
        """``streams:<name>``, the name the registry and the CLI use."""
        return streams_name(cls.name)

    @abc.abstractmethod
    def assign(self, group: StreamsGroupSpec) -> StreamsTaskAssignment:
        """The new tasks of every member of ``group``; must be deterministic."""
