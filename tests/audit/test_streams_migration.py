"""The Streams-protocol migration verdict of a classic Kafka Streams group (Kafka 4.3: offline
only, static members refused), from a group snapshot as inspect makes it."""

from __future__ import annotations

from assignframe.audit.streams_migration import is_classic_streams, streams_migration
from assignframe.model import Cluster, GroupAssignment, Member, MemberAssignment, TopicPartition
from assignframe.snapshot import GroupSnapshot


def _group(protocol: str, instance_ids: list[str | None]) -> GroupSnapshot:
    members = {f"m{i}": Member(f"m{i}", ("in",), group_instance_id=iid)
               for i, iid in enumerate(instance_ids)}
    current = {m: MemberAssignment((TopicPartition("in", i),)) for i, m in enumerate(members)}
    return GroupSnapshot("app", 3, protocol, members, GroupAssignment(current),
                         Cluster({"in": len(members)}))


def test_a_dynamic_streams_group_may_move_offline_only():
    verdict = streams_migration(_group("stream", [None, None]))
    assert is_classic_streams(_group("stream", [None]))
    assert verdict.startswith("to streams protocol: offline only (Kafka 4.3")
    assert "group.protocol=streams" in verdict and "no warm-up tasks" in verdict


def test_static_members_make_it_not_supported():
    verdict = streams_migration(_group("stream", ["b", None, "a"]))
    assert verdict.startswith("to streams protocol: not supported: 2 static member(s) (a, b)")


def test_other_classic_groups_are_not_streams_apps():
    assert not is_classic_streams(_group("range", [None]))
    assert not is_classic_streams(_group("cooperative-sticky", [None]))
