"""The server-assignor model (GroupSpec as the broker builds it) and its registry namespace."""

from __future__ import annotations

import pickle

import pytest

from assignframe import (
    GroupAssignment,
    ServerAssignment,
    ServerAssignor,
    ServerGroupSpec,
    ServerMember,
    ServerTopic,
    Strategy,
    Uuid,
    hookimpl,
)
from assignframe.errors import DuplicateStrategyError, InvalidStrategyError, UnknownStrategyError
from assignframe.registry import PluginSource, StrategyRegistry

T1 = Uuid(1, 1)
T2 = Uuid(-5, 7)
TOPICS = {T1: ServerTopic(T1, "t1", 3), T2: ServerTopic(T2, "t2", 2)}


class Everything(ServerAssignor):
    name = "range"  # same bare name as a client strategy: must not collide

    def assign(self, group):
        return ServerAssignment(
            {
                m: {t: range(group.num_partitions(t)) for t in group.subscribed_topic_ids(m)}
                for m in group.member_ids()
            }
        )


class ClientRange(Strategy):
    name = "range"

    def assign(self, group):
        return GroupAssignment({})


class NoAssign(ServerAssignor):
    name = "broken"


def spec(**members: tuple[str, ...]) -> ServerGroupSpec:
    return ServerGroupSpec({m: ServerMember(m, topics) for m, topics in members.items()}, TOPICS)


def test_subscription_type_counts_names_of_missing_topics():
    assert spec(a=("t1", "t2"), b=("t2", "t1")).subscription_type == "homogeneous"
    assert spec(a=("t1",), b=("t1", "gone")).subscription_type == "heterogeneous"
    assert spec(a=("gone",), b=("gone",)).subscription_type == "homogeneous"
    assert spec(a=(), b=()).subscription_type == "homogeneous"


def test_subscribed_topic_ids_skip_missing_names_but_size_counts_them():
    group = spec(a=("t2", "gone", "t1"))
    assert set(group.subscribed_topic_ids("a")) == {T1, T2}
    assert group.subscribed_name_count("a") == 3
    assert group.is_subscribed("a", T1) and not group.is_subscribed("a", Uuid(9, 9))


def test_member_topics_are_kept_in_java_string_order():
    # U+1F600 is a surrogate pair (D83D DE00): Java sorts it before U+FF21.
    assert ServerMember("m", ("Ａ", "😀", "a")).topics == ("a", "😀", "Ａ")


def test_partition_assigned_and_assignable():
    group = ServerGroupSpec(
        {"a": ServerMember("a", ("t1",), ((T1, (2,)),))},
        TOPICS,
        unassignable=frozenset({(T1, 0)}),
        group_type="share",
    )
    assert group.is_partition_assigned(T1, 2) and not group.is_partition_assigned(T1, 1)
    assert not group.is_partition_assignable(T1, 0) and group.is_partition_assignable(T1, 1)
    assert group.num_partitions(Uuid(3, 3)) == -1


def test_spec_and_assignment_pickle():
    group = spec(a=("t1",), b=("t1", "t2"))
    assert group.member_ids()  # fill the caches first: they must pickle too
    copy = pickle.loads(pickle.dumps(group))
    assert copy.member_ids() == group.member_ids() and copy.members == group.members
    result = Everything().assign(group)
    assert pickle.loads(pickle.dumps(result)) == result
    assert result.partitions_of("b") == ((T1, 0), (T1, 1), (T1, 2), (T2, 0), (T2, 1))
    assert result.partitions_of("nobody") == ()


def test_registry_keeps_server_assignors_in_their_own_namespace():
    registry = StrategyRegistry()
    with registry.registering_for(PluginSource("x", "dist-x", "1")):
        registry.add(ClientRange)
        registry.add(Everything)
    assert registry.names() == ("range",)
    assert registry.server_names() == ("server:range",)
    assert registry.get("range").cls is ClientRange
    assert registry.get_server("range").cls is Everything
    assert registry.get_server("server:range").cls is Everything
    assert registry.get_server("range").group_types == ("consumer",)


def test_registry_names_both_culprits_of_a_duplicate_server_assignor():
    class Other(Everything):
        pass

    registry = StrategyRegistry()
    with registry.registering_for(PluginSource("x", "dist-x", "1")):
        registry.add(Everything)
    with registry.registering_for(PluginSource("y", "dist-y", "2")):
        with pytest.raises(DuplicateStrategyError, match="server:range.*dist-x.*dist-y"):
            registry.add(Other)


def test_registry_rejects_abstract_server_assignor_and_lists_installed_ones():
    registry = StrategyRegistry()
    with pytest.raises(InvalidStrategyError, match="does not implement assign"):
        registry.add(NoAssign)
    registry.add(Everything)
    with pytest.raises(
        UnknownStrategyError, match="'uniform'.*installed server assignors: server:range"
    ):
        registry.get_server("uniform")
    with pytest.raises(UnknownStrategyError):
        registry.get("server:range")  # client lookups never see server assignors


def test_plugin_manager_finds_server_assignors_through_the_hook(pm):
    class Plugin:
        @staticmethod
        @hookimpl
        def register_strategies(registry):
            registry.add(Everything)

    pm.register(Plugin(), name="server-test")
    assert isinstance(pm.server_assignor("server:range"), Everything)
    (info,) = pm.server_assignor_info()
    assert info.name == "server:range" and info.protocols == ("consumer",)
    assert "server:range" not in pm.strategy_names()


# -- the builder dispatch, and the one validity check ----------------------------------------------

from assignframe.kip848.validity import validate_server_assignment  # noqa: E402
from assignframe.server_assignor import SubscriptionTypeAssignor  # noqa: E402


class Recording(SubscriptionTypeAssignor):
    """Gives each member one partition of t1 and notes which builder ran, and how."""

    name = "recording"

    def __init__(self, **options):
        super().__init__(**options)
        self.calls = []

    def build_homogeneous(self, group, java_order):
        self.calls.append(("homogeneous", java_order))
        return {m: {T1: (i,)} for i, m in enumerate(sorted(group.members))}

    def build_heterogeneous(self, group, java_order):
        self.calls.append(("heterogeneous", java_order))
        return {}


def test_the_subscription_type_picks_the_builder_and_empty_groups_need_none():
    assignor = Recording()
    assert assignor.assign(spec(a=("t1",), b=("t1",))).partitions_of("b") == ((T1, 1),)
    assert assignor.assign_in_java_order(spec(a=("t1",), b=("t2",))).members == {}
    assert assignor.assign(spec()).members == {}
    assert assignor.calls == [("homogeneous", False), ("heterogeneous", True)]


def test_validity_is_the_core_check_seen_through_the_group():
    group = spec(a=("t1",), b=("t1", "t2"))
    assert validate_server_assignment(
        group, ServerAssignment({"a": {T1: (0, 1)}, "b": {T1: (2,), T2: (0, 1)}})
    ).is_valid
    broken = ServerAssignment({"a": {T1: (0, 1, 5), T2: (0,)}, "b": {T1: (1,)}})
    assert validate_server_assignment(group, broken).problems() == (
        "a holds 1 partition(s) of t2 which it does not subscribe to",
        "a holds 1 partition(s) of t1 beyond its partition count",
        "1 partition(s) of t1 assigned to nobody",
        "1 partition(s) of t1 assigned more than once",
        "1 partition(s) of t2 assigned to nobody",
    )


def test_share_partitions_may_be_shared_but_not_uninitialized():
    members = {m: ServerMember(m, ("t1",)) for m in "ab"}
    share = ServerGroupSpec(members, TOPICS, unassignable={(T1, 2)}, group_type="share")
    shared = ServerAssignment({"a": {T1: (0, 1)}, "b": {T1: (0, 1)}})
    assert validate_server_assignment(share, shared).is_valid  # t1-2 may stay unassigned
    check = validate_server_assignment(share, ServerAssignment({"a": {T1: (0, 1, 2)}}))
    assert check.problems() == ("1 uninitialized partition(s) of t1 assigned",)
    consumer = ServerGroupSpec(members, TOPICS)
    assert validate_server_assignment(consumer, shared).problems() == (
        "1 partition(s) of t1 assigned to nobody",
        "2 partition(s) of t1 assigned more than once",
    )


def test_a_streams_task_has_one_spelling_and_one_order():
    from assignframe.streams_assignor import MemberTasks, parse_task_label, task_label, task_order

    tasks = [("10", 0), ("2", 1), ("2", 0), ("named_sub", 3), ("", 49)]
    assert sorted(tasks, key=task_order) == [("2", 0), ("2", 1), ("10", 0), ("", 49),
                                             ("named_sub", 3)]
    assert MemberTasks(active=tuple(tasks)).active == tuple(sorted(tasks, key=task_order))
    for task in tasks:
        assert parse_task_label(task_label(task)) == task
    assert task_label(("named_sub", 3)) == "named_sub_3"
    with pytest.raises(ValueError, match="not a task label"):
        parse_task_label("0-1")


#: Two member ids in one bucket of a 16-bucket ``HashMap`` (spread hash & 15 == 7 for both), and
#: one elsewhere: ids a real broker gave one group (Kafka 4.3.1, kafka-43 CI run).
SHARED_BUCKET = ("xIClRT0fRbKTtbnZzvm/IA", "3-f-NHgHQuWjlPoVjqytqw")
OTHER_BUCKET = "biqbYrXbQi6qWtTF4vpE0w"


def test_member_order_decides_between_members_sharing_a_bucket():
    from assignframe.javaorder import java_string_hash

    assert {(h ^ (h >> 16)) & 15 for h in map(java_string_hash, SHARED_BUCKET)} == {7}
    members = {m: ServerMember(m, ("t1",)) for m in (*SHARED_BUCKET, OTHER_BUCKET)}
    # Kafka's assignor tests insert in ascending id order: "3-f..." before "xIC..."
    assert ServerGroupSpec(members, TOPICS).member_ids() == (OTHER_BUCKET, *SHARED_BUCKET[::-1])
    # a broker whose member table lists "xIC..." first fills its map in that order
    table = (SHARED_BUCKET[0], OTHER_BUCKET, SHARED_BUCKET[1])
    ordered = ServerGroupSpec(members, TOPICS, member_order=table)
    assert ordered.member_ids() == (OTHER_BUCKET, *SHARED_BUCKET)
    assert ordered.member_order == table


@pytest.mark.parametrize("order", [("a", "b"), ("a", "b", "c", "c"), ("a", "b", "x")])
def test_member_order_must_name_every_member_once(order):
    members = {m: ServerMember(m, ("t1",)) for m in ("a", "b", "c")}
    with pytest.raises(ValueError, match="member_order must list every member once"):
        ServerGroupSpec(members, TOPICS, member_order=order)
