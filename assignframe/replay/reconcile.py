"""Reconciliation cases as JSON: the layout of ``shared/golden/kip848/reconcile.jsonl``.

One case per line: ``{"id", "kind", "category", "steps": [{"input", "output"}]}``; each step is
one reconciliation of one member at one heartbeat (:func:`~.reconcile.reconcile_member`), its
``input`` the member and what the coordinator knows, its ``output`` the member after it (or the
fencing error). The same layout is the Java oracle's ``reconcile`` request and answer.

* :func:`step_input` reads a step's input into typed values (one clear error naming the field);
* :func:`input_as_json` and :func:`output_as_json` write a step's input and its result as the
  file writes them;
* :func:`replay_case` replays a case and says, per step, how our output differs from the
  recorded one;
* :func:`starts_with_reconcile_case` tells a reconcile file from the other recorded layouts.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any

from ..errors import FencedMemberEpochError, InputError
from ..javaorder import Uuid, java_string_key
from ..jsonview import json_lines, loads
from ..kip848.reconcile import (
    ConsumerGroupMember,
    ConsumerMemberState,
    Heartbeat,
    reconcile_member,
)
from ..model import TopicPartition, partition_pairs

__all__ = [
    "FENCED_CLASS",
    "OUTPUT_KEYS",
    "input_as_json",
    "is_reconcile_case",
    "output_as_json",
    "read_cases",
    "reconcile_json",
    "replay_case",
    "starts_with_reconcile_case",
    "step_input",
]

#: The Java exception the builder throws when it fences a member.
FENCED_CLASS = "org.apache.kafka.common.errors.FencedMemberEpochException"

#: The keys of a step's output (when the builder did not throw), in the file's order.
OUTPUT_KEYS = (
    "member_epoch",
    "previous_member_epoch",
    "state",
    "assigned",
    "pending_revocation",
    "assigned_epochs",
    "pending_revocation_epochs",
    "unchanged",
)

_STATES = {state.value: state for state in ConsumerMemberState}


def is_reconcile_case(value: Any) -> bool:
    """True for a reconcile case: ``steps`` whose first ``input`` has a member and a target."""
    if not isinstance(value, dict) or not isinstance(value.get("steps"), list):
        return False
    first = value["steps"][0] if value["steps"] else None
    return (
        isinstance(first, dict)
        and isinstance(first.get("input"), dict)
        and "member" in first["input"]
        and "target_epoch" in first["input"]
    )


def _input_error(where: str, problem: str) -> InputError:
    return InputError(problem, where)


def starts_with_reconcile_case(stream: IO[str]) -> bool:
    """Is the first non-blank line of ``stream`` a reconcile case? (The stream is rewound.)"""
    first = next((line for line in stream if line.strip()), "")
    stream.seek(0)
    try:
        return is_reconcile_case(loads(first))
    except json.JSONDecodeError:  # not this layout: its reader says why
        return False


def read_cases(stream: IO[str], name: str = "<cases>") -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, case) for each case of a JSON-lines stream; blank lines are skipped."""
    for line_number, value in json_lines(stream, name, _input_error):
        if not is_reconcile_case(value):
            raise InputError(
                "not a reconcile case (steps with an input member and target_epoch)",
                f"{name}:{line_number}",
            )
        yield line_number, value


# --- reading a step's input -----------------------------------------------------------------


class _Field:
    """Reads one JSON value, naming the field path in every error."""

    def __init__(self, value: Any, path: str, where: str) -> None:
        self.value, self.path, self.where = value, path, where

    def __getitem__(self, key: str) -> _Field:
        if not isinstance(self.value, dict):
            self.fail("expected an object")
        if key not in self.value:
            self.at(key).fail("missing")
        return self.at(key)

    def at(self, key: str | int) -> _Field:
        if isinstance(key, int):
            path = f"{self.path}[{key}]"
        else:
            path = f"{self.path}.{key}" if self.path else key
        value = self.value.get(key) if isinstance(self.value, dict) else self.value[key]
        return _Field(value, path, self.where)

    def fail(self, problem: str) -> Any:
        raise InputError(f"{self.path}: {problem}", self.where)

    def integer(self) -> int:
        if type(self.value) is not int:
            self.fail(f"expected an integer, got {self.value!r}")
        return int(self.value)

    def string(self) -> str:
        if not isinstance(self.value, str):
            self.fail(f"expected a string, got {self.value!r}")
        return str(self.value)

    def boolean(self) -> bool:
        if not isinstance(self.value, bool):
            self.fail(f"expected true or false, got {self.value!r}")
        return bool(self.value)

    def items(self) -> list[tuple[str, _Field]]:
        if not isinstance(self.value, dict):
            self.fail("expected an object")
        return [(key, self.at(key)) for key in self.value]

    def elements(self) -> list[_Field]:
        if not isinstance(self.value, list):
            self.fail("expected a list")
        return [self.at(i) for i in range(len(self.value))]

    def partitions(self) -> list[TopicPartition]:
        """``[[topic, partition], ...]``."""
        found = []
        for element in self.elements():
            pair = element.value
            if not (isinstance(pair, list) and len(pair) == 2):
                element.fail(f"expected [topic, partition], got {pair!r}")
            found.append(TopicPartition(element.at(0).string(), element.at(1).integer()))
        return found

    def partition_epochs(self) -> dict[TopicPartition, int]:
        """``{"topic:partition": epoch}``."""
        epochs = {}
        for key, value in self.items():
            topic, colon, partition = key.rpartition(":")
            if not colon or not partition.lstrip("-").isdigit():
                self.fail(f"key {key!r} is not 'topic:partition'")
            epochs[TopicPartition(topic, int(partition))] = value.integer()
        return epochs


def step_input(
    value: Any, where: str, path: str = "input"
) -> tuple[ConsumerGroupMember, Heartbeat]:
    """A step's ``input`` as the member and the heartbeat it is reconciled at.

    :param where: the file and line, for errors
    :raises InputError: a field is missing or of the wrong type (the message names it)
    """
    step = _Field(value, path, where)
    member = _member(step["member"])
    heartbeat = Heartbeat(
        step["target_epoch"].integer(),
        frozenset(step["target_assignment"].partitions()),
        _owned(step["owned_topic_partitions"]),
        step["partition_owner_epochs"].partition_epochs(),
        {key: topic["name"].string() for key, topic in step["topics"].items()},
        step["has_subscription_changed"].boolean(),
        {
            regex: frozenset(name.string() for name in names.elements())
            for regex, names in step["resolved_regular_expressions"].items()
        },
    )
    return member, heartbeat


def _owned(value: _Field) -> frozenset[TopicPartition] | None:
    return None if value.value is None else frozenset(value.partitions())


def _member(value: _Field) -> ConsumerGroupMember:
    state = value["state"].string()
    if state not in _STATES:
        value.at("state").fail(f"expected one of {', '.join(_STATES)}, got {state!r}")
    return ConsumerGroupMember(
        value["member_epoch"].integer(),
        value["previous_member_epoch"].integer(),
        _STATES[state],
        _with_epochs(value, "assigned", "assigned_epochs"),
        _with_epochs(value, "pending_revocation", "pending_revocation_epochs"),
        frozenset(name.string() for name in value["subscribed_topic_names"].elements()),
        value["subscribed_topic_regex"].string(),
    )


def _with_epochs(member: _Field, partitions_key: str, epochs_key: str) -> dict[TopicPartition, int]:
    epochs = member[epochs_key].partition_epochs()
    partitions = member[partitions_key].partitions()
    missing = [tp for tp in partitions if tp not in epochs]
    if missing:
        member.at(epochs_key).fail(f"no epoch for {_key(missing[0])}")
    extra = sorted(set(epochs) - set(partitions))
    if extra:
        member.at(epochs_key).fail(f"{_key(extra[0])} is not in {partitions_key}")
    return {tp: epochs[tp] for tp in partitions}


# --- writing and comparing outputs ----------------------------------------------------------


def _key(tp: TopicPartition) -> str:
    return f"{tp.topic}:{tp.partition}"


def _sorted(partitions: Iterable[TopicPartition]) -> list[TopicPartition]:
    return sorted(partitions, key=lambda tp: (java_string_key(tp.topic), tp.partition))


def _java_sorted_pairs(partitions: Iterable[TopicPartition]) -> list[list[Any]]:
    """JSON pairs in Java's order (topic names as ``String.compareTo``, then partition)."""
    return partition_pairs(_sorted(partitions))


def input_as_json(
    member: ConsumerGroupMember, heartbeat: Heartbeat, partition_counts: Mapping[str, int]
) -> dict[str, Any]:
    """A step's input in the file's layout (also the Java oracle's ``reconcile`` request).

    :param partition_counts: topic key -> partition count for every topic of
        ``heartbeat.topic_names`` (the metadata image); the keys must be Kafka topic ids
        (``Uuid.toString()``) for Java to read them
    """
    assigned, pending = _sorted(member.assigned), _sorted(member.pending_revocation)
    return {
        "member": {
            "member_epoch": member.member_epoch,
            "previous_member_epoch": member.previous_member_epoch,
            "state": member.state.value,
            "assigned": _java_sorted_pairs(assigned),
            "pending_revocation": _java_sorted_pairs(pending),
            "assigned_epochs": {_key(tp): member.assigned[tp] for tp in assigned},
            "pending_revocation_epochs": {
                _key(tp): member.pending_revocation[tp] for tp in pending
            },
            "subscribed_topic_names": sorted(member.subscribed_topic_names, key=java_string_key),
            "subscribed_topic_regex": member.subscribed_topic_regex,
        },
        "target_epoch": heartbeat.target_epoch,
        "target_assignment": _java_sorted_pairs(heartbeat.target),
        "owned_topic_partitions": (None if heartbeat.owned is None
                                   else _java_sorted_pairs(heartbeat.owned)),
        "partition_owner_epochs": {
            _key(tp): heartbeat.owner_epochs[tp] for tp in _sorted(heartbeat.owner_epochs)
        },
        "topics": {
            key: {
                "name": name,
                "partitions": partition_counts[key],
                "uuid": str(uuid.UUID(bytes=Uuid.from_string(key).to_bytes())),
            }
            for key, name in heartbeat.topic_names.items()
        },
        "has_subscription_changed": heartbeat.subscription_changed,
        "resolved_regular_expressions": {
            regex: sorted(names, key=java_string_key)
            for regex, names in heartbeat.resolved_regexes.items()
        },
    }


def output_as_json(
    result: ConsumerGroupMember | FencedMemberEpochError, unchanged: bool
) -> dict[str, Any]:
    """A reconciliation result in the file's output layout."""
    if isinstance(result, FencedMemberEpochError):
        return {"error": {"class": FENCED_CLASS, "message": str(result)}}
    assigned, pending = _sorted(result.assigned), _sorted(result.pending_revocation)
    return {
        "member_epoch": result.member_epoch,
        "previous_member_epoch": result.previous_member_epoch,
        "state": result.state.value,
        "assigned": [[tp.topic, tp.partition] for tp in assigned],
        "pending_revocation": [[tp.topic, tp.partition] for tp in pending],
        "assigned_epochs": {_key(tp): result.assigned[tp] for tp in assigned},
        "pending_revocation_epochs": {_key(tp): result.pending_revocation[tp] for tp in pending},
        "unchanged": unchanged,
    }


def reconcile_json(value: Any, where: str, path: str = "input") -> dict[str, Any]:
    """Reconcile one step ``input`` (JSON) and give the output as the file writes it."""
    member, heartbeat = step_input(value, where, path)
    try:
        result = reconcile_member(member, heartbeat)
    except FencedMemberEpochError as fenced:
        return output_as_json(fenced, False)
    return output_as_json(result, result is member)


def replay_case(case: Mapping[str, Any], where: str) -> dict[str, Any]:
    """``{"id", "steps": [{"output", "difference"?}]}``: every step of ``case`` reconciled from
    its recorded input; ``difference`` (only where there is one) maps each output key whose value
    differs to ``{"recorded", "replayed"}``."""
    steps = _Field(case, "", where)["steps"]
    replayed = []
    for index, step in enumerate(steps.elements()):
        output = reconcile_json(step["input"].value, where, f"steps[{index}].input")
        entry: dict[str, Any] = {"output": output}
        recorded = step.value.get("output") if isinstance(step.value, dict) else None
        if recorded is not None:
            difference = _difference(recorded, output)
            if difference:
                entry["difference"] = difference
        replayed.append(entry)
    return {"id": case.get("id"), "steps": replayed}


def _difference(recorded: Any, replayed: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(recorded, dict):
        return {"output": {"recorded": recorded, "replayed": replayed}}
    keys = dict.fromkeys([*replayed, *recorded])
    return {
        key: {"recorded": recorded.get(key), "replayed": replayed.get(key)}
        for key in keys
        if _comparable(key, recorded.get(key)) != _comparable(key, replayed.get(key))
    }


def _comparable(key: str, value: Any) -> Any:
    """Partition lists compare as sets (the file sorts them; a hand-written one may not)."""
    if key in ("assigned", "pending_revocation") and isinstance(value, list):
        return sorted(json.dumps(pair) for pair in value)
    return value
