"""The one interface every assignment strategy implements.

Writing a strategy
==================

A strategy is a class with a ``name`` and an ``assign`` method. It is *pure*: ``assign`` sees only
its :class:`~assignframe.model.GroupSubscription` argument and the options it was built with, and
returns the same :class:`~assignframe.model.GroupAssignment` for the same input, every time, in
every process. It keeps no per-consumer state on ``self`` (one instance may serve many consumers,
and the Spark pipeline pickles it to executors); whatever a consumer must remember between
rebalances travels in :class:`~assignframe.model.MemberState`, which the caller keeps per consumer::

    from assignframe import GroupAssignment, Strategy, hookimpl

    class EveryoneGetsEverything(Strategy):
        name = "everything"          # the protocol name sent in JoinGroup; must be unique

        def assign(self, group):
            return GroupAssignment.from_partitions({
                member_id: [tp for t in member.topics for tp in group.cluster.partitions(t)]
                for member_id, member in group.members.items()
            })

        def owners_per_partition(self, group):   # declare it: the contract suite checks it
            return len(group.members) or 1

    @hookimpl
    def register_strategies(registry):
        registry.add(EveryoneGetsEverything)

Register the module in your ``pyproject.toml``::

    [project.entry-points.assignframe]
    everything = "my_package"

Optional methods, each with a sensible default:

* ``protocols``: the rebalance protocols the strategy supports (``(EAGER,)`` by default). Declare
  ``COOPERATIVE`` only if ``assign`` never gives a member a partition another member still owns.
* ``subscription_user_data(topics, state)``: bytes for the JoinGroup subscription (None = null).
* ``decode_user_data(user_data, subscription_version)``: parse another member's user data; the
  result lands in ``Member.decoded_user_data``. Raise ``UserDataError`` for bytes you cannot read.
* ``describe_user_data(decoded)``: a JSON view of that result, which ``assignframe decode`` shows.
* ``on_assignment(assignment, generation, state)``: the consumer's next ``MemberState``.
* ``owners_per_partition(group)``: how many members each subscribed partition goes to (1).
* ``user_data_options`` and ``member_options(decoded)``: for an option a consumer advertises in
  its user data (``redundant``'s ``replicas``), its name, and how to read it back from a member's
  decoded user data, so a replay of a captured group runs each member with its own setting.
* ``option_defaults``: the options it accepts with their defaults (``{"refine": True}``), so a
  mistyped option is rejected instead of ignored.

Then test it with the contract suite: subclass ``assignframe.testing.StrategyContract`` and set
``strategy_name = "everything"`` (see docs/tutorial.md).
"""

from __future__ import annotations

import abc
from collections.abc import Mapping
from typing import Any, ClassVar

from .configurable import Configurable
from .jsonview import json_value
from .model import (
    GroupAssignment,
    GroupSubscription,
    MemberAssignment,
    MemberState,
    RebalanceProtocol,
    trusted,
)

__all__ = ["Strategy"]


class Strategy(Configurable, abc.ABC):
    """Base class of every assignment strategy (see the module docstring for a tutorial).

    :param options: operator-given options (e.g. ``replicas=2``); kept as ``self.options``.
    """

    #: The protocol name members advertise in JoinGroup (e.g. ``"range"``). Required, unique.
    name: ClassVar[str]
    #: Rebalance protocols supported, most preferred last (Java picks the highest common one).
    protocols: ClassVar[tuple[RebalanceProtocol, ...]] = (RebalanceProtocol.EAGER,)
    #: The options the strategy accepts and their defaults, e.g. ``{"refine": True}``; a value
    #: given for one must have its default's type (an int passes for a float). ``{}``: accepts no
    #: options. ``None`` (the default, for strategies written before this existed): undeclared,
    #: any option passes unchecked. The command line rejects undeclared options and lists these.
    option_defaults: ClassVar[Mapping[str, Any] | None] = None
    #: The options a consumer advertises in its user data (its preferences, e.g. ``("replicas",)``),
    #: which :meth:`member_options` reads back. ``()``: the user data carries no option (at most
    #: state, such as sticky's previous assignment).
    user_data_options: ClassVar[tuple[str, ...]] = ()

    @property
    def protocol(self) -> RebalanceProtocol:
        """The protocol this strategy runs under when it is the only one offered."""
        return max(self.protocols, key=lambda p: p is RebalanceProtocol.COOPERATIVE)

    @abc.abstractmethod
    def assign(self, group: GroupSubscription) -> GroupAssignment:
        """Assign partitions to every member of ``group``; must be deterministic.

        :param group: every member's decoded subscription, the cluster view, the new generation
        :returns: an assignment holding every member of ``group`` (an empty one for idle members)
        """

    def subscription_user_data(self, topics: tuple[str, ...], state: MemberState) -> bytes | None:
        """User data this member sends in its JoinGroup subscription (None = null on the wire).

        :param topics: the member's subscribed topics
        :param state: what this member kept from its last assignment
        """
        return None

    def decode_user_data(self, user_data: bytes | None, subscription_version: int) -> Any:
        """Decode a member's user data for ``assign``; stored as ``Member.decoded_user_data``."""
        return None

    def describe_user_data(self, decoded: Any) -> Any:
        """A JSON view of what :meth:`decode_user_data` returned, for people (``decode``).

        The default converts dataclasses, sequences and bytes generically; override it to name
        the layout or the fields the way your documentation does.
        """
        return json_value(decoded)

    def member_options(self, decoded: Any) -> Mapping[str, Any]:
        """The options a member evidently runs with, read back from its own user data.

        The inverse of what :meth:`subscription_user_data` advertises because of
        ``self.options``, restricted to :attr:`user_data_options`: a member built with
        ``replicas=2`` sends user data that this method turns back into ``{"replicas": 2}``.
        Replays of a captured group (``assignframe audit``) build each member with these options,
        so it advertises again what it advertised then. State carried in user data (a previous
        assignment) is not an option: replays rebuild it from the current assignment.

        :param decoded: what :meth:`decode_user_data` returned for the member (None: it sent null)
        :returns: option name -> value, only names in :attr:`user_data_options` (default: none)
        """
        return {}

    def on_assignment(
        self, assignment: MemberAssignment, generation: int, state: MemberState
    ) -> MemberState:
        """The member's state after receiving ``assignment`` in ``generation``.

        The default keeps the assigned partitions and the generation, and the previous
        ``strategy_state`` unchanged.
        """
        # the partitions of a MemberAssignment are normalised already: not checked again
        return trusted(MemberState, owned_partitions=assignment.partitions,
                       generation=generation, strategy_state=state.strategy_state)

    def owners_per_partition(self, group: GroupSubscription) -> int:
        """How many distinct members each subscribed partition is given to (redundancy).

        1 for every ordinary strategy. A strategy that replicates partitions declares N here and
        the contract suite checks each partition goes to exactly ``min(N, subscribers)`` members.
        """
        return 1

