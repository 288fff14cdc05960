"""Helpers shared by the tests: golden scenarios, members as each strategy's members describe
themselves, validity under both protocols, settling a cooperative rebalance, stickiness."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from assignframe_codec import encode_sticky_user_data
from assignframe_sticky import CooperativeStickyStrategy
from assignframe_sticky.userdata import cooperative_claim

from assignframe import (
    Cluster,
    GroupAssignment,
    GroupSubscription,
    Member,
    RoundResult,
    Strategy,
    TopicPartition,
    validate_assignment,
)
from assignframe.testing import shared_path

STICKY_NAMES = ("sticky", "cooperative-sticky")

#: Counts the golden tests collect; conftest.py prints them in the terminal summary.
STATS: Counter[str] = Counter()


@cache
def sticky_scenarios() -> tuple[dict[str, Any], ...]:
    path = shared_path(__file__) / "golden" / "assign.jsonl"
    with path.open(encoding="utf-8") as lines:
        return tuple(s for s in map(json.loads, lines) if s["assignor"] in STICKY_NAMES)


def java_assignment(record: Mapping[str, Any]) -> GroupAssignment:
    return GroupAssignment.from_partitions(
        {m: [tuple(p) for p in ps] for m, ps in record["result"].items()}
    )


def _racks(racks: Mapping | None) -> dict | None:
    return {t: tuple(map(tuple, per)) for t, per in racks.items()} if racks else None


def leader_views(scenario: dict, strategy: Strategy) -> Iterator[tuple[dict, GroupSubscription]]:
    """Each recorded round as the GroupSubscription Java's leader saw (recorded fields, user
    data decoded by ``strategy``)."""
    counts = dict(scenario["partitions_per_topic"])
    racks = scenario.get("partition_racks")
    for record in scenario["rounds"]:
        counts = dict(record["partitions_per_topic"] or counts)
        racks = record["partition_racks"] or racks
        members = {}
        for member_id, info in record["members"].items():
            sub = record["subscriptions"][member_id]
            version = (info.get("crafted") or {}).get("subscription_version", 3)
            user_data = bytes.fromhex(sub["user_data"]) if sub["user_data"] is not None else None
            members[member_id] = Member(
                member_id,
                tuple(sorted(info["topics"])),
                owned_partitions=[tuple(p) for p in sub["owned_partitions"]],
                generation=-1 if sub["generation_id"] is None else sub["generation_id"],
                group_instance_id=info["group_instance_id"],
                rack=info["rack"],
                user_data=user_data,
                decoded_user_data=strategy.decode_user_data(user_data, version),
                subscription_version=version,
            )
        yield (
            record,
            GroupSubscription(members, Cluster(counts, _racks(racks)), record["generation"]),
        )


def sticky_member(
    strategy: Strategy,
    member_id: str,
    topics: tuple[str, ...],
    owned,
    generation: int,
    rack: str | None = None,
) -> Member:
    """A member that owned ``owned`` (``(topic, partition)`` pairs or TopicPartitions) in
    ``generation``, as it tells the leader: cooperative-sticky in the subscription's owned
    partitions and generation, sticky in its StickyAssignor user data."""
    pairs = [(tp[0], tp[1]) for tp in owned]
    if isinstance(strategy, CooperativeStickyStrategy):
        return Member(member_id, topics, owned_partitions=pairs, generation=generation, rack=rack)
    user_data = encode_sticky_user_data(pairs, generation)
    return Member(
        member_id,
        topics,
        user_data=user_data,
        decoded_user_data=strategy.decode_user_data(user_data, 3),
        rack=rack,
    )


def settled(strategy: Strategy, group: GroupSubscription) -> GroupAssignment:
    """Eager: the assignment. Cooperative: this round, then the follow-up round in which every
    member owns what it was given (revoked partitions released). Both rounds are checked valid,
    the follow-up complete (settled in one) and deterministic."""
    cooperative = isinstance(strategy, CooperativeStickyStrategy)
    first = strategy.assign(group)
    assert check_assignment(group, first, cooperative) == []
    if not cooperative:
        return first
    members = {
        m: Member(
            m,
            x.topics,
            owned_partitions=first.partitions_of(m),
            generation=group.generation,
            rack=x.rack,
        )
        for m, x in group.members.items()
    }
    follow_up = GroupSubscription(members, group.cluster, group.generation + 1)
    final = strategy.assign(follow_up)
    assert check_assignment(follow_up, final, cooperative=False) == [], "not settled in one"
    assert final == strategy.assign(follow_up)
    return final


def claims_of(group: GroupSubscription, cooperative: bool) -> dict[str, set[TopicPartition]]:
    """What each member says it owned before the round (any generation)."""
    if cooperative:
        return {m: set(member.owned_partitions) for m, member in group.members.items()}
    claims = {}
    for member_id, member in group.members.items():
        decoded = member.decoded_user_data
        groups = decoded.previous_assignment if decoded is not None else ()
        claims[member_id] = {TopicPartition(g.topic, p) for g in groups for p in g.partitions}
    return claims


def check_assignment(
    group: GroupSubscription, assignment: GroupAssignment, cooperative: bool
) -> list[str]:
    """Problems with one round's assignment (empty = valid).

    Both protocols: no partition twice, none to a non-subscriber, none the cluster lacks.
    EAGER: every subscribed partition assigned. COOPERATIVE: a partition may stay unassigned only
    while some member still claims it (it is being revoked), and a member gets a partition another
    member claims only if its own claim is strictly newer (it already owns it).
    """
    validity = validate_assignment(group, assignment)
    problems = [f"double owned {tp}" for tp in validity.double_owned]
    problems += [f"{tp} to non-subscriber {m}" for m, tp in validity.non_subscriber]
    problems += [f"{tp} to {m}, not in the cluster" for m, tp in validity.unknown]
    if not cooperative:
        return problems + [f"unowned {tp}" for tp in validity.unowned]
    claims = claims_of(group, cooperative=True)
    pending = set().union(*claims.values()) if claims else set()
    problems += [f"unowned {tp}, claimed by nobody" for tp in validity.unowned if tp not in pending]
    generation = {m: cooperative_claim(member).generation for m, member in group.members.items()}
    for member_id, assigned in assignment.assignments.items():
        for tp in assigned.partitions:
            mine = tp in claims[member_id]
            others = [
                m
                for m, owned in claims.items()
                if m != member_id
                and tp in owned
                and not (mine and generation[member_id] > generation[m])
            ]
            if others:
                problems.append(f"{tp} to {member_id} while {others} may still own it")
    return problems


def check_round(round_: RoundResult, cooperative: bool) -> list[str]:
    return check_assignment(round_.group, round_.assignment, cooperative)


def kept(assignment: GroupAssignment, claims: Mapping[str, set[TopicPartition]]) -> int:
    """Partitions given to a member that claimed them before the round."""
    return sum(
        tp in claims.get(m, ()) for m, a in assignment.assignments.items() for tp in a.partitions
    )


def _rack_aware(group: GroupSubscription) -> bool:
    """Java's ``useRackAwareAssignment``: some member rack holds replicas, and not every
    subscribed partition has replicas on every rack."""
    member_racks = {m.rack for m in group.members.values() if m.rack}
    subscribed = set().union(*(m.topics for m in group.members.values()))
    counts = group.cluster.partitions_per_topic
    per_partition = [
        frozenset(racks[p]) if p < len(racks) else frozenset()
        for topic, racks in group.cluster.partition_racks.items()
        if topic in subscribed
        for p in range(counts.get(topic, 0))
    ]
    every = frozenset().union(*per_partition)
    return bool(member_racks & every) and any(r != every for r in per_partition)


def rack_mismatches(group: GroupSubscription, assignment: GroupAssignment) -> int:
    """Partitions on a member with a rack where no replica lives (Java's count in its
    rack-aware tests); 0 when racks play no part (Java's rule for using them)."""
    racks = group.cluster.partition_racks
    if not racks or not _rack_aware(group):
        return 0
    count = 0
    for member_id, assigned in assignment.assignments.items():
        rack = group.members[member_id].rack
        if not rack:
            continue
        for tp in assigned.partitions:
            per_partition = racks.get(tp.topic, ())
            replicas = per_partition[tp.partition] if tp.partition < len(per_partition) else ()
            count += rack not in replicas
    return count
