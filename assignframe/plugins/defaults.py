"""Default implementations of the firstresult hooks: dispatch to the Strategy's own methods.

Registered ``trylast`` by the plugin manager, so any plugin implementing one of these hooks runs
first and may return None to fall through to these. What a member keeps when it joins is the group
protocol's rule (:func:`assignframe.classic.protocol.partitions_kept_at_join`).
"""

from __future__ import annotations

from typing import Any

from ..classic.protocol import partitions_kept_at_join
from ..hookspecs import hookimpl as _hookimpl
from ..model import (
    GroupAssignment,
    GroupSubscription,
    MemberAssignment,
    MemberState,
    RebalanceProtocol,
    SubscriptionMetadata,
    trusted,
)
from ..strategy import Strategy

__all__ = [
    "assign",
    "decode_user_data",
    "on_assignment",
    "subscription_metadata",
]

# Same marker as ``assignframe.hookimpl``; built here to avoid importing the package root.


@_hookimpl(trylast=True)
def subscription_metadata(
    strategy: Strategy,
    topics: tuple[str, ...],
    state: MemberState,
    rack: str | None,
    protocol: RebalanceProtocol,
) -> SubscriptionMetadata:
    topics = tuple(topics)
    # what partitions_kept_at_join returns is normalised already: not checked again
    return trusted(
        SubscriptionMetadata,
        topics=topics,
        user_data=strategy.subscription_user_data(topics, state),
        owned_partitions=partitions_kept_at_join(state, topics, protocol),
        generation=state.generation,
        rack=rack,
    )


@_hookimpl(trylast=True)
def decode_user_data(strategy: Strategy, user_data: bytes | None, subscription_version: int) -> Any:
    return strategy.decode_user_data(user_data, subscription_version)


@_hookimpl(trylast=True)
def on_assignment(
    strategy: Strategy, assignment: MemberAssignment, generation: int, state: MemberState
) -> MemberState:
    return strategy.on_assignment(assignment, generation, state)


@_hookimpl(trylast=True)
def assign(strategy: Strategy, group: GroupSubscription) -> GroupAssignment:
    return strategy.assign(group)
