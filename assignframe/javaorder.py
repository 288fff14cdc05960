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
  ``size > 0.75 * length``; ``computeIfAbsent`` doubles *before* inserting and puts the new key at
  the chain's *head*; doubling splits each chain keeping relative order; a chain growing to 9
  (``put``) or 8 (``computeIfAbsent``) nodes doubles a table shorter than 64.
* Initial table lengths (:func:`table_size_for` and the ``*_capacity`` helpers): ``new
  HashMap<>()`` 16, ``new HashMap<>(n)`` the next power of two ``>= n``, ``new HashSet<>(c)``
  sized for ``max((int) (c.size() / .75f) + 1, 16)`` (JDK 17; JDK 19+ sizes it differently),
  ``AssignorHelpers.newHashMap(n)`` for ``(int) (((n + 1) / 0.75f) + 1)``.

Not modelled: red-black tree bins (a chain of 9+ keys in a table of 64+). Their iteration order
differs from chain order; :attr:`JavaHashMap.has_treebin` says when a table would have one, so a
caller can tell that its order may differ from Java's there.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

# The codec sorts topics on the wire by the same rule: it is declared there, below the core.
from assignframe_codec import java_string_key

__all__ = [
    "AssignmentEdits",
    "JavaAssignment",
    "JavaHashMap",
    "JavaHashSet",
    "Uuid",
    "assignor_helpers_capacity",
    "hash_set_copy_capacity",
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

_DEFAULT_CAPACITY = 16
_MASK32 = 0xFFFFFFFF
_TREEIFY_THRESHOLD = 8
_MIN_TREEIFY_CAPACITY = 64

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


# -- String -----------------------------------------------------------------------------------


def member_sort_key(member_id: str, group_instance_id: str | None) -> tuple[int, bytes]:
    """Java's ``MemberInfo.compareTo``: static members first, by instance id; then by member id."""
    if group_instance_id is not None:
        return (0, java_string_key(group_instance_id))
    return (1, java_string_key(member_id))


# Java caches a String's hash in the String itself; this cache plays that part for the ids and
# topic names an assignor sees again and again.
@functools.lru_cache(maxsize=1 << 17)
def java_string_hash(text: str) -> int:
    """``String.hashCode()`` as an unsigned 32-bit int (``s[0]*31^(n-1) + ... + s[n-1]``)."""
    encoded = java_string_key(text)
    value = 0
    for i in range(0, len(encoded), 2):
        value = (value * 31 + (encoded[i] << 8 | encoded[i + 1])) & _MASK32
    return value


# -- Integer, Uuid, TopicIdPartition ------------------------------------------------------------


def java_int_hash(value: int) -> int:
    """``Integer.hashCode()`` (the value) as an unsigned 32-bit int."""
    return value & _MASK32


def _signed64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


class Uuid(NamedTuple):
    """Kafka's ``org.apache.kafka.common.Uuid``: 16 bytes as two SIGNED 64-bit halves.

    Ordering is ``Uuid.compareTo`` (``msb`` then ``lsb``, signed, so ids whose first byte is
    0x80 or more sort first); ``str()`` is ``Uuid.toString()`` (URL-safe base64, no padding).
    A named tuple: assignors key dicts by topic id constantly, and a tuple's hash, equality and
    ordering run in C (the tuple order is exactly Java's signed ``compareTo``).

    :param msb: bytes 0-7, big-endian, signed
    :param lsb: bytes 8-15, big-endian, signed
    """

    msb: int
    lsb: int

    @classmethod
    def from_bytes(cls, raw: bytes) -> Uuid:
        """The id whose 16 wire bytes are ``raw``.

        :raises ValueError: ``raw`` is not 16 bytes long
        """
        if len(raw) != 16:
            raise ValueError(f"a Uuid is 16 bytes, got {len(raw)}")
        return cls(
            _signed64(int.from_bytes(raw[:8], "big")), _signed64(int.from_bytes(raw[8:], "big"))
        )

    @classmethod
    def from_string(cls, text: str) -> Uuid:
        """Parse ``Uuid.toString()`` form (22 URL-safe base64 characters).

        :raises ValueError: ``text`` is not 22 base64url characters encoding 16 bytes
        """
        if not isinstance(text, str) or len(text) != 22:
            raise ValueError(f"a Uuid string is 22 base64url characters, got {text!r}")
        try:
            raw = base64.urlsafe_b64decode(text + "==")
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{text!r} is not base64url: {exc}") from None
        if base64.urlsafe_b64encode(raw).rstrip(b"=").decode() != text:
            raise ValueError(f"{text!r} is not the canonical form of a Uuid")
        return cls.from_bytes(raw)

    def to_bytes(self) -> bytes:
        mask = (1 << 64) - 1
        return (self.msb & mask).to_bytes(8, "big") + (self.lsb & mask).to_bytes(8, "big")

    def __str__(self) -> str:
        return base64.urlsafe_b64encode(self.to_bytes()).rstrip(b"=").decode()

    @property
    def java_hash(self) -> int:
        """``Uuid.hashCode()`` as an unsigned 32-bit int: ``(int) (x >> 32) ^ (int) x``."""
        folded = (self.msb ^ self.lsb) & (1 << 64) - 1
        return ((folded >> 32) ^ folded) & _MASK32


def uuid_hash(topic_id: Uuid) -> int:
    """``Uuid.hashCode()``: the ``hash_code`` of Java tables keyed by topic id."""
    return topic_id.java_hash


def topic_id_partition_hash(key: tuple[Uuid, int]) -> int:
    """``TopicIdPartition(topicId, partition).hashCode()``: ``31 * topicId.hashCode() + p``."""
    topic_id, partition = key
    return (31 * topic_id.java_hash + partition) & _MASK32


# -- table sizes --------------------------------------------------------------------------------


def table_size_for(capacity: int) -> int:
    """``HashMap.tableSizeFor``: the next power of two ``>= capacity`` (1 for 0 or less)."""
    return 1 if capacity <= 1 else 1 << (capacity - 1).bit_length()


def hash_set_copy_capacity(size: int) -> int:
    """Table length of JDK 17's ``new HashSet<>(c)`` for ``c.size() == size``."""
    # (int) (size / .75f) is exact here: 4*size/3 is never within float error of an integer.
    return table_size_for(max(size * 4 // 3 + 1, _DEFAULT_CAPACITY))


def assignor_helpers_capacity(size: int) -> int:
    """Table length of ``AssignorHelpers.newHashMap(size)`` / ``newHashSet(size)``."""
    return table_size_for((size + 1) * 4 // 3 + 1)


# -- HashMap / HashSet --------------------------------------------------------------------------


def _spread(hashed: int) -> int:
    return hashed ^ (hashed >> 16)


class JavaHashMap(Generic[K, V]):
    """A dict that also iterates exactly like a JDK 17 ``java.util.HashMap`` (see module doc).

    :param hash_code: the keys' Java ``hashCode()`` as an unsigned 32-bit int
    :param capacity: the ``initialCapacity`` given to the constructor (16 = ``new HashMap<>()``)
    """

    __slots__ = ("_capacity", "_hash_code", "_hashes", "_table", "_values", "has_treebin")

    def __init__(self, hash_code: Callable[[K], int], capacity: int = _DEFAULT_CAPACITY) -> None:
        self._hash_code = hash_code
        self._capacity = table_size_for(capacity)  # table is allocated on the first insert
        self._table: list[list[K]] | None = None
        self._values: dict[K, V] = {}
        self._hashes: dict[K, int] = {}
        #: True once a chain grew long enough that Java would have made a tree bin of it.
        self.has_treebin = False

    # reading
    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def __iter__(self) -> Iterator[K]:
        return iter(self.keys())

    def __getitem__(self, key: K) -> V:
        return self._values[key]

    def get(self, key: K, default: Any = None) -> Any:
        return self._values.get(key, default)

    def keys(self) -> list[K]:
        """The keys in Java iteration order (a snapshot)."""
        if self._table is None:
            return []
        return [key for chain in self._table if chain for key in chain]

    def items(self) -> list[tuple[K, V]]:
        values = self._values
        return [(key, values[key]) for key in self.keys()]

    # writing
    def put(self, key: K, value: V) -> None:
        """``put``: a new key goes to the chain's tail; the table doubles after the insert."""
        if key in self._values:
            self._values[key] = value
            return
        chain = self._chain_for(key)
        chain.append(key)
        self._values[key] = value
        if len(chain) > _TREEIFY_THRESHOLD:
            self._treeify_or_grow()
        if len(self._values) > self._threshold:
            self._resize()

    def put_if_absent(self, key: K, value: V) -> None:
        """``putIfAbsent``: like :meth:`put` for a new key, nothing for an existing one."""
        if key not in self._values:
            self.put(key, value)

    def compute_if_absent(self, key: K, factory: Callable[[K], V]) -> V:
        """``computeIfAbsent``: the table doubles *before* the insert; the key goes to the head."""
        found = self._values.get(key)
        if found is not None:
            return found
        if self._table is None or len(self._values) > self._threshold:
            self._resize()
        value = factory(key)
        chain = self._chain_for(key)
        chain.insert(0, key)
        self._values[key] = value
        if len(chain) >= _TREEIFY_THRESHOLD:
            self._treeify_or_grow()
        return value

    def remove(self, key: K) -> V | None:
        """``remove``: unlink ``key`` (None if absent); the table never shrinks."""
        if key not in self._values:
            return None
        assert self._table is not None
        self._table[self._hashes[key] & (len(self._table) - 1)].remove(key)
        del self._hashes[key]
        return self._values.pop(key)

    # table
    @property
    def _threshold(self) -> int:
        return (len(self._table) if self._table is not None else 0) * 3 // 4

    def _chain_for(self, key: K) -> list[K]:
        if self._table is None:
            self._resize()
        assert self._table is not None
        hashed = self._hashes[key] = _spread(self._hash_code(key))
        return self._table[hashed & (len(self._table) - 1)]

    def _treeify_or_grow(self) -> None:
        assert self._table is not None
        if len(self._table) < _MIN_TREEIFY_CAPACITY:
            self._resize()
        else:
            self.has_treebin = True

    def _resize(self) -> None:
        if self._table is None:
            self._table = [[] for _ in range(self._capacity)]
            return
        length = len(self._table) * 2
        mask = length - 1
        table: list[list[K]] = [[] for _ in range(length)]
        hashes = self._hashes
        for chain in self._table:
            for key in chain:  # each chain splits in two, both halves keep their order
                table[hashes[key] & mask].append(key)
        self._table = table


class JavaHashSet(JavaHashMap[K, None]):
    """A ``java.util.HashSet``: a :class:`JavaHashMap` whose values are unused."""

    __slots__ = ()

    @classmethod
    def copy_of(
        cls, keys: Iterable[K], hash_code: Callable[[K], int], size: int | None = None
    ) -> JavaHashSet[K]:
        """JDK 17 ``new HashSet<>(c)``: sized for ``c`` and filled in ``c``'s order.

        :param size: what ``c.size()`` reports, when it is not the number of keys ``c`` yields
            (a member's ``subscribedTopicIds()`` counts names of missing topics too)
        """
        keys = list(keys)
        copy = cls(hash_code, hash_set_copy_capacity(len(keys) if size is None else size))
        if copy._capacity >= _MIN_TREEIFY_CAPACITY and len(keys) <= copy._capacity * 3 // 4:
            copy._fill_presized(keys)  # no resize can happen: same order, less bookkeeping
            return copy
        for key in keys:
            copy.add(key)
        return copy

    def _fill_presized(self, keys: list[K]) -> None:
        """``put`` each key into a fresh table that is large enough for all of them."""
        mask = self._capacity - 1
        table: list[list[K]] = [[] for _ in range(self._capacity)]
        hashes, values, hash_code = self._hashes, self._values, self._hash_code
        for key in keys:
            if key not in values:
                hashed = hashes[key] = _spread(hash_code(key))
                values[key] = None
                table[hashed & mask].append(key)
        self._table = table
        self.has_treebin = any(len(chain) > _TREEIFY_THRESHOLD for chain in table)

    def add(self, key: K) -> None:
        self.put(key, None)


# -- orders built on the above ------------------------------------------------------------------


def java_hash_order(keys_in_insertion_order: Iterable[str]) -> list[str]:
    """Iteration order of a default ``HashMap<String, ?>``/``HashSet`` filled with these keys.

    Buckets are visited in index order (the spread hash masked by the final table length); keys
    sharing a bucket keep their insertion order, which resizing preserves. Small tables (where a
    long chain can force an extra doubling) are replayed with :class:`JavaHashMap`.
    """
    keys = list(dict.fromkeys(keys_in_insertion_order))
    if len(keys) <= _MIN_TREEIFY_CAPACITY * 3 // 4:
        table: JavaHashSet[str] = JavaHashSet(java_string_hash)
        for key in keys:
            table.add(key)
        return table.keys()
    capacity = _DEFAULT_CAPACITY
    while len(keys) > capacity * 3 // 4:
        capacity *= 2
    mask = capacity - 1
    buckets = [(h ^ (h >> 16)) & mask for h in map(java_string_hash, keys)]
    order = sorted(range(len(keys)), key=buckets.__getitem__)  # stable: insertion order in a bucket
    return [keys[i] for i in order]


def java_sorted_hash_order(keys: Iterable[str]) -> list[str]:
    """Iteration order of a default ``HashMap<String, ?>`` filled with ``keys`` in ascending
    ``String.compareTo`` order (how the coordinator builds ``GroupSpec.memberIds()``).

    Within a bucket that insertion order is the sorted order, so one sort by (bucket, key) gives
    it, without sorting the keys first.
    """
    unique = list(dict.fromkeys(keys))
    if len(unique) <= _MIN_TREEIFY_CAPACITY * 3 // 4:
        return java_hash_order(sorted(unique, key=java_string_key))
    capacity = _DEFAULT_CAPACITY
    while len(unique) > capacity * 3 // 4:
        capacity *= 2
    mask = capacity - 1
    buckets = [(h ^ (h >> 16)) & mask for h in map(java_string_hash, unique)]
    if "".join(unique).isascii():  # ASCII: Python's string order is Java's
        return [key for _, key in sorted(zip(buckets, unique, strict=True))]
    return [
        key for _, _, key in sorted(zip(buckets, map(java_string_key, unique), unique, strict=True))
    ]


class _MemberIds(Protocol):
    """A member as ordering sees it (the model's ``Member``, which builds on this module)."""

    @property
    def member_id(self) -> str: ...

    @property
    def group_instance_id(self) -> str | None: ...


M_co = TypeVar("M_co", bound=_MemberIds, covariant=True)
M = TypeVar("M", bound=_MemberIds)


class _Members(Protocol[M_co]):
    """A group as ordering sees it (the model's ``GroupSubscription``)."""

    @property
    def members(self) -> Mapping[str, M_co]: ...


def java_member_order(group: _Members[M]) -> list[M]:
    """Members as Java's assignors sort them: ``MemberInfo`` order, ties in ``HashMap`` order.

    Java sorts a list built from the subscriptions ``HashMap`` with a stable sort, so two members
    claiming the same ``group.instance.id`` keep that map's iteration order.
    """
    in_map_order = java_hash_order(group.members)
    return sorted(
        (group.members[m] for m in in_map_order),
        key=lambda m: member_sort_key(m.member_id, m.group_instance_id),
    )


# -- a member's assignment map, as Kafka's assignors build it ------------------------------------

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
