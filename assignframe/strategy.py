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
* ``option_defaults``: the options it accepts with their defaults (``{"refine": True}``), so a
  mistyped option is rejected instead of ignored.

Then test it with the contract suite: subclass ``assignframe.testing.StrategyContract`` and set
``strategy_name = "everything"`` (see docs/tutorial.md).
"""

from __future__ import annotations

import abc
import json
from collections.abc import Mapping
from typing import Any, ClassVar

from .errors import UnknownOptionError
from .jsonview import json_value
from .model import (
    GroupAssignment,
    GroupSubscription,
    MemberAssignment,
    MemberState,
    RebalanceProtocol,
)

__all__ = ["Strategy"]


class Strategy(abc.ABC):
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

    def __init__(self, **options: Any) -> None:
        self.options: Mapping[str, Any] = dict(options)

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> None:
        """Refuse options this strategy does not accept, before any work is done.

        The default checks names and types against :attr:`option_defaults` (nothing when it is
        None). Override it to check values too (call ``super().check_options(options)`` first).

        :raises UnknownOptionError: an undeclared option, or a value it cannot take; the message
            says which and lists what the strategy accepts
        """
        declared = cls.option_defaults
        if declared is None:
            return
        for key, value in options.items():
            if key not in declared:
                raise UnknownOptionError(
                    f"strategy {cls.name!r} has no option {key!r}; it accepts "
                    f"{_described(declared)}"
                )
            if not _same_type(value, declared[key]):
                raise UnknownOptionError(
                    f"option {key!r} of strategy {cls.name!r} expects "
                    f"{type(declared[key]).__name__} (default {json.dumps(declared[key])}), "
                    f"got {json.dumps(value)}"
                )

    def __repr__(self) -> str:
        options = ", ".join(f"{k}={v!r}" for k, v in sorted(self.options.items()))
        return f"{type(self).__name__}({options})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.options == self.options  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), tuple(sorted(self.options.items(), key=repr))))

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

    def on_assignment(
        self, assignment: MemberAssignment, generation: int, state: MemberState
    ) -> MemberState:
        """The member's state after receiving ``assignment`` in ``generation``.

        The default keeps the assigned partitions and the generation, and the previous
        ``strategy_state`` unchanged.
        """
        return MemberState(assignment.partitions, generation, state.strategy_state)

    def owners_per_partition(self, group: GroupSubscription) -> int:
        """How many distinct members each subscribed partition is given to (redundancy).

        1 for every ordinary strategy. A strategy that replicates partitions declares N here and
        the contract suite checks each partition goes to exactly ``min(N, subscribers)`` members.
        """
        return 1


def _described(declared: Mapping[str, Any]) -> str:
    if not declared:
        return "no options"
    return ", ".join(f"{k} (default {json.dumps(v)})" for k, v in sorted(declared.items()))


def _same_type(value: Any, default: Any) -> bool:
    if default is None:
        return True
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(default, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    return isinstance(value, type(default))
