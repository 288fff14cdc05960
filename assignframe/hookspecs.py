"""The hook specifications: the plugin author's reference.

Every hook is called with keyword arguments only. Implementations may accept any subset of the
arguments (pluggy passes only the ones they name), so new arguments can be added in later releases
without breaking anyone; arguments are never removed without a deprecation release.

Write implementations with ``from assignframe import hookimpl`` (the one marker, defined here).
The core registers default implementations of the firstresult hooks
(``assignframe.plugins.defaults``) with ``trylast=True``; they dispatch to the
:class:`~assignframe.strategy.Strategy` methods, so a plugin only implements a hook to change
behaviour across strategies (e.g. force a rack, add tracing, veto an assignment).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .model import (
        Cluster,
        GroupAssignment,
        GroupSubscription,
        MemberAssignment,
        MemberState,
        RebalanceProtocol,
        SubscriptionMetadata,
        TopicPartition,
    )
    from .registry import StrategyRegistry
    from .strategy import Strategy

PROJECT_NAME = "assignframe"
_hookspec = pluggy.HookspecMarker(PROJECT_NAME)
#: The one marker for hook implementations, ours and every plugin's (re-exported as
#: ``assignframe.hookimpl``): ``@hookimpl def register_strategies(registry): ...``
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


# ---------------------------------------------------------------------------------------------
# Discovery
# ---------------------------------------------------------------------------------------------


@_hookspec
def register_strategies(registry: StrategyRegistry) -> None:
    """Register the strategy classes this plugin provides.

    Called once, when the plugin manager first loads plugins. Call ``registry.add(cls)`` for each
    :class:`~assignframe.strategy.Strategy` subclass; its ``name`` attribute is the strategy name.

    :param registry: the registry to add strategy classes to
    :returns: nothing
    """


# ---------------------------------------------------------------------------------------------
# Subscription metadata
# ---------------------------------------------------------------------------------------------


@_hookspec(firstresult=True)
def subscription_metadata(
    strategy: Strategy,
    topics: tuple[str, ...],
    state: MemberState,
    rack: str | None,
    protocol: RebalanceProtocol,
) -> SubscriptionMetadata | None:
    """Build what a member puts in its JoinGroup subscription for ``strategy``.

    The default drops owned partitions when the member runs EAGER (and, under COOPERATIVE,
    partitions of topics no longer subscribed), sends the last generation and rack, and asks the
    strategy for its user data. ``state`` still holds what the member owned before the rebalance,
    so user data may describe the previous assignment (as the sticky strategy's does). Stops at
    first non-None result.

    :param strategy: the strategy the subscription is for
    :param topics: the topics the member subscribes to
    :param state: what the member kept from its last assignment
    :param rack: the member's rack (``client.rack``), or None
    :param protocol: the member's rebalance protocol: the highest one every strategy it offers
        supports (Java's rule, so offering ``[cooperative-sticky, range]`` means EAGER)
    :returns: the subscription to encode, or None to let the next implementation decide
    """


# ---------------------------------------------------------------------------------------------
# User data
# ---------------------------------------------------------------------------------------------


@_hookspec(firstresult=True)
def decode_user_data(
    strategy: Strategy, member_id: str, user_data: bytes | None, subscription_version: int
) -> Any:
    """Decode one member's user data for the leader's ``assign`` call.

    The result becomes ``Member.decoded_user_data``. The default calls
    ``strategy.decode_user_data``. Stops at first non-None result.

    :param strategy: the strategy the group runs
    :param member_id: whose user data this is (for error messages)
    :param user_data: the raw bytes, or None when the member sent null
    :param subscription_version: the ConsumerProtocol version of the subscription
    :returns: the decoded value, or None when there is nothing to decode
    """


@_hookspec(firstresult=True)
def on_assignment(
    strategy: Strategy, assignment: MemberAssignment, generation: int, state: MemberState
) -> MemberState | None:
    """Compute the state a member keeps after receiving its assignment.

    The default calls ``strategy.on_assignment``. Stops at first non-None result.

    :param strategy: the strategy the group runs
    :param assignment: what the member received in SyncGroup
    :param generation: the generation of that assignment
    :param state: the member's state before it
    :returns: the member's new state, or None to let the next implementation decide
    """


# ---------------------------------------------------------------------------------------------
# Assignment
# ---------------------------------------------------------------------------------------------


@_hookspec(firstresult=True)
def lag_source(
    group_id: str | None, cluster: Cluster, topics: tuple[str, ...]
) -> Mapping[TopicPartition, int] | None:
    """Supply each partition's current lag for the leader's assignment (the lag source).

    Called by the leader before ``assign`` when no lags were given explicitly; the result becomes
    ``GroupSubscription.lags``. Lag = end offset - committed offset; with no committed offset,
    ``auto.offset.reset=latest`` gives 0 and anything else gives end - beginning offset (see
    :func:`assignframe.lag.partition_lag`). An implementation that cannot read offsets returns
    None (and logs why): lag-based strategies then balance partition counts only, and the
    rebalance never fails for want of lag. Stops at first non-None result.

    :param group_id: the consumer group, when known
    :param cluster: partition counts (and racks) the leader sees
    :param topics: the topics any member subscribes to, sorted
    :returns: partition -> lag, or None when unknown. A partition left out is one whose lag
        this source does not know: a lag-based strategy assigns it as 0 behind, the metrics
        leave it out of each member's lag (:func:`assignframe.metrics.lag_per_member`)
    """


@_hookspec(firstresult=True)
def assign(strategy: Strategy, group: GroupSubscription) -> GroupAssignment | None:
    """Compute the group's assignment (the leader's call).

    The default calls ``strategy.assign(group)``. Stops at first non-None result.

    :param strategy: the strategy the group runs
    :param group: every member's decoded subscription and the cluster view
    :returns: the assignment, or None to let the next implementation decide
    """


# ---------------------------------------------------------------------------------------------
# After assignment
# ---------------------------------------------------------------------------------------------


@_hookspec
def after_assignment(
    strategy: Strategy, group: GroupSubscription, assignment: GroupAssignment
) -> None:
    """Observe a computed assignment before it is sent (validation, metrics, audit logging).

    Every implementation is called. Raising an exception aborts the assignment, so only raise to
    veto an assignment that must not be sent.

    :param strategy: the strategy that computed it
    :param group: the input it was computed from
    :param assignment: the computed assignment
    :returns: nothing
    """
