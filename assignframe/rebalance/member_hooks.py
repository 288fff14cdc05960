"""A consumer's hook calls in the runner's joins and syncs, the default hooks' results built
directly.

Where a strategy's ``subscription_metadata`` or ``on_assignment`` hook is assignframe's default
(:meth:`~assignframe.plugins.PluginManager.default_hooks`: no plugin implements it and the
strategy keeps the base method), its result is known without calling it: no user data, what
the member keeps at join (:func:`~assignframe.classic.protocol.partitions_kept_at_join`), the
assigned partitions kept with the strategy state unchanged. :class:`MemberHooks` builds that
result from values the model has already normalised (one frozen object each, no hook layer, no
second computation of what the member keeps); any other hook is called through the plugin
manager as before. tests/rebalance/test_member_hooks.py holds both ways equal.
"""

from __future__ import annotations

from ..classic.protocol import partitions_kept_at_join, state_at_join
from ..model import (
    MemberAssignment,
    MemberState,
    RebalanceProtocol,
    SubscriptionMetadata,
    trusted,
)
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
        kept = partitions_kept_at_join(state, topics, protocol)
        metadata = trusted(
            SubscriptionMetadata,
            topics=topics,
            user_data=None,
            owned_partitions=kept,
            generation=state.generation,
            rack=rack,
        )
        if kept == state.owned_partitions:
            return metadata, state
        joined = trusted(
            MemberState,
            owned_partitions=kept,
            generation=state.generation,
            strategy_state=state.strategy_state,
        )
        return metadata, joined

    def on_assignment(
        self,
        strategy: Strategy,
        assignment: MemberAssignment,
        generation: int,
        state: MemberState,
    ) -> MemberState:
        """The member's state after receiving ``assignment`` (the ``on_assignment`` hook)."""
        if not self._default(strategy, "on_assignment"):
            return self._pm.on_assignment(strategy, assignment, generation, state)
        return trusted(
            MemberState,
            owned_partitions=assignment.partitions,
            generation=generation,
            strategy_state=state.strategy_state,
        )
