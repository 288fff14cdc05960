"""Round-robin behaviour pinned beyond the golden file: the javadoc examples and edge rules."""

from __future__ import annotations

from assignframe_roundrobin import RoundRobinStrategy

from assignframe import Cluster, GroupSubscription, Member


def _assign(members, counts):
    group = GroupSubscription({m.member_id: m for m in members}, Cluster(counts))
    assignment = RoundRobinStrategy().assign(group)
    return {m: [str(tp) for tp in assignment.partitions_of(m)] for m in group.members}


def test_javadoc_identical_subscriptions():
    members = [Member("C0", ("t0", "t1")), Member("C1", ("t0", "t1"))]
    assert _assign(members, {"t0": 3, "t1": 3}) == {
        "C0": ["t0-0", "t0-2", "t1-1"],
        "C1": ["t0-1", "t1-0", "t1-2"],
    }


def test_javadoc_unequal_subscriptions_skip_non_subscribers():
    members = [Member("C0", ("t0",)), Member("C1", ("t0", "t1")), Member("C2", ("t0", "t1", "t2"))]
    assert _assign(members, {"t0": 1, "t1": 2, "t2": 3}) == {
        "C0": ["t0-0"],
        "C1": ["t1-0"],
        "C2": ["t1-1", "t2-0", "t2-1", "t2-2"],
    }


def test_pointer_wraps_past_the_last_subscriber():
    # b takes x-0; the pointer then sits past b, so y-0 wraps to a (not c, which lacks y).
    members = [Member("a", ("x", "y")), Member("b", ("x",)), Member("c", ("z",))]
    result = _assign(members, {"x": 2, "y": 1, "z": 1})
    assert result == {"a": ["x-0", "y-0"], "b": ["x-1"], "c": ["z-0"]}


def test_static_members_keep_their_slot_across_member_id_changes():
    before = [Member(f"m{i}", ("t",), group_instance_id=f"i{i}") for i in range(3)]
    after = [Member(f"new-{9 - i}", ("t",), group_instance_id=f"i{i}") for i in range(3)]
    by_instance = [
        {m.group_instance_id: r[m.member_id] for m in ms}
        for ms, r in ((before, _assign(before, {"t": 6})), (after, _assign(after, {"t": 6})))
    ]
    assert by_instance[0] == by_instance[1]


def test_blog_case_uses_eight_of_ten_consumers():
    members = [Member(f"c{i}", ("t0", "t1")) for i in range(10)]
    loads = [len(ps) for ps in _assign(members, {"t0": 5, "t1": 3}).values()]
    assert sorted(loads) == [0, 0] + [1] * 8
