"""A member's assignment map as Kafka's server assignors build it, iterating as Java's does:
:class:`JavaAssignment` (the ``Map<Uuid, Set<Integer>>``) and :class:`AssignmentEdits` (a copy of
the current map edited in place, its operations replayed in Java's order when it matters)."""

from __future__ import annotations

from collections.abc import Sequence

from .tables import _DEFAULT_CAPACITY, JavaHashMap, JavaHashSet, Uuid, java_int_hash, uuid_hash

__all__ = ["AssignmentEdits", "JavaAssignment", "Partitions"]

_ADD, _REMOVE, _DROP = 0, 1, 2
Partitions = tuple[int, ...]


class JavaAssignment:
    """One member's ``Map<Uuid, Set<Integer>>`` as a server assignor builds it, iterating as
    Java's does: from nothing (``new HashMap<>(capacity)``) or from :meth:`deep_copy` of the
    current assignment, then the builder's operations in its order. :meth:`ordered` is the map
    the coordinator writes into the target-assignment record, whose order the next call sees.

    :param capacity: the ``initialCapacity`` of the ``HashMap``
    """

    __slots__ = ("_topics",)

    def __init__(self, capacity: int = _DEFAULT_CAPACITY) -> None:
        self._topics: JavaHashMap[Uuid, JavaHashSet[int] | Partitions] = JavaHashMap(
            uuid_hash, capacity
        )

    @classmethod
    def deep_copy(cls, current: Sequence[tuple[Uuid, Sequence[int]]]) -> JavaAssignment:
        """``AssignorHelpers.deepCopyAssignment``: ``new HashMap<>(size)`` of ``new
        HashSet<>(partitions)`` per topic, in ``current``'s order."""
        copy = cls(len(current))
        for topic_id, partitions in current:
            copy._topics.put(topic_id, JavaHashSet.copy_of(partitions, java_int_hash))
        return copy

    def put_range(self, topic_id: Uuid, partitions: Partitions) -> None:
        """``put(topic, new RangeSet(...))``: a range iterates in ascending order."""
        self._topics.put(topic_id, partitions)

    def drop(self, topic_id: Uuid) -> None:
        """``remove(topic)``."""
        self._topics.remove(topic_id)

    def remove(self, topic_id: Uuid, partition: int, drop_emptied: bool) -> None:
        """``get(topic).remove(partition)``; with ``drop_emptied``, ``remove(topic)`` once empty."""
        held = self._topics.get(topic_id)
        if isinstance(held, JavaHashSet):
            held.remove(partition)
            if drop_emptied and not len(held):
                self._topics.remove(topic_id)

    def add(self, topic_id: Uuid, partition: int, set_capacity: int) -> None:
        """``computeIfAbsent(topic, k -> new HashSet<>(set_capacity)).add(partition)``."""
        held = self._topics.compute_if_absent(
            topic_id, lambda _: JavaHashSet(java_int_hash, set_capacity)
        )
        assert isinstance(held, JavaHashSet), "add() on a range"
        held.add(partition)

    def ordered(self) -> dict[Uuid, Partitions]:
        """Topic id -> partitions, both in Java's iteration order."""
        return {
            topic_id: held if isinstance(held, tuple) else tuple(held.keys())
            for topic_id, held in self._topics.items()
        }


class AssignmentEdits:
    """A member's new assignment as Kafka's builders make it: a deep copy of the current map,
    then whole topics dropped, partitions removed and added. The sets are edited directly (the
    result) and the operations logged; :meth:`java_order` replays the log on a
    :class:`JavaAssignment`, which only chaining rounds exactly needs.

    :param current: the member's current assignment, ``(topic_id, partitions)`` in map order
    """

    __slots__ = ("current", "log", "topics")

    def __init__(self, current: Sequence[tuple[Uuid, Sequence[int]]]) -> None:
        self.current = current
        self.topics: dict[Uuid, set[int]] = {t: set(partitions) for t, partitions in current}
        self.log: list[tuple[int, Uuid, int, int]] = []

    def drop_topic(self, topic_id: Uuid) -> None:
        self.topics.pop(topic_id, None)
        self.log.append((_DROP, topic_id, -1, 0))

    def remove(self, topic_id: Uuid, partition: int) -> bool:
        """Remove a held partition (its topic stays, maybe empty); False if it is not held."""
        held = self.topics.get(topic_id)
        if held is None or partition not in held:
            return False
        held.discard(partition)
        self.log.append((_REMOVE, topic_id, partition, 0))
        return True

    def add(self, topic_id: Uuid, partition: int, set_capacity: int = _DEFAULT_CAPACITY) -> None:
        """Add a partition; a new topic's set starts as ``new HashSet<>(set_capacity)``."""
        self.topics.setdefault(topic_id, set()).add(partition)
        self.log.append((_ADD, topic_id, partition, set_capacity))

    def sorted(self) -> dict[Uuid, Partitions]:
        """The result: topic id -> ascending partitions (topics emptied by removals included)."""
        return {topic_id: tuple(sorted(held)) for topic_id, held in self.topics.items()}

    def java_order(self, drop_emptied: bool = False) -> dict[Uuid, Partitions]:
        """The result in Java's iteration order.

        :param drop_emptied: the builder removes a topic whose last partition it removes
            (the uniform builders do; the simple ones leave the empty set)
        """
        copy = JavaAssignment.deep_copy(self.current)
        for operation, topic_id, partition, set_capacity in self.log:
            if operation == _ADD:
                copy.add(topic_id, partition, set_capacity)
            elif operation == _REMOVE:
                copy.remove(topic_id, partition, drop_emptied)
            else:
                copy.drop(topic_id)
        return copy.ordered()
