"""Replay one group snapshot through one strategy with the core's group runner.

The question a replay answers: *if this group rebalanced now under strategy S, where would its
partitions go?* Real consumers running S would hold S's state for the assignment they own, so the
replay:

A consumer-protocol group (``group_type="consumer"``) is replayed through the broker's server
assignors instead (:mod:`assignframe.audit.migration`): one target, measured against what members
own.

1. starts a runner from the snapshot's current assignment in the snapshot's generation
   (:meth:`GroupRunner.adopt`): each consumer's ``on_assignment`` under S leaves it with the
   state S keeps (owned partitions, sticky user data, generation), as a round would;
2. plays the *replay* rebalance (next generation) through the runner, where S assigns for
   real; cooperative follow-up rounds are played when members must revoke. Every hook of S runs;
   the codec round trips whose result is known without them are skipped (``wire=False``, see
   :mod:`assignframe.rebalance.runner`; tests/audit/test_wire_equivalence.py holds the two modes
   equal).

Each replayed member runs with the options it advertised in its captured user data when S is the
strategy the group ran (``redundant``'s ``replicas``: :mod:`assignframe.rebalance.preferences`);
when they cannot be known, the outcome's ``note`` says so.

Metrics compare the replayed assignment with the current one (kept/moved).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..metrics import metrics_record
from ..model import GroupAssignment, Member, trusted
from ..plugins.manager import PluginManager
from ..rebalance.preferences import MemberPreferences, member_preferences
from ..rebalance.runner import Consumer, GroupRunner, Rebalance, alike_groups
from ..server_assignor import SERVER_PREFIX
from ..snapshot import GroupSnapshot
from ..strategy import Strategy
from .migration import server_replay

__all__ = [
    "ALL_STRATEGIES",
    "AuditContext",
    "DEFAULT_STRATEGIES",
    "StrategyOutcome",
    "quiet_strategy_logs",
    "replay_strategies",
    "replay_strategy",
]

#: What an audit replays unless told otherwise: the assignors Kafka's Java client ships
#: (range, roundrobin, sticky, cooperative-sticky) plus fair (docs/audit.md).
DEFAULT_STRATEGIES = ("range", "roundrobin", "sticky", "cooperative-sticky", "fair")
#: The ``strategies`` value that selects every installed strategy.
ALL_STRATEGIES = "all"


@dataclass
class AuditContext:
    """What one process needs to replay groups: its own plugin manager and the names."""

    pm: PluginManager
    strategies: tuple[str, ...]
    _instances: dict[str, Strategy] = field(default_factory=dict, repr=False, compare=False)

    def instance(self, name: str) -> Strategy:
        """One instance of ``name`` with default options for the process's life (strategies
        are pure, so one serves every group)."""
        instance = self._instances.get(name)
        if instance is None:
            instance = self._instances[name] = self.pm.strategy(name)
        return instance

    @functools.cached_property
    def strategy_loggers(self) -> tuple[str, ...]:
        """The loggers of the packages the replayed strategies come from (their top level)."""
        installed = self.pm.strategy_names()
        modules = {
            type(self.pm.strategy(name)).__module__ for name in self.strategies if name in installed
        }
        return tuple(sorted({module.split(".")[0] for module in modules}))

    @classmethod
    def create(cls, strategies: tuple[str, ...] | None = None) -> AuditContext:
        """A manager loading the installed plugins (never the shared one).

        :param strategies: names to replay; None = :data:`DEFAULT_STRATEGIES` (those installed),
            ``("all",)`` = every installed strategy
        """
        pm = PluginManager()
        context = cls(pm, _strategy_names(pm, strategies))
        for name in context.strategies:
            context.instance(name)  # unknown names fail here, before any group is read
        return context


def _strategy_names(pm: PluginManager, strategies: tuple[str, ...] | None) -> tuple[str, ...]:
    installed = pm.strategy_names()
    if not strategies:
        return tuple(name for name in DEFAULT_STRATEGIES if name in installed) or installed
    if tuple(strategies) == (ALL_STRATEGIES,):
        return installed
    return tuple(strategies)


@contextmanager
def quiet_strategy_logs(loggers: tuple[str, ...]) -> Iterator[None]:
    """Per-group warnings (e.g. "no lags known") would flood a fleet audit; the rows say it all.
    Scoped to the replayed strategies' own loggers (:meth:`AuditContext.strategy_loggers`); the
    caller's logging (a test run, the simulator in the same process) is restored."""
    # Only loggers not already at ERROR: setLevel clears every logger's cache, and an engine
    # that holds the block open around a chunk (audit_chunk) makes each group's a no-op.
    silenced = [
        logger
        for logger in map(logging.getLogger, loggers)
        if logger.level != logging.ERROR
    ]
    levels = [logger.level for logger in silenced]
    silence = logging.NullHandler()
    for logger in silenced:
        logger.setLevel(logging.ERROR)
    logging.getLogger().addHandler(silence)  # no "last resort" stderr output meanwhile
    try:
        yield
    finally:
        logging.getLogger().removeHandler(silence)
        for logger, level in zip(silenced, levels, strict=True):
            logger.setLevel(level)


@dataclass(frozen=True)
class StrategyOutcome:
    """One strategy's replay of one group."""

    strategy: str
    metrics: dict[str, Any] | None
    assignment: GroupAssignment | None
    owners_per_partition: int = 1
    settled: bool = True
    error: str | None = None
    note: str | None = None


def replay_strategy(
    snapshot: GroupSnapshot,
    strategy: str,
    context: AuditContext,
    preferences: MemberPreferences | None = None,
) -> StrategyOutcome:
    """Adopt the current assignment, then a real rebalance under ``strategy`` (``preferences``:
    the members' own options when already read)."""
    return _replay_or_error(snapshot, strategy, context, preferences, None)


def replay_strategies(
    snapshot: GroupSnapshot, strategies: Sequence[str], context: AuditContext
) -> list[StrategyOutcome]:
    """:func:`replay_strategy` for each of ``strategies``, in that order. Those that replay
    alike (every hook assignframe's default, no member options, one rebalance protocol: range,
    roundrobin and fair) share their first round's adoption, joins and leader's view
    (:meth:`GroupRunner.rebalance_alike`); should one of them fail, each is replayed alone, so
    its error stays its own."""
    preferences = {}
    for name in strategies:
        if not name.startswith(SERVER_PREFIX):
            try:
                preferences[name] = _preferences(snapshot, name, context)
            except Exception:  # noqa: BLE001 - replayed alone below, which reports it
                continue
    without_options = {n: context.instance(n) for n, p in preferences.items() if not p.options}
    alike = alike_groups(context.pm, without_options)
    # Members without options offering nothing of their own (the runner's strategy): the same
    # consumers for every such replay of the group.
    plain = [_consumer(m, (), {}) for m in snapshot.members.values()] if without_options else None
    outcomes: dict[str, StrategyOutcome] = {}
    for names in alike:
        try:
            outcomes |= _replay_alike(snapshot, names, context, preferences, plain)
        except Exception:  # noqa: BLE001 - replayed alone below, each with its own error
            pass
    return [
        outcomes.get(name)
        or _replay_or_error(snapshot, name, context, preferences.get(name), plain)
        for name in strategies
    ]


def _replay_or_error(
    snapshot: GroupSnapshot,
    strategy: str,
    context: AuditContext,
    preferences: MemberPreferences | None,
    plain: Sequence[Consumer] | None,
) -> StrategyOutcome:
    """:func:`replay_strategy`, with the group's ``plain`` consumers when already built."""
    try:
        return _replay(snapshot, strategy, context, preferences, plain)
    except Exception as exc:  # one strategy failing on one group is a result, not a crash
        return StrategyOutcome(strategy, None, None, error=f"{type(exc).__name__}: {exc}")


def _replay_alike(
    snapshot: GroupSnapshot,
    names: tuple[str, ...],
    context: AuditContext,
    preferences: Mapping[str, MemberPreferences],
    plain: Sequence[Consumer] | None = None,
) -> dict[str, StrategyOutcome]:
    runner = GroupRunner(names[0], cluster=snapshot.cluster, pm=context.pm, wire=False)
    consumers = plain or [_consumer(m, (), {}) for m in snapshot.members.values()]
    runner.adopt(snapshot.current, max(snapshot.generation, 1))
    played = runner.rebalance_alike(names, consumers, lags=snapshot.lags)
    return {
        name: _outcome(snapshot, name, result, preferences[name]) for name, result in played.items()
    }


def _preferences(
    snapshot: GroupSnapshot, strategy: str, context: AuditContext
) -> MemberPreferences:
    return member_preferences(
        context.pm, context.instance(strategy), snapshot.members, snapshot.protocol
    )


def _replay(
    snapshot: GroupSnapshot,
    strategy: str,
    context: AuditContext,
    preferences: MemberPreferences | None,
    plain: Sequence[Consumer] | None = None,
) -> StrategyOutcome:
    if strategy.startswith(SERVER_PREFIX):  # a consumer group: the broker assigns
        target, metrics = server_replay(snapshot, strategy, context.pm)
        return StrategyOutcome(strategy, metrics, target)
    runner = GroupRunner(strategy, cluster=snapshot.cluster, pm=context.pm, wire=False)
    preferences = preferences or _preferences(snapshot, strategy, context)
    options = preferences.options
    consumers: Sequence[Consumer]
    if not options and plain is not None:  # offering nothing: the runner's strategy, the same
        consumers = plain
    else:
        consumers = [
            _consumer(m, (strategy,), dict(options.get(m.member_id) or {}))
            for m in snapshot.members.values()
        ]
    runner.adopt(snapshot.current, max(snapshot.generation, 1), options=preferences.options)
    result = runner.rebalance(consumers, lags=snapshot.lags)
    return _outcome(snapshot, strategy, result, preferences)


def _consumer(member: Member, strategies: tuple[str, ...], options: dict[str, Any]) -> Consumer:
    """The consumer that replays ``member`` (its topics a tuple already: a Member's)."""
    return trusted(
        Consumer,
        member_id=member.member_id,
        topics=member.topics,
        strategies=strategies,
        rack=member.rack,
        group_instance_id=member.group_instance_id,
        subscription=None,
        options=options,
    )


def _outcome(
    snapshot: GroupSnapshot, strategy: str, result: Rebalance, preferences: MemberPreferences
) -> StrategyOutcome:
    final = result.final
    metrics = metrics_record(
        final.group,
        final.assignment,
        snapshot.current,
        final.owners_per_partition,
        len(result.rounds),
    )
    return StrategyOutcome(
        strategy,
        metrics,
        final.assignment,
        final.owners_per_partition,
        result.settled,
        note=" ".join(preferences.notes) or None,
    )
