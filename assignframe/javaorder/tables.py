"""Java's orders, hashes and hash tables (JDK 17): the package docstring explains them."""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Any, Generic, NamedTuple, TypeVar

# The codec sorts topics on the wire by the same rule: it is declared there, below the core.
from assignframe_codec.strings import java_string_key

__all__ = [
    "JavaHashMap",
    "JavaHashSet",
    "Uuid",
    "assignor_helpers_capacity",
    "hash_set_copy_capacity",
    "hash_set_copy_order",
    "java_int_hash",
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


# Topic ids live as long as the metadata image; their hashes are asked for on every call.
@functools.lru_cache(maxsize=1 << 16)
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
        """``computeIfAbsent``: the table doubles *before* the lookup; a new key goes to the head.

        Java checks ``size > threshold`` before it looks the key up, so a call for a key that is
        already there still doubles a table an earlier ``computeIfAbsent`` filled past its
        threshold (only this method leaves a table there: ``put`` doubles after inserting).
        """
        if self._table is None or len(self._values) > self._threshold:
            self._resize()
        found = self._values.get(key)
        if found is not None:
            return found
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
                hashed = hash_code(key)
                hashed = hashes[key] = hashed ^ (hashed >> 16)  # _spread, inlined
                values[key] = None
                table[hashed & mask].append(key)
        self._table = table
        self.has_treebin = max(map(len, table), default=0) > _TREEIFY_THRESHOLD

    def add(self, key: K) -> None:
        self.put(key, None)


def hash_set_copy_order(
    keys: Iterable[K], hash_code: Callable[[K], int], size: int | None = None
) -> list[K]:
    """``JavaHashSet.copy_of(keys, hash_code, size).keys()`` without building the table when it
    is presized: then the order is by bucket, insertion order within one (a stable sort)."""
    keys = list(keys)
    capacity = table_size_for(hash_set_copy_capacity(len(keys) if size is None else size))
    if capacity < _MIN_TREEIFY_CAPACITY or len(keys) > capacity * 3 // 4:
        return JavaHashSet.copy_of(keys, hash_code, size).keys()
    unique = list(dict.fromkeys(keys))
    mask = capacity - 1
    buckets = [(h ^ (h >> 16)) & mask for h in map(hash_code, unique)]
    return [unique[i] for i in sorted(range(len(unique)), key=buckets.__getitem__)]
