"""A member's own options: they reach its user data in the runner, and a replay of a captured
group reads them back from that user data, only when the bytes are the strategy's own."""

from __future__ import annotations

from assignframe import (
    Cluster,
    Consumer,
    GroupAssignment,
    GroupRunner,
    Member,
    MemberState,
    Strategy,
    UserDataError,
    hookimpl,
)
from assignframe.plugins import isolated_plugin_manager
from assignframe.rebalance.preferences import member_preferences


class Copies(Strategy):
    """Every partition to ``copies`` members (the first ones in id order); each member
    advertises its own ``copies`` in one byte of user data, and the group takes the largest."""

    name = "copies"
    option_defaults = {"copies": 1}
    user_data_options = ("copies",)

    def subscription_user_data(self, topics, state: MemberState):
        return bytes([self.options["copies"]]) if "copies" in self.options else None

    def decode_user_data(self, user_data, subscription_version):
        if user_data is None:
            return None
        if len(user_data) != 1:
            raise UserDataError(f"expected 1 byte, got {len(user_data)}")
        return user_data[0]

    def member_options(self, decoded):
        return {} if decoded is None else {"copies": decoded}

    def owners_per_partition(self, group):
        advertised = [m.decoded_user_data or 1 for m in group.members.values()]
        return max([self.options.get("copies", 1), *advertised])

    def assign(self, group):
        owners = sorted(group.members)[: self.owners_per_partition(group)]
        return GroupAssignment.from_partitions(
            {
                m: [tp for t in group.members[m].topics for tp in group.cluster.partitions(t)]
                if m in owners
                else []
                for m in group.members
            }
        )


class _CopiesPlugin:
    @hookimpl
    def register_strategies(self, registry):
        registry.add(Copies)


CLUSTER = Cluster({"t": 3})


def _pm():
    return isolated_plugin_manager([_CopiesPlugin()])


def test_each_consumer_advertises_its_own_options_and_the_group_takes_the_largest():
    runner = GroupRunner("copies", cluster=CLUSTER, pm=_pm())
    round_ = runner.rebalance(
        [
            Consumer("a", ("t",), options={"copies": 2}),
            Consumer("b", ("t",)),
            Consumer("c", ("t",), options={"copies": 3}),
        ]
    ).final
    assert [round_.group.members[m].user_data for m in "abc"] == [b"\x02", None, b"\x03"]
    assert round_.owners_per_partition == 3
    assert all(len(round_.assignment.partitions_of(m)) == 3 for m in "abc")


def test_a_consumer_without_options_runs_with_the_runners():
    runner = GroupRunner("copies", cluster=CLUSTER, pm=_pm(), options={"copies": 2})
    round_ = runner.rebalance([Consumer("a", ("t",)), Consumer("b", ("t",))]).final
    assert round_.group.members["a"].user_data == b"\x02"
    assert round_.owners_per_partition == 2


def _members(**user_data):
    return {m: Member(m, ("t",), user_data=data) for m, data in user_data.items()}


def test_options_are_read_back_from_the_strategys_own_user_data():
    pm = _pm()
    found = member_preferences(
        pm, pm.strategy("copies"), _members(a=b"\x02", b=None), group_protocol="copies"
    )
    assert found.options == {"a": {"copies": 2}}
    assert found.notes == ()


def test_another_strategys_user_data_is_never_read_as_options():
    pm = _pm()
    found = member_preferences(
        pm, pm.strategy("copies"), _members(a=b"\x02", b=b"\x03"), group_protocol="sticky"
    )
    assert found.options == {}
    assert found.notes == (
        "copies: the members' own copies are unknown (their user data is sticky's); "
        "replayed with copies=1",
    )


def test_unreadable_user_data_is_named_and_the_rest_still_read():
    pm = _pm()
    found = member_preferences(
        pm,
        pm.strategy("copies", copies=2),
        _members(a=b"\x01\x02", b=b"\x03", c=b""),
        group_protocol="copies",
    )
    assert found.options == {"b": {"copies": 3}}
    assert found.notes == (
        "copies: copies is unknown for 2 member(s) whose user data does not read "
        "(first 'a'); those replayed with copies=2",
    )


def test_a_strategy_without_options_in_user_data_reads_nothing():
    class Plain(Copies):
        name = "plain"
        user_data_options = ()

    pm = _pm()
    found = member_preferences(pm, Plain(), _members(a=b"\x02"), group_protocol="plain")
    assert found.options == {} and found.notes == ()


class Remembers(Copies):
    """Keeps, as its state, the copies option of the instance that received the assignment."""

    name = "remembers"

    def on_assignment(self, assignment, generation, state):
        return MemberState(assignment.partitions, generation, self.options.get("copies"))


class _RemembersPlugin:
    @hookimpl
    def register_strategies(self, registry):
        registry.add(Remembers)


def test_an_adopted_member_keeps_the_state_its_own_instance_keeps():
    runner = GroupRunner(
        "remembers", cluster=CLUSTER, pm=isolated_plugin_manager([_RemembersPlugin()])
    )
    current = GroupAssignment.from_partitions({"a": [], "b": []})
    runner.adopt(current, 4, options={"a": {"copies": 2}})
    assert {m: s.strategy_state for m, s in runner.states.items()} == {"a": 2, "b": None}


def test_the_leaders_own_options_are_the_groups_options_in_assign():
    runner = GroupRunner("copies", cluster=CLUSTER, pm=_pm(), options={"copies": 1, "x": 0})
    round_ = runner.rebalance(
        [Consumer("a", ("t",), options={"copies": 3}), Consumer("b", ("t",))]
    ).final
    assert round_.group.options == {"copies": 3, "x": 0}  # a leads: the first to join
