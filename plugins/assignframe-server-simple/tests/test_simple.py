"""server:simple's properties on share groups of our own: sharing, balance, discovery."""

from __future__ import annotations

from collections import Counter

from assignframe_server_simple import SimpleAssignor

from assignframe import ServerGroupSpec, ServerMember, ServerTopic, Uuid, get_plugin_manager

T0, T1 = Uuid(0, 1), Uuid(0, 2)
TOPICS = {T0: ServerTopic(T0, "t0", 2), T1: ServerTopic(T1, "t1", 1)}


def share_group(members: dict[str, tuple[str, ...]]) -> ServerGroupSpec:
    return ServerGroupSpec(
        {m: ServerMember(m, topics) for m, topics in members.items()}, TOPICS, group_type="share"
    )


def test_found_through_its_entry_point_for_share_groups():
    assignor = get_plugin_manager().server_assignor("server:simple")
    assert isinstance(assignor, SimpleAssignor) and assignor.group_types == ("share",)


def test_more_members_than_partitions_share_each_partition():
    spec = share_group({f"m{i}": ("t0", "t1") for i in range(7)})
    result = SimpleAssignor().assign(spec)
    owners = Counter(tp for m in spec.members for tp in result.partitions_of(m))
    # 7 members over 3 partitions: each partition wants ceil(7 / 3) = 3 owners.
    assert owners == {(T0, 0): 3, (T0, 1): 3, (T1, 0): 3}
    per_member = sorted(len(result.partitions_of(m)) for m in spec.members)
    assert per_member[-1] - per_member[0] <= 1


def test_heterogeneous_balances_each_topic_among_its_subscribers():
    spec = share_group({"a": ("t0",), "b": ("t0", "t1"), "c": ("t1",)})
    result = SimpleAssignor().assign(spec)
    t1_owners = {m for m in spec.members if any(t == T1 for t, _ in result.partitions_of(m))}
    assert t1_owners <= {"b", "c"} and t1_owners
    assert {p for m in ("a", "b") for t, p in result.partitions_of(m) if t == T0} == {0, 1}
