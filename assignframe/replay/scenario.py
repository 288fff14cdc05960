"""Reading scenario files (the golden ``assign.jsonl`` format) and checking their shape.

A file holds JSON lines (one scenario per line), a single JSON object (possibly spread over many
lines), or YAML (one scenario per document). Scenarios stay plain dicts in the golden layout (see
``shared/golden/README.md``); :func:`validate_scenario` checks the fields the replay reads and
raises :class:`~assignframe.errors.ScenarioError` naming the file, line and field. Extensions to
the golden format: a member may list ``strategies`` (its preference list), a round may carry
``lags`` (``{topic: [lag of each partition]}``); ``id`` and ``assignor`` are optional.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Mapping
from typing import IO, Any

import yaml

from ..errors import ScenarioError
from ..jsonview import json_lines, load_yaml, loads
from ..model import Cluster, TopicPartition, count_error, group_size_error

__all__ = [
    "cluster_of",
    "lags_of",
    "read_scenarios",
    "scenario_error",
    "validate_scenario",
]


def read_scenarios(source: str | os.PathLike[str] | IO[str]) -> Iterator[dict[str, Any]]:
    """Yield every validated scenario of a file; ``"-"`` reads stdin.

    JSON lines are streamed (a 19 MB golden file never sits in memory at once).
    """
    if isinstance(source, (str, os.PathLike)) and str(source) != "-":
        name = str(source)
        try:
            with open(source, encoding="utf-8") as stream:
                yield from _read_stream(stream, name)
        except OSError as exc:
            raise ScenarioError(f"{name}: cannot read: {exc.strerror or exc}") from exc
        return
    given: IO[str] = sys.stdin if isinstance(source, (str, os.PathLike)) else source
    yield from _read_stream(given, getattr(given, "name", "<stdin>"))


def _read_stream(stream: IO[str], name: str) -> Iterator[dict[str, Any]]:
    first_lines: list[str] = []
    for line in stream:
        first_lines.append(line)
        if line.strip():
            break
    first = first_lines[-1].strip() if first_lines else ""
    if not first:
        return
    if name.endswith((".yaml", ".yml")):
        yield from _parse_yaml("".join(first_lines) + stream.read(), name)
        return
    try:
        first_value = loads(first)
    except json.JSONDecodeError:
        yield from _parse_whole("".join(first_lines) + stream.read(), name)
        return
    yield validate_scenario(first_value, f"{name}:{len(first_lines)}")
    yield from _parse_json_lines(stream, name, len(first_lines))


def _parse_json_lines(stream: IO[str], name: str, lines_read: int) -> Iterator[dict[str, Any]]:
    for line_number, value in json_lines(stream, name, scenario_error, start=lines_read + 1):
        yield validate_scenario(value, f"{name}:{line_number}")


def scenario_error(where: str, problem: str) -> ScenarioError:
    """A scenario file's error, ``where: problem`` (how replay names a bad line)."""
    return ScenarioError(f"{where}: {problem}")


def _parse_whole(text: str, name: str) -> Iterator[dict[str, Any]]:
    """A single (pretty-printed) JSON object, else YAML."""
    try:
        value = loads(text)
    except json.JSONDecodeError:
        yield from _parse_yaml(text, name)
        return
    values = value if isinstance(value, list) else [value]
    for index, item in enumerate(values):
        yield validate_scenario(item, f"{name}:1" if len(values) == 1 else f"{name}[{index}]")


def _parse_yaml(text: str, name: str) -> Iterator[dict[str, Any]]:
    try:
        documents = load_yaml(text, every_document=True)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{name}:{mark.line + 1}" if mark else name
        raise ScenarioError(f"{where}: neither JSON nor YAML: {exc}") from exc
    for index, document in enumerate(documents):
        yield validate_scenario(document, name if len(documents) == 1 else f"{name}[{index}]")


# -- validation ----------------------------------------------------------------------------


def validate_scenario(scenario: Any, where: str = "<scenario>") -> dict[str, Any]:
    """Check the fields the replay reads; returns ``scenario`` unchanged.

    :param where: ``file:line`` (or another label) to put in front of error messages
    """
    _expect(isinstance(scenario, dict), where, "", "expected a JSON object (a scenario)")
    _optional_str(scenario, "id", where, "")
    _optional_str(scenario, "assignor", where, "")
    _check_partitions_per_topic(scenario.get("partitions_per_topic"), where, "partitions_per_topic")
    _check_racks(scenario.get("partition_racks"), where, "partition_racks")
    rounds = scenario.get("rounds")
    _expect(isinstance(rounds, list) and rounds, where, "rounds", "expected a non-empty list")
    for index, round_ in enumerate(rounds):
        _check_round(round_, where, f"rounds[{index}]", bool(scenario.get("crafted")))
    _expect(not rounds[0].get("followup"), where, "rounds[0].followup", "first round is a followup")
    return scenario


def _check_round(round_: Any, where: str, path: str, crafted: bool) -> None:
    _expect(isinstance(round_, dict), where, path, "expected an object")
    _expect(
        isinstance(round_.get("followup", False), bool),
        where,
        f"{path}.followup",
        "expected a bool",
    )
    generation = round_.get("generation")
    _expect(
        generation is None or _is_int(generation), where, f"{path}.generation", "expected an int"
    )
    if round_.get("partitions_per_topic") is not None:
        _check_partitions_per_topic(
            round_["partitions_per_topic"], where, f"{path}.partitions_per_topic"
        )
    _check_racks(round_.get("partition_racks"), where, f"{path}.partition_racks")
    members = round_.get("members")
    _expect(
        isinstance(members, dict) and members,
        where,
        f"{path}.members",
        "expected a non-empty object",
    )
    for member_id, member in members.items():
        _check_member(member, where, f"{path}.members.{member_id}")
        if crafted or "crafted" in member:
            hex_path = f"{path}.subscriptions.{member_id}.hex"
            subscription = (round_.get("subscriptions") or {}).get(member_id) or {}
            _expect(
                _is_hex(subscription.get("hex")), where, hex_path, "crafted member needs hex bytes"
            )
    lags = round_.get("lags")
    _expect(
        lags is None or _is_int_lists(lags), where, f"{path}.lags", "expected {topic: [int, ...]}"
    )


def _check_member(member: Any, where: str, path: str) -> None:
    _expect(isinstance(member, dict), where, path, "expected an object")
    topics = member.get("topics")
    _expect(_is_str_list(topics), where, f"{path}.topics", "expected a list of topic names")
    for key in ("rack", "group_instance_id"):
        _optional_str(member, key, where, path)
    strategies = member.get("strategies")
    _expect(
        strategies is None or (_is_str_list(strategies) and strategies),
        where,
        f"{path}.strategies",
        "expected a non-empty list of strategy names",
    )


def _check_partitions_per_topic(value: Any, where: str, path: str) -> None:
    ok = isinstance(value, dict) and all(isinstance(t, str) for t in value)
    _expect(ok, where, path, "expected {topic: partition count}")
    for topic, n in value.items():
        problem = count_error(n)
        _expect(problem is None, where, f"{path}[{topic!r}]", problem or "")
    too_large = group_size_error(value)
    _expect(too_large is None, where, path, too_large or "")


def _check_racks(value: Any, where: str, path: str) -> None:
    ok = value is None or (
        isinstance(value, dict)
        and all(
            isinstance(per, list) and all(_is_str_list(r) for r in per) for per in value.values()
        )
    )
    _expect(ok, where, path, "expected null or {topic: [[rack, ...] per partition]}")


def _optional_str(container: Mapping[str, Any], key: str, where: str, path: str) -> None:
    value = container.get(key)
    _expect(
        value is None or isinstance(value, str),
        where,
        f"{path}.{key}".lstrip("."),
        "expected a string",
    )


def _expect(condition: Any, where: str, path: str, problem: str) -> None:
    if not condition:
        raise ScenarioError(f"{where}: {path or '<top level>'}: {problem}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _is_int_lists(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(per, list) and all(_is_int(n) for n in per) for per in value.values()
    )


def _is_hex(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        bytes.fromhex(value)
    except ValueError:
        return False
    return True


# -- conversions ---------------------------------------------------------------------------


def cluster_of(partitions_per_topic: Mapping[str, int], partition_racks: Any = None) -> Cluster:
    """The Cluster a scenario's (or round's) metadata describes."""
    racks = None
    if partition_racks:
        racks = {t: tuple(tuple(r) for r in per) for t, per in partition_racks.items()}
    return Cluster(dict(partitions_per_topic), racks)


def lags_of(lags: Mapping[str, list[int]] | None) -> dict[TopicPartition, int] | None:
    """``{topic: [lag per partition]}`` as ``{TopicPartition: lag}``."""
    if lags is None:
        return None
    return {TopicPartition(t, p): lag for t, per in lags.items() for p, lag in enumerate(per)}
