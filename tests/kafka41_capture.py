"""The shipped Apache Kafka 4.1 consumer-protocol capture (``kafka41_consumer_protocol.pcap``,
recorded by ``scripts/record_consumer_protocol_capture.py``), decoded, and what the broker showed
of each group epoch in it.

Used by ``tests/decode/kip848/test_kafka41_capture.py`` (decode, reconciliation, the members' own
reports; core env) and ``tests/server/test_kafka41_capture.py`` (the server-assignor plugins
against the broker's targets; tools env, where those plugins are installed).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assignframe.decode import decode_capture

CAPTURES = Path(__file__).resolve().parents[1] / "assignframe" / "data" / "captures"
CAPTURE = CAPTURES / "kafka41_consumer_protocol.pcap"
EXPECTED = CAPTURES / "kafka41_consumer_protocol.expected.json"

Partitions = frozenset[tuple[str, int]]


@dataclass
class Epoch:
    """One group epoch as the capture shows it.

    ``members``: member id -> subscribed topics, every member in the group at this epoch (the
    group epoch grows by one at each join and each leave, counted in the capture's order);
    ``received``: member id -> each assignment a ConsumerGroupHeartbeat response gave it at this
    member epoch, in order; ``described``: member id -> its target, from the last
    ConsumerGroupDescribe answer in the capture whose group and assignment epochs are this one
    (None when there is none), and ``state`` its group state.
    """

    epoch: int
    members: dict[str, list[str]]
    received: dict[str, list[Partitions]] = field(default_factory=dict)
    described: dict[str, Partitions] | None = None
    state: str | None = None


@functools.cache
def decoded() -> Any:
    return decode_capture(CAPTURE)


@functools.cache
def expected() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(EXPECTED.read_text())
    return loaded


def expected_group(group_id: str) -> dict[str, Any]:
    (group,) = (g for g in expected()["groups"] if g["group_id"] == group_id)
    return group


def timeline(group_id: str) -> Any:
    (group,) = (g for g in decoded().consumer_groups if g.group_id == group_id)
    return group


def pairs(partitions: Any) -> Partitions:
    return frozenset((topic, partition) for topic, partition in partitions)


def epochs(group: Any) -> dict[int, Epoch]:
    """Every group epoch of a decoded consumer-protocol group, from its events in time order.

    :raises AssertionError: a heartbeat answered with an epoch the count of joins and leaves
        does not know, or to a member not in the group at that epoch
    """
    topics: dict[str, list[str]] = {}  # as each member subscribed while in the group (a
    for snapshot in group.snapshots:  # Java member's leave heartbeat carries no topics)
        for member_id, member in snapshot.members.items():
            topics.setdefault(member_id, sorted(member.topics))
    live: dict[str, list[str]] = {}
    found: dict[int, Epoch] = {}
    count = 0
    for event in sorted(group.events, key=lambda e: e["timestamp"]):
        member, kind = event["member_id"], event["event"]
        if kind in ("join", "leave"):
            count += 1
            if kind == "join":
                live[member] = topics[member]
            else:
                live.pop(member)
            found[count] = Epoch(count, dict(live))
        elif kind in ("assignment", "epoch"):
            at = found.get(event["epoch"])
            assert at is not None and member in at.members, (
                f"{group.group_id}: {member} answered at epoch {event['epoch']}, not one of "
                f"its epochs by the joins and leaves: {sorted(found)}"
            )
            at.received.setdefault(member, []).append(pairs(event["partitions"]))
    for described in group.described:
        at = found.get(described["group_epoch"])
        if (described["error"] is None and at is not None
                and described["assignment_epoch"] == described["group_epoch"]):
            at.described = {m: pairs(d["target"]) for m, d in described["members"].items()}
            at.state = described["group_state"]
    return found


def broker_target(epoch: Epoch) -> dict[str, Partitions] | None:
    """The broker's target of every member at ``epoch``: its ConsumerGroupDescribe answer, else
    each member's largest heartbeat assignment at that epoch when every member got one (they
    grow toward the target while others release partitions); None when neither shows it."""
    if epoch.described is not None:
        return epoch.described
    if not epoch.members or set(epoch.received) != set(epoch.members):
        return None
    return {m: max(got, key=len) for m, got in epoch.received.items()}
