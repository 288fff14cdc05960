"""``java.util.PriorityQueue`` (JDK 17): a binary heap whose ties fall where its sift steps leave
them, so "the least" of equal elements is whichever the heap's history put on top.

Kafka's Streams ``StickyTaskAssignor`` picks the least loaded process and member from such heaps;
reproducing its tie-breaks needs the same array, the same ``siftUp`` (stop at the first parent
not greater) and ``siftDown`` (take the right child only when the left is greater; stop when the
moved element is not greater than the child).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

__all__ = ["JavaPriorityQueue"]

T = TypeVar("T")


class JavaPriorityQueue(Generic[T]):
    """``new PriorityQueue<>(comparator)``; ``add_all`` adds one by one, as ``addAll`` does.

    :param compare: the comparator: negative, zero or positive, as Java's ``compare(a, b)``
    """

    __slots__ = ("_compare", "_heap")

    def __init__(self, compare: Callable[[T, T], int], items: Iterable[T] = ()) -> None:
        self._compare = compare
        self._heap: list[T] = []
        self.add_all(items)

    def __len__(self) -> int:
        return len(self._heap)

    def add_all(self, items: Iterable[T]) -> None:
        for item in items:
            self.add(item)

    def add(self, item: T) -> None:
        """``offer``: append, then sift up."""
        heap, compare = self._heap, self._compare
        heap.append(item)
        k = len(heap) - 1
        while k > 0:
            parent = (k - 1) >> 1
            if compare(item, heap[parent]) >= 0:
                break
            heap[k] = heap[parent]
            k = parent
        heap[k] = item

    def poll(self) -> T | None:
        """Remove and return the head (None when empty): the last element sifts down from the
        top."""
        heap = self._heap
        if not heap:
            return None
        head, last = heap[0], heap.pop()
        if heap:
            self._sift_down(last)
        return head

    def _sift_down(self, item: T) -> None:
        heap, compare = self._heap, self._compare
        n, k = len(heap), 0
        half = n >> 1
        while k < half:
            child = 2 * k + 1
            right = child + 1
            if right < n and compare(heap[child], heap[right]) > 0:
                child = right
            if compare(item, heap[child]) <= 0:
                break
            heap[k] = heap[child]
            k = child
        heap[k] = item
