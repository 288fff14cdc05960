"""Pieces both lag strategies share: who may take which topic, and how much lag a partition has."""

from __future__ import annotations

import logging

from assignframe import GroupSubscription, TopicPartition

log = logging.getLogger("assignframe_lagaware")


def partition_lags(group: GroupSubscription, strategy_name: str) -> dict[TopicPartition, int]:
    """The group's known lags; an empty mapping (and a warning) when none are known.

    Without lags both strategies still balance partition counts: that is the documented fallback,
    never a failed rebalance.
    """
    if group.lags is None:
        log.warning(
            "%s: no partition lags known for this rebalance; assigning by partition count only",
            strategy_name,
        )
        return {}
    return dict(group.lags)


def lag_of(lags: dict[TopicPartition, int], partition: TopicPartition) -> int:
    """A partition's lag, 0 when unknown (negative lags, e.g. after a truncation, count as 0)."""
    return max(0, lags.get(partition, 0))
