"""Objects the core builds with ``model.trusted`` (no ``__init__``) are what the public
constructors build: every field set on the instance, values already normalised."""

from __future__ import annotations

import dataclasses
import json

from assignframe.audit.rerun import AuditContext, replay_strategies
from assignframe.audit.synthetic import fleet_snapshots
from assignframe.model import (
    Member,
    MemberAssignment,
    MemberState,
    TopicPartition,
    trusted,
)
from assignframe.rebalance.runner import Consumer, GroupRunner
from assignframe.snapshot import GroupSnapshot, read_snapshot


def assert_as_constructed(obj: object) -> None:
    names = {f.name for f in dataclasses.fields(obj)}
    assert set(vars(obj)) == names, f"{type(obj).__name__} lacks {names - set(vars(obj))}"
    rebuilt = dataclasses.replace(obj)  # through __init__
    assert rebuilt == obj
    for name in names:  # the constructor changed nothing (tuples stay the same objects)
        value = getattr(obj, name)
        if isinstance(value, tuple):
            assert getattr(rebuilt, name) is value, f"{type(obj).__name__}.{name} renormalised"
            if name in ("partitions", "owned_partitions"):
                assert all(type(tp) is TopicPartition for tp in value)


def test_trusted_needs_every_field_to_match_the_constructor():
    built = trusted(MemberAssignment, partitions=(TopicPartition("t", 0),), user_data=None)
    constructed = MemberAssignment((("t", 0),))
    assert built == constructed and hash(built) == hash(constructed)
    assert_as_constructed(built)


def test_what_the_reader_and_the_runner_build_is_what_the_constructors_build():
    context = AuditContext.create(("range", "sticky", "cooperative-sticky", "fair"))
    seen: set[type] = set()
    for raw in fleet_snapshots(40, seed=3):
        snapshot = read_snapshot(json.dumps(raw))  # as the audit reads a JSON line
        if not isinstance(snapshot, GroupSnapshot) or snapshot.group_type != "classic":
            continue
        objects = [
            *snapshot.members.values(),
            *snapshot.current.assignments.values(),
            *snapshot.member_info.values(),
            *snapshot.wire.values(),
        ]
        for outcome in replay_strategies(snapshot, context.strategies, context):
            assert outcome.error is None
        runner = GroupRunner(
            "cooperative-sticky", cluster=snapshot.cluster, pm=context.pm, wire=False
        )
        runner.adopt(snapshot.current, max(snapshot.generation, 1))
        objects += runner.states.values()
        consumers = [Consumer(m.member_id, m.topics) for m in snapshot.members.values()]
        result = runner.rebalance(consumers, lags=snapshot.lags)
        for round_ in result.rounds:
            objects += round_.group.members.values()
        objects += runner.states.values()
        for obj in objects:
            assert_as_constructed(obj)
            seen.add(type(obj))
    assert {Member, MemberAssignment, MemberState} <= seen

