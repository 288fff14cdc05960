"""The serialized snapshot's schema, and how each of its values is read back.

:data:`SNAPSHOT_FIELDS` names every key :func:`~.jsonform.snapshot_to_dict` writes and
its type; the Parquet columns are derived from it (:mod:`assignframe.audit.parquet_input`). The
readers below turn one value of a JSON line or a Parquet row into a Python value, or raise
:class:`MalformedSnapshot` saying which; :func:`~.jsonform.read_snapshot` assembles them.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import compress, repeat
from operator import countOf, is_not, itemgetter
from types import NoneType
from typing import Any

from ..errors import MalformedSnapshot
from ..jsonview import loads
from ..model import (
    TopicPartition,
    checked_pairs_as_partitions,
    count_error,
    group_size_error,
    partitions_of_topic,
)

_topic = itemgetter(0)
_number = itemgetter(1)

__all__ = [
    "ASSIGNMENT_FIELDS",
    "GROUP_TYPES",
    "GROUP_TYPE_NAMES",
    "GROUP_SNAPSHOT_TYPES",
    "MEMBER_FIELDS",
    "MEMBER_TYPES",
    "SNAPSHOT_FIELDS",
    "SNAPSHOT_SCHEMA",
    "SUBSCRIPTION_FIELDS",
    "as_row",
    "bytes_from_hex",
    "column",
    "group_type_of",
    "hex_or_none",
    "int_or",
    "lags_from_lists",
    "lags_to_lists",
    "merge_notes",
    "number_or_none",
    "partition_list",
    "text_or_none",
    "EPOCH_GROUP_FIELDS",
    "epoch_group_header",
    "read_epoch_group_header",
    "group_types_phrase",
    "counts_field",
    "list_field",
    "mapping_field",
    "optional_int",
    "required_int",
    "required_text",
]

#: The ``schema`` value of a serialized snapshot.
SNAPSHOT_SCHEMA = "assignframe.snapshot/1"
#: Older name of the same layout, written by earlier releases' ``decode --json``.
COMPATIBLE_SCHEMAS = (SNAPSHOT_SCHEMA, "assignframe.decode.snapshot/1", None)



#: The kinds of member a consumer-protocol group can hold (KIP-848 mixed groups).
MEMBER_TYPES = ("classic", "consumer")


#: Every type of group Kafka has (ListGroups' GroupType, KIP-848, KIP-932, KIP-1071).
GROUP_TYPES = ("classic", "consumer", "share", "streams")
#: How people read each group type (a summary's "3 classic, 1 share").
GROUP_TYPE_NAMES = {"classic": "classic", "consumer": "consumer-protocol", "share": "share",
                    "streams": "Streams"}


def group_types_phrase(counts: Mapping[str, int]) -> str:
    """`` (5 classic, 2 consumer-protocol)``: the groups of each type counted in ``counts``
    (group type -> groups), "" when every group is classic."""
    if not any(n for t, n in counts.items() if t != "classic"):
        return ""
    return " (" + ", ".join(f"{counts.get(t, 0):,} {name}" for t, name in GROUP_TYPE_NAMES.items()
                            if t == "classic" or counts.get(t)) + ")"


#: The types of group a :class:`~assignframe.snapshot.GroupSnapshot` models (members holding
#: partitions, their subscriptions' bytes; what a group file replays). A snapshot line may be of
#: any of :data:`GROUP_TYPES`: share groups are a
#: :class:`~assignframe.snapshot.share.ShareSnapshot` (partitions several members may hold, their
#: backlog), Streams groups a :class:`~assignframe.snapshot.streams.StreamsSnapshot` (tasks of
#: three kinds).
GROUP_SNAPSHOT_TYPES = ("classic", "consumer")


#: A serialized value's type: a name below, or ("struct", fields) / ("list", fields) of nested
#: objects. "pairs" are ``[[topic, partition], ...]``; "counts" ``{topic: int}``; "lags"
#: ``{topic: [lag per partition]}``; "strings" a list of strings.
FieldType = Any
SUBSCRIPTION_FIELDS: tuple[tuple[str, FieldType], ...] = (
    ("hex", "string"),  # the bytes as sent; the fields below are for people and hex-less rows
    ("version", "int"),
    ("topics", "strings"),
    ("owned_partitions", "pairs"),
    ("generation_id", "int"),
    ("rack_id", "string"),
    ("user_data", "string"),  # hex
)
ASSIGNMENT_FIELDS: tuple[tuple[str, FieldType], ...] = (("hex", "string"), ("partitions", "pairs"))
#: One member of ``members`` (docs/decode.md explains each key).
MEMBER_FIELDS: tuple[tuple[str, FieldType], ...] = (
    ("member_id", "string"),
    ("group_instance_id", "string"),
    ("client_id", "string"),
    ("client_host", "string"),
    ("client_software", "string"),
    ("protocols", "strings"),
    ("member_type", "string"),
    ("member_epoch", "int"),
    ("subscription", ("struct", SUBSCRIPTION_FIELDS)),
    ("assignment", ("struct", ASSIGNMENT_FIELDS)),
    ("target", ("struct", (("partitions", "pairs"),))),  # null when the target is not known
)
#: Every key :func:`~assignframe.snapshot.snapshot_to_dict` writes, in order, with its type:
#: the one description of the JSON-lines form and of the Parquet columns derived from it.
SNAPSHOT_FIELDS: tuple[tuple[str, FieldType], ...] = (
    ("schema", "string"),
    ("group_type", "string"),
    ("group_id", "string"),
    ("generation", "int"),
    ("protocol", "string"),
    ("leader", "string"),
    ("group_state", "string"),
    ("assignor", "string"),
    ("target_epoch", "int"),
    ("observed_at", "float"),
    ("topic_partitions", "counts"),
    ("partition_lags", "lags"),
    ("members", ("list", MEMBER_FIELDS)),
    ("notes", "strings"),
)


# -- what snapshot_to_dict writes ---------------------------------------------------------------


def group_type_of(value: Any) -> str:
    """A snapshot's ``group_type`` field: one of :data:`GROUP_TYPES`; absent means
    classic (files written before the consumer protocol was read).

    :raises MalformedSnapshot: any other value
    """
    if value is None:
        return "classic"
    if value not in GROUP_TYPES:
        raise MalformedSnapshot(
            f"group_type {value!r} is not one of {', '.join(GROUP_TYPES)}"
        )
    return str(value)


def hex_or_none(data: bytes | None) -> str | None:
    """Bytes (or a memoryview of them) as hex; None stays None."""
    return None if data is None else bytes(data).hex()


def lags_to_lists(lags: Mapping[TopicPartition, int],
                  counts: Mapping[str, int] | None = None) -> dict[str, list[int | None]]:
    """``{topic: [lag per partition]}``; a partition whose lag is not known is null (every
    partition of ``counts``' topics is listed, known or not)."""
    per_topic: dict[str, dict[int, int]] = {t: {} for t, n in (counts or {}).items() if n}
    for tp, lag in lags.items():
        per_topic.setdefault(tp.topic, {})[tp.partition] = lag
    sizes = {t: max([*by, (counts or {}).get(t, 0) - 1]) + 1 for t, by in per_topic.items()}
    return {t: [by.get(p) for p in range(sizes[t])] for t, by in per_topic.items()}


# -- reading one value back -----------------------------------------------------------------------


def merge_notes(given: Any, found: list[str]) -> list[str]:
    notes = [n for n in given if isinstance(n, str)] if isinstance(given, list) else []
    return notes + [n for n in found if n not in notes]


def as_row(raw: Mapping[str, Any] | str) -> Mapping[str, Any]:
    if isinstance(raw, Mapping):
        return raw
    try:
        row = loads(raw)
    except (ValueError, TypeError) as exc:
        raise MalformedSnapshot(f"not JSON: {exc}") from None
    if not isinstance(row, Mapping):
        raise MalformedSnapshot(f"expected a JSON object, got {type(row).__name__}")
    return row


#: Columns read from a map (pyarrow gives a Parquet map as a list of (key, value) pairs).
_MAP_COLUMNS = tuple(name for name, kind in SNAPSHOT_FIELDS if kind in ("counts", "lags"))
#: Columns whose value may be JSON text instead of a nested value.
_JSON_COLUMNS = (*_MAP_COLUMNS, "members")


def column(row: Mapping[str, Any], name: str) -> Any:
    value = row.get(name)
    if name in _MAP_COLUMNS and isinstance(value, list):
        return dict(value)  # pyarrow reads a Parquet map as a list of (key, value) pairs
    if name in _JSON_COLUMNS and isinstance(value, str):
        try:
            return loads(value)
        except ValueError as exc:
            raise MalformedSnapshot(f"column {name}: not JSON: {exc}") from None
    return value


def int_or(value: Any, default: Any) -> Any:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def number_or_none(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def bytes_from_hex(where: str, what: str, value: Any) -> bytes | None:
    if value is None:
        return None
    try:
        return bytes.fromhex(value)
    except (TypeError, ValueError):
        raise MalformedSnapshot(f"{where} {what} hex is not hex") from None


def partition_list(where: str, pairs: Any) -> tuple[TopicPartition, ...]:
    """``[[topic, partition], ...]``, or the Parquet form ``[{"topic", "partition"}, ...]``."""
    if type(pairs) is list:
        partitions = _plain_pairs(pairs)
        if partitions is not None:
            return partitions
    try:
        return tuple(_partition(p) for p in pairs)
    except (TypeError, ValueError, KeyError, IndexError):
        raise MalformedSnapshot(f"{where}: bad partition list") from None


def _plain_pairs(pairs: list[Any]) -> tuple[TopicPartition, ...] | None:
    """What :func:`_partition` makes of every item, when each is a JSON pair ``[str, int]``
    (``str()`` and ``int()`` give those back as they are); None: the general reading decides.
    Built and checked in C-level passes, several times cheaper than a call per pair (a group's
    targets hold hundreds)."""
    count = len(pairs)
    if countOf(map(type, pairs), list) != count or countOf(map(len, pairs), 2) != count:
        return None
    partitions = tuple(checked_pairs_as_partitions(pairs))  # checked just below
    if countOf(map(type, map(_topic, partitions)), str) != count or \
            countOf(map(type, map(_number, partitions)), int) != count:
        return None  # bools and floats, numbers as text: int() judges them
    return partitions


def _partition(item: Any) -> TopicPartition:
    if isinstance(item, Mapping):
        return TopicPartition(str(item["topic"]), int(item["partition"]))
    topic, partition = item  # exactly two: anything else is not a pair (ValueError)
    return TopicPartition(str(topic), int(partition))


def lags_from_lists(value: Any) -> dict[TopicPartition, int] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise MalformedSnapshot("partition_lags is not a mapping of topic -> [lag per partition]")
    lags: dict[TopicPartition, int] = {}
    try:
        for topic, per_partition in value.items():
            if not _add_plain_lags(lags, topic, per_partition):
                lags.update((TopicPartition(topic, p), int(lag))
                            for p, lag in enumerate(per_partition)
                            if lag is not None)  # not known (no committed offset)
    except (TypeError, ValueError):
        raise MalformedSnapshot("partition_lags holds a non-integer lag") from None
    return lags


def _add_plain_lags(lags: dict[TopicPartition, int], topic: Any, per_partition: Any) -> bool:
    """Add one topic's lags when they are a JSON list of ints and nulls (``int()`` gives an int
    back as it is), in C-level passes; False: the general reading decides."""
    if type(per_partition) is not list:
        return False
    count = len(per_partition)
    known = countOf(map(type, per_partition), int)
    partitions = partitions_of_topic(topic, range(count))
    if known == count:
        lags.update(zip(partitions, per_partition, strict=True))
    elif known + countOf(map(type, per_partition), NoneType) == count:
        lags.update(compress(zip(partitions, per_partition, strict=True),
                             map(is_not, per_partition, repeat(None))))
    else:
        return False
    return True


# -- the readers of share and Streams snapshots' fields (:mod:`.share`, :mod:`.streams`) ------
def required_text(row: Mapping[str, Any], key: str, where: str) -> str:
    value = row.get(key)
    if not isinstance(value, str) or not value:
        raise MalformedSnapshot(f"{where}: missing {key}")
    return value


def required_int(row: Mapping[str, Any], key: str, where: str) -> int:
    value = int_or(row.get(key), None)
    if value is None:
        raise MalformedSnapshot(f"{where}: {key} is not an integer")
    return int(value)


def optional_int(where: str, what: str, value: Any) -> int | None:
    if value is None:
        return None
    if int_or(value, None) is None:
        raise MalformedSnapshot(f"{where}: {what} is not an integer")
    return int(value)


def list_field(row: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = row.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise MalformedSnapshot(f"{where}: {key} is not a list")
    return value


def mapping_field(where: str, key: str, value: Any) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise MalformedSnapshot(f"{where}: {key} is not an object")
    return value


def counts_field(where: str, key: str, value: Any) -> dict[str, int]:
    """One group's topics as ``{topic: partition count}``: every count valid, and the group
    not larger than the tools replay (:func:`~assignframe.model.group_size_error`)."""
    counts = {}
    for topic, n in mapping_field(where, key, value).items():
        problem = count_error(n)
        if problem:
            raise MalformedSnapshot(f"{where}: {key}[{topic!r}]: {problem}")
        counts[str(topic)] = n
    too_large = group_size_error(counts)
    if too_large:
        raise MalformedSnapshot(f"{where}: {key}: {too_large}")
    return counts


#: the fields every share and Streams snapshot has, in the order its line starts with them
EPOCH_GROUP_FIELDS = ("group_id", "group_state", "observed_at", "group_epoch",
                      "assignment_epoch", "assignor")


def epoch_group_header(group_type: str, snapshot: Any) -> dict[str, Any]:
    """The first keys of a share or Streams snapshot line (``snapshot``: either type)."""
    return {"schema": SNAPSHOT_SCHEMA, "group_type": group_type, "group_id": snapshot.group_id,
            "group_state": snapshot.state, "observed_at": snapshot.observed_at,
            "group_epoch": snapshot.group_epoch, "assignment_epoch": snapshot.assignment_epoch,
            "assignor": snapshot.assignor}


def read_epoch_group_header(row: Mapping[str, Any], what: str) -> tuple[str, dict[str, Any]]:
    """Where the line is (``share group 'g'``), and its header as the snapshot's keyword
    arguments.

    :raises MalformedSnapshot: no group id, an epoch that is not an integer
    """
    group_id = required_text(row, "group_id", what)
    where = f"{what} {group_id!r}"
    return where, {"group_id": group_id, "state": text_or_none(row.get("group_state")),
                   "group_epoch": required_int(row, "group_epoch", where),
                   "assignment_epoch": required_int(row, "assignment_epoch", where),
                   "assignor": text_or_none(row.get("assignor")),
                   "observed_at": number_or_none(row.get("observed_at"))}
