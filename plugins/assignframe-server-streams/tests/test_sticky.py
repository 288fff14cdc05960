"""streams:sticky's properties on groups of our own: found by name, every active task once,
standby tasks never beside their active task, sticky previous owners."""

from __future__ import annotations

from collections import Counter

from assignframe_server_streams import StickyTaskAssignor
from hypothesis import given, settings

from assignframe import get_plugin_manager
from assignframe.streams_assignor import (
    MemberTasks,
    StreamsGroupSpec,
    StreamsMember,
    Subtopology,
    task_label,
)
from assignframe.testing.streams_differential import streams_groups

TOPOLOGY = (Subtopology("0", 4, stateful=True), Subtopology("1", 4))


def group(*members: StreamsMember, standby: int = 1) -> StreamsGroupSpec:
    return StreamsGroupSpec(members, TOPOLOGY, standby)


def test_found_through_its_entry_point_for_streams_groups():
    assignor = get_plugin_manager().streams_assignor("sticky")
    assert isinstance(assignor, StickyTaskAssignor)
    assert assignor.qualified_name() == "streams:sticky" and assignor.group_types == ("streams",)
    names = [info.name for info in get_plugin_manager().server_assignor_info()]
    assert "streams:sticky" in names


def test_every_active_task_once_and_standbys_off_their_process():
    members = [StreamsMember(f"{p}-{t}", p) for p in "ABC" for t in (1, 2)]
    result = StickyTaskAssignor().assign(group(*members)).members
    active = Counter(task for tasks in result.values() for task in tasks.active)
    assert active == {(s, p): 1 for s in ("0", "1") for p in range(4)}
    process_of = {m.member_id: m.process_id for m in members}
    for task in [("0", p) for p in range(4)]:
        (runner,) = [m for m, t in result.items() if task in t.active]
        standbys = [m for m, t in result.items() if task in t.standby]
        assert len(standbys) == 1, task_label(task)  # 3 processes: room for the one replica
        assert process_of[standbys[0]] != process_of[runner]
    assert not any(sub == "1" for t in result.values() for sub, _ in t.standby)  # stateless
    assert all(t.warmup == () for t in result.values())  # 4.3.1 assigns no warm-up tasks


def test_previous_owners_keep_their_tasks_when_a_member_joins():
    a = StreamsMember("a", "A", MemberTasks(active=[("0", 0), ("0", 1), ("1", 0), ("1", 1)]))
    b = StreamsMember("b", "B", MemberTasks(active=[("0", 2), ("0", 3), ("1", 2), ("1", 3)]))
    c = StreamsMember("c", "C")
    result = StickyTaskAssignor().assign(group(a, b, c, standby=0)).members
    # quota ceil(8 / 3) = 3: a and b keep 3 of their 4 tasks each, c gets the 2 they give up
    assert set(result["a"].active) < set(a.current.active) and len(result["a"].active) == 3
    assert set(result["b"].active) < set(b.current.active) and len(result["b"].active) == 3
    assert len(result["c"].active) == 2


def test_one_process_gets_no_standby():
    members = [StreamsMember(f"t{i}", "only") for i in range(3)]
    result = StickyTaskAssignor().assign(group(*members, standby=2)).members
    assert not any(t.standby for t in result.values())


@settings(max_examples=300, deadline=None)
@given(streams_groups())
def test_invariants_on_generated_groups(group):
    """Every active task exactly once; a process never holds a task twice (active or standby);
    at most num_standby_replicas standbys per task, only of stateful tasks; deterministic."""
    result = StickyTaskAssignor().assign(group).members
    assert result == StickyTaskAssignor().assign(group).members
    assert set(result) == {m.member_id for m in group.members}
    every = {(s.subtopology_id, p) for s in group.subtopologies for p in range(s.partitions)}
    stateful = {
        t for t in every if t[0] in {s.subtopology_id for s in group.subtopologies if s.stateful}
    }
    active = Counter(t for tasks in result.values() for t in tasks.active)
    assert active == dict.fromkeys(every, 1)
    standby = Counter(t for tasks in result.values() for t in tasks.standby)
    assert set(standby) <= stateful
    assert all(n <= group.num_standby_replicas for n in standby.values())
    process_of = {m.member_id: m.process_id for m in group.members}
    held = Counter(
        (process_of[m], t) for m, tasks in result.items() for t in (*tasks.active, *tasks.standby)
    )
    assert all(n == 1 for n in held.values())
