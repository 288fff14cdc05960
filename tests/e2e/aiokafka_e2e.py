"""aiokafka members for the e2e groups, and the KIP-429 promises checked on their logs.

``start_aiokafka`` starts ``aiokafka_member.py`` (an application that commits what it processed
of revoked partitions in ``on_partitions_revoked``) through the harness's own ``Group.start``,
so it gets the same config as every other member. The checks read only the members' logs:

* :func:`check_join`: a member joining a cooperative group gets what moves in the follow-up
  round; nobody is revoked more than what moves, kept partitions are never revoked nor assigned
  again, and members that keep fetching (aiokafka, librdkafka) consumed records of their kept
  partitions produced between the two rounds before the rebalance ended;
* :func:`kept_partitions_problems`: across any change of the group, between two stable states;

A member that logged ``lost`` in the window (fenced out of the group, which KIP-429 does not
cover: it restarts everything) is left out of the kept-partition checks, and what it lost may go
to anyone. On Apache Kafka none is lost in these tests; Tansu sometimes fences a member whose
SyncGroup crossed the leader's immediate rejoin.
* :func:`uncommitted_revocations`: an aiokafka member had committed everything it consumed of a
  partition before its ``revoked`` event (so the next owner starts where it stopped).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import e2e_harness
from e2e_harness import Group, MemberProcess, Partition, by_member_id, leader_assignment

AIOKAFKA_MEMBER = Path(__file__).with_name("aiokafka_member.py")
#: Clients that keep fetching their kept partitions while a cooperative rebalance runs
#: (kafka-python 3.0.12 stops returning records while a JoinGroup is in flight).
KEEP_FETCHING = {"aiokafka", "confluent"}


def start_aiokafka(
    group: Group, name: str, strategies: Iterable[str], **extra: Any
) -> MemberProcess:
    """``group.start(name, "aiokafka", ...)``, running aiokafka_member.py instead of member.py."""
    original = e2e_harness.MEMBER_SCRIPT
    e2e_harness.MEMBER_SCRIPT = AIOKAFKA_MEMBER  # the harness has no per-member script yet
    try:
        return group.start(name, "aiokafka", strategies, **extra)
    finally:
        e2e_harness.MEMBER_SCRIPT = original


def of_member(events: list[dict[str, Any]], member: str, kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["m"] == member and e["ev"] == kind]


def partitions_in(events: Iterable[dict[str, Any]]) -> set[Partition]:
    return {(t, p) for e in events for t, p in e["partitions"]}


def kept_partitions_problems(
    group: Group, before: dict[str, set[Partition]], after: dict[str, set[Partition]], since: float
) -> list[str]:
    """Members present in both stable states whose kept partitions were revoked or assigned
    again after ``since``."""
    events = [e for e in group.events() if e["t"] > since]
    problems = []
    for member in sorted((set(before) & set(after)) - lost_members(events)):
        kept = before[member] & after[member]
        revoked = partitions_in(of_member(events, member, "revoked")) & kept
        assigned_again = partitions_in(of_member(events, member, "assigned")) & kept
        if revoked or assigned_again:
            problems.append(
                f"{member} kept {sorted(kept)} but revoked {sorted(revoked)}, "
                f"was assigned again {sorted(assigned_again)}"
            )
    return problems


def check_join(
    group: Group,
    before: dict[str, set[Partition]],
    after: dict[str, set[Partition]],
    joined_at: float,
    newcomer: str,
    producer: Any,
) -> None:
    """The KIP-429 choreography around ``newcomer`` joining (see the module docstring)."""
    names = by_member_id(group)
    rounds = [
        e for e in group.leader_events(since=joined_at) if len(e["members"]) == len(before) + 1
    ]
    assert len(rounds) >= 2, f"expected two rounds, the leader logged {len(rounds)}"
    first = leader_assignment(rounds[0], names)
    owned_then = {p for tps in before.values() for p in tps}
    assert not first.get(newcomer, set()) & owned_then, "handed over in the first round"
    events = [e for e in group.events() if e["t"] >= joined_at]
    lost = lost_members(events)
    stayed = {m: tps for m, tps in before.items() if m not in lost}
    moved = {p for member, tps in before.items() for p in tps - after.get(member, set())}
    assert after[newcomer] and after[newcomer] <= moved, (moved, after[newcomer])
    if not lost:
        assert after[newcomer] == moved, (moved, after[newcomer])
    for member, tps in stayed.items():
        revoked = partitions_in(of_member(events, member, "revoked"))
        assert revoked == tps - after[member], f"{member} revoked {revoked}, not what moved"
    problems = kept_partitions_problems(group, before, after, joined_at)
    assert not problems, "\n".join(problems)
    window = (rounds[0]["t"], rounds[-1]["t"])
    _assert_fetched_between_rounds(group, stayed, after, window, producer)


def lost_members(events: Iterable[dict[str, Any]]) -> set[str]:
    return {e["m"] for e in events if e["ev"] == "lost"}


def _assert_fetched_between_rounds(group, before, after, window, producer) -> None:
    """Records produced to a kept partition between the rounds were consumed by its owner only;
    members that keep fetching consumed some of them before the rebalance ended (the group's last
    assignment callback: on a loaded machine a member may hear of its assignment late)."""
    start, end = window
    records = [e for e in group.events() if e["ev"] == "record"]
    finished = max(
        (e["t"] for e in group.events() if e["ev"] == "assigned" and e["t"] >= end), default=end
    )
    for member, tps in before.items():
        produced = {tp: producer.offsets_within(tp, start, end) for tp in tps & after[member]}
        for tp, offsets in produced.items():
            readers = {
                e["m"]
                for e in records
                if (e["topic"], e["partition"]) == tp and e["offset"] in offsets
            }
            assert readers <= {member}, (
                f"{tp}: records produced between the rounds read by {readers}"
            )
        if group.members[member].client not in KEEP_FETCHING or not any(produced.values()):
            continue
        inside = [
            e
            for e in records
            if e["m"] == member
            and start <= e["t"] <= finished
            and e["offset"] in produced.get((e["topic"], e["partition"]), ())
        ]
        assert inside, f"{member} consumed nothing of its kept partitions during the rebalance"


def uncommitted_revocations(group: Group, clients: Iterable[str] = ("aiokafka",)) -> list[str]:
    """``revoked`` events of members of ``clients`` whose member had not committed everything it
    consumed of a revoked partition before the event."""
    clients = set(clients)
    consumed: dict[tuple[str, Partition], int] = defaultdict(int)
    committed: dict[tuple[str, Partition], int] = defaultdict(int)
    problems = []
    for event in group.events():
        member = event["m"]
        if member not in group.members or group.members[member].client not in clients:
            continue
        if event["ev"] == "record":
            key = (member, (event["topic"], event["partition"]))
            consumed[key] = max(consumed[key], event["offset"] + 1)
        elif event["ev"] == "commit":
            for name, offset in event["offsets"].items():
                topic, _, partition = name.rpartition(":")
                key = (member, (topic, int(partition)))
                committed[key] = max(committed[key], offset)
        elif event["ev"] == "revoked":
            for tp in map(tuple, event["partitions"]):
                key = (member, tp)
                if consumed[key] > committed[key]:
                    problems.append(
                        f"{event['t']:.3f} {member} revoked {tp} having consumed up to "
                        f"{consumed[key]} but committed {committed[key]}"
                    )
    return problems


def wait_stable_at(group: Group, timeout: float) -> tuple[dict[str, set[Partition]], float]:
    """``group.wait_stable`` and the moment it returned."""
    owned = group.wait_stable(timeout=timeout)
    return owned, time.time()
