"""Lag-aware assignment: ``lag-aware`` (the proposal, exactly) and ``lag-sticky`` (beyond it).

Both read per-partition lag from ``GroupSubscription.lags``, which the core fills through the
``lag_source`` hook (static lags from a scenario, or live offsets read by the kafka-python adapter).
"""

from __future__ import annotations

from assignframe import hookimpl

from .lag_aware import LagAwareStrategy
from .lag_sticky import LagStickyStrategy

__all__ = ["LagAwareStrategy", "LagStickyStrategy"]


@hookimpl
def register_strategies(registry):
    registry.add(LagAwareStrategy)
    registry.add(LagStickyStrategy)
