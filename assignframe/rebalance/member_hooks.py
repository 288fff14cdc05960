"""A consumer's hook calls in the runner's joins and syncs.

Where a strategy's ``subscription_metadata`` hook is assignframe's default
(:meth:`~assignframe.plugins.PluginManager.default_hooks`: no plugin implements it and the
strategy keeps the base method), the join calls the default itself (no hook layer; decided once
per strategy in a loop) and takes the member's state once joined from what it sends (the
partitions it keeps at join), instead of working them out a second time
(:func:`~assignframe.classic.protocol.state_at_join`); a default ``on_assignment`` is called the
same way. Any other hook is called through the plugin manager.
tests/rebalance/test_member_hooks.py holds both ways equal.
"""

from __future__ import annotations

from ..classic.protocol import state_at_join, state_keeping
from ..model import MemberAssignment, MemberState, RebalanceProtocol, SubscriptionMetadata
from ..plugins import defaults
from ..plugins.manager import PluginManager
from ..strategy import Strategy

__all__ = ["MemberHooks"]


class MemberHooks:
    """The hooks of one loop over a round's members (a join or a sync): which hooks are the
    defaults is decided once per strategy instance in the loop (plugins do not change
    mid-round)."""

    def __init__(self, pm: PluginManager) -> None:
        self._pm = pm
        self._strategy: Strategy | None = None
        self._defaults: frozenset[str] = frozenset()

    def _default(self, strategy: Strategy, hook: str) -> bool:
        if strategy is not self._strategy:
            self._strategy, self._defaults = strategy, self._pm.default_hooks(strategy)
        return hook in self._defaults

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
        if not self._default(strategy, "subscription_metadata"):
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
        if self._default(strategy, "on_assignment"):
            return defaults.on_assignment(strategy, assignment, generation, state)
        return self._pm.on_assignment(strategy, assignment, generation, state)
