"""A consumer's hook calls in the runner's joins and syncs.

Where only assignframe's defaults implement the ``subscription_metadata`` hook
(:meth:`~assignframe.plugins.PluginManager.defaults_alone`: no plugin does; the default calls the
strategy's own ``subscription_user_data``, sticky's included), the join calls the default itself
(no hook layer; decided once per loop) and takes the member's state once joined from what it
sends (the partitions it keeps at join), instead of working them out a second time
(:func:`~assignframe.classic.protocol.state_at_join`). An ``on_assignment`` hook that is the
default for the strategy (:meth:`~assignframe.plugins.PluginManager.default_hooks`: the strategy
keeps the base method too) is called the same way. Any other hook is called through the plugin
manager. tests/rebalance/test_member_hooks.py holds both ways equal.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from ..classic.protocol import state_at_join, state_keeping
from ..model import MemberAssignment, MemberState, RebalanceProtocol, SubscriptionMetadata
from ..plugins import defaults
from ..plugins.manager import PluginManager
from ..strategy import Strategy

__all__ = ["MemberHooks", "OnAssignment"]

#: One strategy's ``on_assignment`` hook: (assignment, generation, state) -> the member's state.
OnAssignment = Callable[[MemberAssignment, int, MemberState], MemberState]


class MemberHooks:
    """The hooks of one loop over a round's members (a join or a sync): which hooks are the
    defaults is decided once per strategy instance in the loop (plugins do not change
    mid-round)."""

    def __init__(self, pm: PluginManager) -> None:
        self._pm = pm
        self._strategy: Strategy | None = None
        self._on_assignment: OnAssignment | None = None
        self._metadata_alone: bool | None = None  # decided at the loop's first join

    def join(
        self,
        strategy: Strategy,
        topics: tuple[str, ...],
        state: MemberState,
        rack: str | None,
        protocol: RebalanceProtocol,
    ) -> tuple[SubscriptionMetadata, MemberState]:
        """(what the member sends for ``strategy``: the ``subscription_metadata`` hook, its
        state once joined: :func:`~assignframe.classic.protocol.state_at_join`)."""
        if self._metadata_alone is None:
            self._metadata_alone = "subscription_metadata" in self._pm.defaults_alone()
        if not self._metadata_alone:
            metadata = self._pm.subscription_metadata(strategy, topics, state, rack, protocol)
            return metadata, state_at_join(state, topics, protocol)
        metadata = defaults.subscription_metadata(strategy, topics, state, rack, protocol)
        return metadata, state_keeping(state, metadata.owned_partitions)

    def on_assignment(
        self,
        strategy: Strategy,
        assignment: MemberAssignment,
        generation: int,
        state: MemberState,
    ) -> MemberState:
        """The member's state after receiving ``assignment`` (the ``on_assignment`` hook)."""
        return self.on_assignment_of(strategy)(assignment, generation, state)

    def on_assignment_of(self, strategy: Strategy) -> OnAssignment:
        """:meth:`on_assignment` for ``strategy``: (assignment, generation, state) -> the
        member's state, the way to call it decided when the loop meets a new instance."""
        if strategy is not self._strategy or self._on_assignment is None:
            hook = (
                defaults.on_assignment
                if "on_assignment" in self._pm.default_hooks(strategy)
                else self._pm.on_assignment
            )
            self._strategy, self._on_assignment = strategy, functools.partial(hook, strategy)
        return self._on_assignment
