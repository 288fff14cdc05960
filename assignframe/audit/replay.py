"""Replay one group snapshot through one strategy with the core's group runner.

The question a replay answers: *if this group rebalanced now under strategy S, where would its
partitions go?* Real consumers running S would hold S's state for the assignment they own, so the
replay plays two rounds through the runner (real bytes through the codec each time):

1. a *seed* round, in the snapshot's generation, in which every consumer runs S but the leader's
   ``assign`` hook returns the snapshot's current assignment (:class:`SeedAssignment`, a plugin
   on the audit's own plugin manager). Each consumer's ``on_assignment`` then leaves it with the
   state S keeps (owned partitions, sticky user data, generation);
2. the *replay* rebalance (next generation), where S assigns for real; cooperative follow-up
   rounds are played when members must revoke.

Metrics compare the replayed assignment with the current one (kept/moved).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from .. import hookimpl
from ..model import GroupAssignment, GroupSubscription
from ..plugins import PluginManager
from ..runner import Consumer, GroupRunner
from ..simulate.metrics import assignment_metrics
from ..strategy import Strategy
from .snapshot import GroupSnapshot

__all__ = ["AuditContext", "SeedAssignment", "StrategyOutcome", "replay_strategy"]


class SeedAssignment:
    """Plugin: the next ``assign`` call returns the armed assignment instead of the strategy's."""

    def __init__(self) -> None:
        self.pending: GroupAssignment | None = None

    @hookimpl(tryfirst=True)
    def assign(self, strategy: Strategy, group: GroupSubscription) -> GroupAssignment | None:
        pending, self.pending = self.pending, None
        return pending


@dataclass
class AuditContext:
    """What one process needs to replay groups: its own plugin manager with the seed plugin."""

    pm: PluginManager
    seed: SeedAssignment
    strategies: tuple[str, ...]

    @classmethod
    def create(cls, strategies: tuple[str, ...] | None = None) -> AuditContext:
        """A manager loading the installed plugins plus the seed plugin (never the shared one)."""
        pm = PluginManager()
        seed = SeedAssignment()
        pm.register(seed, name="assignframe.audit.seed")
        names = tuple(strategies) if strategies else pm.strategy_names()
        for name in names:
            pm.strategy(name)  # unknown names fail here, before any group is read
        _quiet_strategy_logs()
        return cls(pm, seed, names)


def _quiet_strategy_logs() -> None:
    # Per-group warnings (e.g. "no lags known") would flood a fleet audit; the rows say it all.
    logging.getLogger().addHandler(logging.NullHandler())
    logging.getLogger("assignframe_lagaware").setLevel(logging.ERROR)


@dataclass(frozen=True)
class StrategyOutcome:
    """One strategy's replay of one group."""

    strategy: str
    metrics: dict[str, Any] | None
    assignment: GroupAssignment | None
    owners_per_partition: int = 1
    settled: bool = True
    error: str | None = None


def replay_strategy(
    snapshot: GroupSnapshot, strategy: str, context: AuditContext
) -> StrategyOutcome:
    """Seed round with the current assignment, then a real rebalance under ``strategy``."""
    try:
        return _replay(snapshot, strategy, context)
    except Exception as exc:  # one strategy failing on one group is a result, not a crash
        context.seed.pending = None
        return StrategyOutcome(strategy, None, None, error=f"{type(exc).__name__}: {exc}")


def _replay(snapshot: GroupSnapshot, strategy: str, context: AuditContext) -> StrategyOutcome:
    runner = GroupRunner(strategy, cluster=snapshot.cluster, pm=context.pm)
    consumers = [
        Consumer(m.member_id, m.topics, (strategy,), m.rack, m.group_instance_id)
        for m in snapshot.members.values()
    ]
    context.seed.pending = snapshot.current
    runner.play_round(consumers, generation=max(snapshot.generation, 1))
    result = runner.rebalance(consumers, lags=snapshot.lags)
    final = result.final
    metrics = assignment_metrics(
        final.group,
        final.assignment,
        snapshot.current,
        final.owners_per_partition,
        len(result.rounds),
    )
    return StrategyOutcome(
        strategy, metrics, final.assignment, final.owners_per_partition, result.settled
    )
