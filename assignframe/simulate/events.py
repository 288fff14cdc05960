"""The events of a scenario timeline, one frozen dataclass with a ``kind``.

Every event is written as a mapping whose *kind key* names the member or topic it is about, plus
the fields of that kind::

    - join: C0                  # also: topics, strategies, rack, static_id
      topics: [t0, t1]
    - leave: C1                 # LeaveGroup: the coordinator rebalances at once
    - crash: C2                 # no LeaveGroup: same for assignment, after session.timeout.ms
    - subscribe: C0             # the member changes its subscription
      topics: [t0, t1, t2]
    - restart: C0               # the process restarts (fresh state) with optional new config
      strategies: [cooperative-sticky, range]
    - add_partitions: t0        # new total partition count (a new topic when t0 is unknown)
      partitions: 4
    - delete_topic: t1
    - lag: t0                   # new lag of every partition of t0
      values: [100, 60, 50]
    - upgrade: C0               # restarts on the consumer protocol (KIP-848), optionally naming
      assignor: range           # its group.remote.assignor
    - downgrade: C0             # restarts on the classic protocol

A join may name ``protocol: consumer`` (default ``classic``) and ``assignor``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ._fields import (
    Where,
    mapping,
    name,
    names_list,
    optional_name,
    optional_names,
    parse_lags,
    parse_racks,
    partition_count,
    reject_unknown,
)

__all__ = ["EVENT_KINDS", "PROTOCOLS", "Event", "parse_event"]

#: The group protocols a member can speak: JoinGroup/SyncGroup, or KIP-848 heartbeats.
PROTOCOLS = ("classic", "consumer")


@dataclass(frozen=True)
class Event:
    """One timeline event; which fields are set depends on ``kind`` (see the module docstring)."""

    kind: str
    member: str | None = None
    topic: str | None = None
    topics: tuple[str, ...] | None = None
    strategies: tuple[str, ...] | None = None
    rack: str | None = None
    static_id: str | None = None
    partitions: int | None = None
    racks: tuple[tuple[str, ...], ...] | None = None
    lags: tuple[int, ...] | None = None
    protocol: str | None = None
    assignor: str | None = None

    def describe(self) -> str:
        """A short human description, e.g. ``C1 crashes (session timeout)``."""
        return _DESCRIBE[self.kind](self)

    def check(self, members: set[str], topics: Mapping[str, int]) -> str | None:
        """Why this event cannot apply to ``members`` and ``topics`` (None when it can)."""
        if self.member is not None:
            present = self.member in members
            if self.kind == "join" and present:
                return f"member {self.member!r} is already in the group"
            if self.kind != "join" and not present:
                return f"member {self.member!r} is not in the group"
        if self.kind in ("delete_topic", "lag") and self.topic not in topics:
            return f"topic {self.topic!r} does not exist"
        if self.kind == "lag" and len(self.lags or ()) != topics[self.topic or ""]:
            return f"expected {topics[self.topic or '']} lag values, got {len(self.lags or ())}"
        if self.kind == "add_partitions" and (self.partitions or 0) < topics.get(
            self.topic or "", 0
        ):
            return f"partitions cannot shrink ({topics[self.topic or '']} -> {self.partitions})"
        return None

    def apply_names(self, members: set[str], topics: dict[str, int]) -> None:
        """Track membership and partition counts the way the simulation will."""
        if self.kind == "join":
            members.add(self.member or "")
        elif self.kind in ("leave", "crash"):
            members.discard(self.member or "")
        elif self.kind == "add_partitions":
            topics[self.topic or ""] = self.partitions or 0
        elif self.kind == "delete_topic":
            topics.pop(self.topic or "", None)


def parse_event(where: Where, field_path: str, value: Any) -> Event:
    """Parse one event mapping; exactly one key must be an event kind."""
    event = mapping(where, field_path, value)
    kinds = [k for k in event if k in EVENT_KINDS]
    if len(kinds) != 1:
        raise where.error(field_path, f"expected exactly one event kind of {sorted(EVENT_KINDS)}")
    kind = kinds[0]
    keys, parse = EVENT_KINDS[kind]
    reject_unknown(where, f"{field_path}.{kind}", event, keys | {kind})
    return parse(where, f"{field_path}.{kind}", event)


def _join(where: Where, at: str, event: dict[str, Any]) -> Event:
    return Event(
        "join",
        member=name(where, at, event["join"]),
        topics=names_list(where, f"{at}.topics", event.get("topics")),
        strategies=optional_names(where, f"{at}.strategies", event.get("strategies")),
        rack=optional_name(where, f"{at}.rack", event.get("rack")),
        static_id=optional_name(where, f"{at}.static_id", event.get("static_id")),
        protocol=_protocol(where, f"{at}.protocol", event.get("protocol")),
        assignor=optional_name(where, f"{at}.assignor", event.get("assignor")),
    )


def _protocol(where: Where, at: str, value: Any) -> str | None:
    if value is None or value in PROTOCOLS:
        return value
    raise where.error(at, f"expected one of {list(PROTOCOLS)}, got {value!r}")


def _upgrade(where: Where, at: str, event: dict[str, Any]) -> Event:
    member = name(where, at, event["upgrade"])
    assignor = optional_name(where, f"{at}.assignor", event.get("assignor"))
    return Event("upgrade", member=member, protocol="consumer", assignor=assignor)


def _downgrade(where: Where, at: str, event: dict[str, Any]) -> Event:
    return Event("downgrade", member=name(where, at, event["downgrade"]), protocol="classic")


def _member_only(kind: str) -> Callable[[Where, str, dict[str, Any]], Event]:
    def parse(where: Where, at: str, event: dict[str, Any]) -> Event:
        return Event(kind, member=name(where, at, event[kind]))

    return parse


def _subscribe(where: Where, at: str, event: dict[str, Any]) -> Event:
    topics = names_list(where, f"{at}.topics", event.get("topics"))
    return Event("subscribe", member=name(where, at, event["subscribe"]), topics=topics)


def _restart(where: Where, at: str, event: dict[str, Any]) -> Event:
    return Event(
        "restart",
        member=name(where, at, event["restart"]),
        topics=optional_names(where, f"{at}.topics", event.get("topics")),
        strategies=optional_names(where, f"{at}.strategies", event.get("strategies")),
        rack=optional_name(where, f"{at}.rack", event.get("rack")),
    )


def _add_partitions(where: Where, at: str, event: dict[str, Any]) -> Event:
    count = partition_count(where, f"{at}.partitions", event.get("partitions"))
    racks = parse_racks(where, f"{at}.racks", event.get("racks"), count)
    return Event(
        "add_partitions",
        topic=name(where, at, event["add_partitions"]),
        partitions=count,
        racks=racks,
    )


def _delete_topic(where: Where, at: str, event: dict[str, Any]) -> Event:
    return Event("delete_topic", topic=name(where, at, event["delete_topic"]))


def _lag(where: Where, at: str, event: dict[str, Any]) -> Event:
    values = event.get("values")
    count = len(values) if isinstance(values, list) else -1
    lags = parse_lags(where, f"{at}.values", values, count)
    return Event("lag", topic=name(where, at, event["lag"]), lags=lags)


EVENT_KINDS: dict[str, tuple[set[str], Callable[[Where, str, dict[str, Any]], Event]]] = {
    "join": ({"topics", "strategies", "rack", "static_id", "protocol", "assignor"}, _join),
    "leave": (set(), _member_only("leave")),
    "crash": (set(), _member_only("crash")),
    "subscribe": ({"topics"}, _subscribe),
    "restart": ({"topics", "strategies", "rack"}, _restart),
    "add_partitions": ({"partitions", "racks"}, _add_partitions),
    "delete_topic": (set(), _delete_topic),
    "lag": ({"values"}, _lag),
    "upgrade": ({"assignor"}, _upgrade),
    "downgrade": (set(), _downgrade),
}

_DESCRIBE: dict[str, Callable[[Event], str]] = {
    "join": lambda e: f"{e.member} joins ({', '.join(e.topics or ())})",
    "leave": lambda e: f"{e.member} leaves",
    "crash": lambda e: f"{e.member} crashes (removed after session.timeout.ms)",
    "subscribe": lambda e: f"{e.member} subscribes to {', '.join(e.topics or ())}",
    "restart": lambda e: (
        f"{e.member} restarts" + (f" offering {', '.join(e.strategies)}" if e.strategies else "")
    ),
    "add_partitions": lambda e: f"{e.topic} grows to {e.partitions} partitions",
    "delete_topic": lambda e: f"{e.topic} is deleted",
    "lag": lambda e: f"lag of {e.topic} changes",
    "upgrade": lambda e: (
        f"{e.member} restarts on the consumer protocol"
        + (f" (assignor {e.assignor})" if e.assignor else "")
    ),
    "downgrade": lambda e: f"{e.member} restarts on the classic protocol",
}
