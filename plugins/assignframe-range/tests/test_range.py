"""Range behaviour worth pinning beyond the golden file: the documented examples and edge rules."""

from __future__ import annotations

from assignframe_range import RangeStrategy

from assignframe import Cluster, GroupSubscription, Member


def _assign(members, counts, racks=None):
    group = GroupSubscription({m.member_id: m for m in members}, Cluster(counts, racks))
    assignment = RangeStrategy().assign(group)
    return {m: [str(tp) for tp in assignment.partitions_of(m)] for m in group.members}


def test_javadoc_example():
    members = [Member("C0", ("t0", "t1")), Member("C1", ("t0", "t1"))]
    assert _assign(members, {"t0": 3, "t1": 3}) == {
        "C0": ["t0-0", "t0-1", "t1-0", "t1-1"],
        "C1": ["t0-2", "t1-2"],
    }


def test_blog_case_leaves_five_of_ten_consumers_idle():
    members = [Member(f"c{i}", ("t0", "t1")) for i in range(10)]
    loads = [len(ps) for ps in _assign(members, {"t0": 5, "t1": 3}).values()]
    assert sorted(loads) == [0] * 5 + [1] * 2 + [2] * 3


def test_static_members_come_first_ordered_by_instance_id():
    members = [
        Member("aaa", ("t",), group_instance_id="instance-z"),
        Member("mmm", ("t",)),
        Member("zzz", ("t",), group_instance_id="instance-a"),
    ]
    assert _assign(members, {"t": 3}) == {"zzz": ["t-0"], "aaa": ["t-1"], "mmm": ["t-2"]}


def test_member_ids_compare_as_strings_not_numbers():
    members = [Member(m, ("t",)) for m in ("c2", "c10")]
    assert _assign(members, {"t": 2}) == {"c2": ["t-1"], "c10": ["t-0"]}


def test_members_of_missing_topics_get_nothing_but_are_present():
    members = [Member("a", ("ghost",)), Member("b", ())]
    assert _assign(members, {"t": 2}) == {"a": [], "b": []}


def test_rack_aware_keeps_co_partitioned_topics_together_on_matching_racks():
    racks = {"x": [["r0"], ["r1"]], "y": [["r0"], ["r1"]]}
    members = [Member("m0", ("x", "y"), rack="r1"), Member("m1", ("x", "y"), rack="r0")]
    # Without racks m0 would take partition 0 of both; racks move it to partition 1 of both.
    assert _assign(members, {"x": 2, "y": 2}, racks) == {"m0": ["x-1", "y-1"], "m1": ["x-0", "y-0"]}


def test_rack_aware_still_balances_before_matching_racks():
    racks = {"t": [["r0"], ["r0"], ["r0"], ["r1"]]}
    members = [Member("m0", ("t",), rack="r0"), Member("m1", ("t",), rack="r0")]
    loads = sorted(len(ps) for ps in _assign(members, {"t": 4}, racks).values())
    assert loads == [2, 2]
