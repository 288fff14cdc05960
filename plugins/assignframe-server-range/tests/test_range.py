"""server:range on groups of our own: contiguous ranges, static members first, not sticky."""

from __future__ import annotations

from assignframe_server_range import RangeAssignor

from assignframe import ServerGroupSpec, ServerMember, ServerTopic, Uuid, get_plugin_manager

T0 = Uuid(3, 4)
TOPICS = {T0: ServerTopic(T0, "t0", 7)}


def test_found_through_its_entry_point_beside_the_client_range():
    pm = get_plugin_manager()
    assert isinstance(pm.server_assignor("server:range"), RangeAssignor)
    assert "server:range" in pm.registry.server_names()


def test_static_members_first_then_member_ids_in_java_string_order():
    spec = ServerGroupSpec(
        {
            "c10": ServerMember("c10", ("t0",)),
            "c2": ServerMember("c2", ("t0",)),
            "z": ServerMember("z", ("t0",), instance_id="i-1"),
        },
        TOPICS,
    )
    result = RangeAssignor().assign(spec)
    assert [p for _, p in result.partitions_of("z")] == [0, 1, 2]
    assert [p for _, p in result.partitions_of("c10")] == [3, 4]  # "c10" < "c2" in Java
    assert [p for _, p in result.partitions_of("c2")] == [5, 6]


def test_not_sticky_the_current_assignment_is_ignored():
    members = {m: ServerMember(m, ("t0",)) for m in ("a", "b")}
    fresh = RangeAssignor().assign(ServerGroupSpec(members, TOPICS))
    held = {
        "a": ServerMember("a", ("t0",), ((T0, (4, 5, 6)),)),
        "b": ServerMember("b", ("t0",), ((T0, (0, 1, 2, 3)),)),
    }
    assert RangeAssignor().assign(ServerGroupSpec(held, TOPICS)) == fresh


def test_every_member_is_in_the_result_even_with_nothing():
    members = {m: ServerMember(m, ("t0",)) for m in "abcdefghij"}
    result = RangeAssignor().assign(ServerGroupSpec(members, TOPICS))
    assert set(result.members) == set(members)
    assert sum(len(result.partitions_of(m)) for m in members) == 7
