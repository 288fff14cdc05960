"""The JDK 17 behaviour Java's assignors and group coordinator inherit: orders, hashes, tables.

For strategies (and tools) that must reproduce Java's output exactly: the client's range and
roundrobin, the coordinator's protocol election, and the KIP-848 server assignors
(``uniform``, the server ``range``, ``simple``), whose tie-breaks follow the iteration order of
``java.util.HashMap``/``HashSet``. What matters, in short:

* ``String.compareTo`` compares UTF-16 code units, not code points, so a topic named ``"😀"``
  (surrogates ``D83D DE00``) sorts *before* ``"Ａ"`` (``FF21``) in Java but after it in Python
  (:func:`java_string_key`). ``String.hashCode`` works on the same units (:func:`java_string_hash`).
* Kafka's ``Uuid`` (:class:`Uuid`) is two signed 64-bit halves: ``compareTo`` compares them as
  SIGNED longs, ``hashCode`` folds ``msb ^ lsb`` to 32 bits. ``Integer.hashCode`` is the value,
  ``TopicIdPartition`` hashes to ``31 * topicId.hashCode() + partition``.
* A ``HashMap`` iterates bucket by bucket (bucket = ``(h ^ (h >>> 16)) & (length - 1)``), each
  bucket in chain order. :class:`JavaHashMap` replays the table operations that decide that
  order: ``put`` appends to the chain and doubles the table *after* inserting when
  ``size > 0.75 * length``; ``computeIfAbsent`` doubles *before* looking the key up (so even for a
  key already there) and puts a new key at the chain's *head*; doubling splits each chain
  keeping relative order; a chain growing to 9 (``put``) or 8 (``computeIfAbsent``) nodes
  doubles a table shorter than 64.
* Initial table lengths (:func:`table_size_for` and the ``*_capacity`` helpers): ``new
  HashMap<>()`` 16, ``new HashMap<>(n)`` the next power of two ``>= n``, ``new HashSet<>(c)``
  sized for ``max((int) (c.size() / .75f) + 1, 16)`` (JDK 17; JDK 19+ sizes it differently),
  ``AssignorHelpers.newHashMap(n)`` for ``(int) (((n + 1) / 0.75f) + 1)``.

``java.util.PriorityQueue`` (:class:`JavaPriorityQueue`): ties go where its sift steps leave
them (Kafka's Streams task assignor picks least-loaded processes and members from such heaps).

Not modelled: red-black tree bins (a chain of 9+ keys in a table of 64+). Their iteration order
differs from chain order; :attr:`JavaHashMap.has_treebin` says when a table would have one, so a
caller can tell that its order may differ from Java's there.
"""

from __future__ import annotations

from .assignments import AssignmentEdits, JavaAssignment
from .orders import java_hash_order, java_member_order, java_sorted_hash_order
from .queues import JavaPriorityQueue
from .tables import (
    JavaHashMap,
    JavaHashSet,
    Uuid,
    assignor_helpers_capacity,
    hash_set_copy_capacity,
    hash_set_copy_order,
    java_int_hash,
    java_string_hash,
    java_string_key,
    member_sort_key,
    table_size_for,
    topic_id_partition_hash,
    uuid_hash,
)

__all__ = [
    "AssignmentEdits",
    "JavaAssignment",
    "JavaHashMap",
    "JavaHashSet",
    "JavaPriorityQueue",
    "Uuid",
    "assignor_helpers_capacity",
    "hash_set_copy_capacity",
    "hash_set_copy_order",
    "java_hash_order",
    "java_int_hash",
    "java_member_order",
    "java_sorted_hash_order",
    "java_string_hash",
    "java_string_key",
    "member_sort_key",
    "table_size_for",
    "topic_id_partition_hash",
    "uuid_hash",
]
