"""The contract every server assignor meets, as a pytest base class (the server side of
:class:`~assignframe.testing.StrategyContract`).

Subclass it in your plugin's tests and name your assignor::

    from assignframe.testing.server_contract import ServerAssignorContract

    class TestMyAssignorContract(ServerAssignorContract):
        assignor_name = "server:my-assignor"

The assignor is looked up among installed plugins (so its entry point is tested too). Validity is
the core's one check, :func:`assignframe.kip848.validity.validate_server_assignment`: every
assignable partition of a subscribed topic goes to subscribers only, exactly one in a consumer
group and at least one in a share group. Checked on generated groups
(:func:`~assignframe.testing.server_groups.server_groups`): fresh ones, and ones whose members
already hold partitions of topics that may have changed since. Also: the result names group
members only; the same input gives the same result whatever order members were inserted in; the
assignor pickles; :meth:`~assignframe.ServerAssignor.assign_in_java_order`, when modelled, holds
the same partitions; empty groups, members subscribed to nothing or to missing topics only, and
more members than partitions work.

An assignor that reproduces a known breach of Java's (Kafka's share-group ``SimpleAssignor``
keeps partitions of topics nobody subscribes to any more, and uninitialized partitions) names it
in ``keeps_what_it_holds``; on groups with holdings it is then held to the weaker rule that
every partition a member did *not* hold before is a partition of a topic it subscribes to,
assignable or held by some member already.

``ASSIGNFRAME_CONTRACT_EXAMPLES`` sets the examples per property (default 100 here).
"""

from __future__ import annotations

import os
import pickle
from typing import ClassVar

from hypothesis import given, settings
from hypothesis import strategies as st

from ..javaorder import Uuid
from ..kip848.validity import validate_server_assignment
from ..plugins import get_plugin_manager
from ..server_assignor import (
    ServerAssignment,
    ServerAssignor,
    ServerGroupSpec,
    ServerMember,
    ServerTopic,
)
from .contract import CONTRACT_SETTINGS
from .server_groups import server_groups

__all__ = ["SERVER_CONTRACT_SETTINGS", "ServerAssignorContract"]

SERVER_CONTRACT_SETTINGS = settings(
    CONTRACT_SETTINGS,  # its shrink switch and health checks
    max_examples=int(os.environ.get("ASSIGNFRAME_CONTRACT_EXAMPLES", "100")),
)


def _groups_of_its_types(held: bool) -> st.SearchStrategy[tuple[str, ServerGroupSpec]]:
    """(group type, group) for both group types; each test keeps the ones its assignor serves."""
    return st.sampled_from(("consumer", "share")).flatmap(
        lambda kind: st.tuples(st.just(kind), server_groups(kind, held=held))
    )


class ServerAssignorContract:
    """Base class of a server assignor's contract tests; set ``assignor_name``."""

    assignor_name: ClassVar[str]
    #: Why the assignor may keep partitions a member holds although the contract would take
    #: them away (Java's own behaviour it reproduces); None: it never does.
    keeps_what_it_holds: ClassVar[str | None] = None
    #: Exceptions the assignor raises on the groups Kafka's own assignor throws on (the
    #: differential tests check it is exactly those); such a group has no result to check.
    fails_where_java_fails: ClassVar[tuple[type[Exception], ...]] = ()

    # -- helpers (usable from your own extra tests) ---------------------------------------------

    def make_assignor(self) -> ServerAssignor:
        return get_plugin_manager().server_assignor(self.assignor_name)

    def assign(self, group: ServerGroupSpec) -> ServerAssignment | None:
        """The assignor's result, or None on a group Java's assignor fails on too."""
        try:
            return self.make_assignor().assign(group)
        except self.fails_where_java_fails:
            return None

    def assert_valid(self, group: ServerGroupSpec, assignment: ServerAssignment) -> None:
        problems = validate_server_assignment(group, assignment).problems()
        assert not problems, f"{self.assignor_name}: {'; '.join(problems)}"

    def assert_new_partitions_valid(
        self, group: ServerGroupSpec, assignment: ServerAssignment
    ) -> None:
        """Whatever a member did not hold before is a partition of a topic it subscribes to,
        assignable or held by someone already (Java's simple builder hands uninitialized
        partitions it finds held on to other members)."""
        for member_id, member in group.members.items():
            before = {(t, p) for t, ps in member.current for p in ps}
            for topic_id, p in assignment.partitions_of(member_id):
                if (topic_id, p) in before:
                    continue
                assert group.is_subscribed(member_id, topic_id), f"{member_id} got {topic_id}"
                assert 0 <= p < group.num_partitions(topic_id), f"{member_id} got {topic_id}-{p}"
                assert group.is_partition_assignable(topic_id, p) or group.is_partition_assigned(
                    topic_id, p
                ), f"{member_id} got uninitialized {topic_id}-{p}, which nobody held"

    def serves(self, group_type: str) -> bool:
        return group_type in self.make_assignor().group_types

    # -- registration ---------------------------------------------------------------------------

    def test_found_through_its_entry_point(self) -> None:
        assignor = self.make_assignor()
        assert isinstance(assignor, ServerAssignor)
        assert assignor.qualified_name() == self.assignor_name
        assert self.assignor_name in get_plugin_manager().registry.server_names()
        assert set(assignor.group_types) <= {"consumer", "share"} and assignor.group_types

    # -- validity -------------------------------------------------------------------------------

    @SERVER_CONTRACT_SETTINGS
    @given(case=_groups_of_its_types(held=False))
    def test_fresh_groups_get_valid_assignments(self, case: tuple[str, ServerGroupSpec]) -> None:
        group_type, group = case
        assignment = self.assign(group) if self.serves(group_type) else None
        if assignment is not None:
            self.assert_valid(group, assignment)

    @SERVER_CONTRACT_SETTINGS
    @given(case=_groups_of_its_types(held=True))
    def test_groups_holding_partitions_get_valid_assignments(
        self, case: tuple[str, ServerGroupSpec]
    ) -> None:
        group_type, group = case
        assignment = self.assign(group) if self.serves(group_type) else None
        if assignment is None:
            return
        if self.keeps_what_it_holds is None:
            self.assert_valid(group, assignment)
        else:
            self.assert_new_partitions_valid(group, assignment)

    @SERVER_CONTRACT_SETTINGS
    @given(case=_groups_of_its_types(held=True))
    def test_only_group_members_are_in_the_result(self, case: tuple[str, ServerGroupSpec]) -> None:
        group_type, group = case
        assignment = self.assign(group) if self.serves(group_type) else None
        if assignment is not None:
            assert set(assignment.members) <= set(group.members)

    # -- determinism ----------------------------------------------------------------------------

    @SERVER_CONTRACT_SETTINGS
    @given(case=_groups_of_its_types(held=True))
    def test_same_input_same_result_whatever_the_member_insertion_order(
        self, case: tuple[str, ServerGroupSpec]
    ) -> None:
        group_type, group = case
        first = self.assign(group) if self.serves(group_type) else None
        if first is None:
            return
        reversed_members = dict(reversed(list(group.members.items())))
        again = ServerGroupSpec(
            reversed_members, group.topics, group.unassignable, group.group_type
        )
        assert self.make_assignor().assign(again) == first
        assert pickle.loads(pickle.dumps(self.make_assignor())).assign(group) == first

    @SERVER_CONTRACT_SETTINGS
    @given(case=_groups_of_its_types(held=True))
    def test_java_order_holds_the_same_partitions(self, case: tuple[str, ServerGroupSpec]) -> None:
        group_type, group = case
        plain = self.assign(group) if self.serves(group_type) else None
        if plain is None:
            return
        in_java_order = self.make_assignor().assign_in_java_order(group)
        if in_java_order is None:
            return  # not modelled: nothing to compare
        for member_id in set(plain.members) | set(in_java_order.members):
            assert sorted(in_java_order.partitions_of(member_id)) == sorted(
                plain.partitions_of(member_id)
            ), member_id

    # -- edges ----------------------------------------------------------------------------------

    def _edge_group(self, subscriptions: dict[str, tuple[str, ...]], partitions: int) -> None:
        topic_id = Uuid(1, 2)
        for group_type in self.make_assignor().group_types:
            group = ServerGroupSpec(
                {m: ServerMember(m, topics) for m, topics in subscriptions.items()},
                {topic_id: ServerTopic(topic_id, "t", partitions)},
                group_type=group_type,
            )
            assignment = self.make_assignor().assign(group)
            assert set(assignment.members) <= set(subscriptions)
            self.assert_valid(group, assignment)

    def test_an_empty_group_gets_nothing(self) -> None:
        self._edge_group({}, 3)

    def test_members_subscribed_to_nothing_or_to_missing_topics_get_nothing(self) -> None:
        self._edge_group({"a": (), "b": ("missing",)}, 3)
        self._edge_group({"a": ("missing",), "b": ("missing",)}, 3)

    def test_more_members_than_partitions(self) -> None:
        self._edge_group({f"m{i:02d}": ("t",) for i in range(20)}, 3)

    def test_a_topic_without_partitions(self) -> None:
        self._edge_group({"a": ("t",), "b": ("t", "missing")}, 0)
