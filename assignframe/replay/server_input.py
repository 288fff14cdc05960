"""Reading KIP-848 server-assignor scenarios (``shared/golden/kip848/assign.jsonl`` format): the
file, each scenario line, and each round as the assignor's input (:class:`ServerRound`), every
field checked and a bad one named with its scenario, round and path (:class:`ScenarioError`).
:mod:`.server` replays them.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import IO, Any

from ..errors import ScenarioError
from ..javaorder import Uuid
from ..jsonview import json_lines, loads
from ..server_assignor import ServerGroupSpec, ServerMember, ServerTopic
from .scenario import scenario_error

__all__ = [
    "ServerRound",
    "is_server_scenario",
    "open_scenarios",
    "read_server_scenarios",
    "server_rounds",
]


@dataclass(frozen=True)
class ServerRound:
    """One recorded assignor call: its input and, when recorded, Java's answer.

    :param index: the round's number
    :param event: what changed before it, in words
    :param spec: the assignor's input
    :param topic_names: topic id -> name, including ids no longer in the topic map
    :param java: the round's recorded object (``result``, ``java_order``, ``violations``, ...)
    """

    index: int
    event: str
    spec: ServerGroupSpec
    topic_names: Mapping[Uuid, str]
    java: Mapping[str, Any]



def is_server_scenario(value: Any) -> bool:
    """True for a KIP-848 scenario (``group_type`` and a topic map of ``{id, partitions}``)."""
    return (
        isinstance(value, dict)
        and value.get("group_type") in ("consumer", "share")
        and isinstance(value.get("topics"), dict)
        and all(isinstance(t, dict) and "id" in t for t in value["topics"].values())
    )


def open_scenarios(source: str | os.PathLike[str]) -> tuple[bool, IO[str]]:
    """Open a scenario file (``-`` = stdin) and tell whether it holds KIP-848 scenarios.

    :returns: (is the first scenario a KIP-848 one, a stream positioned at the start)
    """
    if str(source) == "-":
        stream: IO[str] = io.StringIO(sys.stdin.read())
    else:
        try:
            stream = open(source, encoding="utf-8")  # noqa: SIM115 - handed to the caller
        except OSError as exc:
            raise ScenarioError(f"{source}: cannot read: {exc.strerror or exc}") from exc
    first = ""
    for line in stream:
        if line.strip():
            first = line
            break
    stream.seek(0)
    try:
        return is_server_scenario(loads(first)), stream
    except json.JSONDecodeError:  # not this layout: its reader says why
        return False, stream


def read_server_scenarios(stream: IO[str], name: str = "<scenarios>") -> Iterator[dict[str, Any]]:
    """Each KIP-848 scenario of a JSON-lines stream (blank lines skipped)."""
    for line_number, value in json_lines(stream, name, scenario_error):
        if not is_server_scenario(value):
            raise ScenarioError(
                f"{name}:{line_number}: not a KIP-848 scenario (group_type, topics)"
            )
        yield value


def server_rounds(scenario: Mapping[str, Any]) -> Iterator[ServerRound]:
    """The assignor input of every round of ``scenario`` (topic maps carried forward).

    :raises ScenarioError: a field is missing or malformed (names the scenario, round and field)
    """
    where = str(scenario.get("id", "<scenario>"))
    rounds = scenario.get("rounds")
    if not (isinstance(rounds, list) and rounds):
        raise ScenarioError(f"{where}: rounds: expected a non-empty list")
    topics_value = scenario.get("topics")
    group_type = str(scenario.get("group_type"))
    names: dict[Uuid, str] = {}
    for index, round_ in enumerate(rounds):
        at = f"{where}: rounds[{index}]"
        _expect(isinstance(round_, dict), at, "", "expected an object")
        topics_value = round_.get("topics", topics_value)
        topics = _topics(topics_value, at)
        names.update((t.topic_id, t.name) for t in topics.values())
        by_name = {t.name: t.topic_id for t in topics.values()}
        members = round_.get("members")
        _expect(isinstance(members, dict), at, "members", "expected an object")
        spec = ServerGroupSpec(
            members={
                m: _member(m, v, by_name, names, f"{at}.members.{m}") for m, v in members.items()
            },
            topics=topics,
            unassignable=frozenset(
                (by_name[t], p)
                for t, p in _pair_entries(round_.get("unassignable", []), at)
                if t in by_name
            ),
            group_type=group_type,
            member_order=_member_order(round_.get("member_order"), members, at),
        )
        yield ServerRound(index, str(round_.get("event", "")), spec, dict(names), round_)


def _member_order(value: Any, members: Mapping[str, Any], at: str) -> tuple[str, ...] | None:
    """A round's ``member_order`` (the coordinator's insertion order), checked against its
    members; absent: None (ascending ids)."""
    if value is None:
        return None
    _expect(
        isinstance(value, list) and len(value) == len(members) and set(value) == members.keys(),
        at, "member_order", "expected every member id of the round once",
    )
    return tuple(value)


def _topics(value: Any, at: str) -> dict[Uuid, ServerTopic]:
    _expect(isinstance(value, dict), at, "topics", "expected {name: {id, partitions}}")
    topics = {}
    for name, topic in value.items():
        _expect(isinstance(topic, dict), at, f"topics.{name}", "expected an object")
        count = topic.get("partitions")
        _expect(_is_int(count) and count >= 0, at, f"topics.{name}.partitions", "expected int >= 0")
        racks = topic.get("racks")
        topic_id = _uuid(topic.get("id"), at, f"topics.{name}.id")
        topics[topic_id] = ServerTopic(
            topic_id, name, count, None if racks is None else tuple(tuple(r) for r in racks)
        )
    return topics


def _member(
    member_id: str, value: Any, by_name: Mapping[str, Uuid], names: dict[Uuid, str], at: str
) -> ServerMember:
    _expect(isinstance(value, dict), at, "", "expected an object")
    topics = value.get("topics")
    _expect(
        isinstance(topics, list) and all(isinstance(t, str) for t in topics),
        at,
        "topics",
        "expected a list of names",
    )
    current: dict[Uuid, list[int]] = {}
    for entry in _entries(value.get("current", []), at):
        topic_id = _entry_topic_id(entry, by_name, names, at)
        current.setdefault(topic_id, []).append(entry[1])
    for name in value.get("current_empty_topics") or ():
        _expect(name in by_name, at, "current_empty_topics", f"unknown topic {name!r}")
        current.setdefault(by_name[name], [])
    return ServerMember(
        member_id,
        tuple(topics),
        tuple((t, tuple(ps)) for t, ps in current.items()),
        instance_id=value.get("instance_id"),
        rack=value.get("rack"),
    )


def _entry_topic_id(
    entry: list[Any], by_name: Mapping[str, Uuid], names: dict[Uuid, str], at: str
) -> Uuid:
    if len(entry) == 3:  # a partition of an id no longer in the map
        topic_id = _uuid(entry[2], at, "current")
        names.setdefault(topic_id, entry[0])
        return topic_id
    _expect(entry[0] in by_name, at, "current", f"topic {entry[0]!r} is not in the topic map")
    return by_name[entry[0]]


def _entries(value: Any, at: str) -> list[list[Any]]:
    ok = isinstance(value, list) and all(
        isinstance(e, list) and len(e) in (2, 3) and isinstance(e[0], str) and _is_int(e[1])
        for e in value
    )
    _expect(ok, at, "current", "expected [[topic, partition(, topic_id)], ...]")
    return value


def _pair_entries(value: Any, at: str) -> list[tuple[str, int]]:
    return [(e[0], e[1]) for e in _entries(value, at)]


def _uuid(value: Any, at: str, path: str) -> Uuid:
    try:
        return Uuid.from_string(value)
    except ValueError as exc:
        raise ScenarioError(f"{at}: {path}: {exc}") from None


def _expect(condition: Any, where: str, path: str, problem: str) -> None:
    if not condition:
        raise ScenarioError(f"{where}: {path or '<top level>'}: {problem}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# -- replaying ------------------------------------------------------------------------------------
