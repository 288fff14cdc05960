"""The flat metrics dict simulations and audits report for one assignment.

Wraps :func:`assignframe.metrics.round_metrics` (KIP-54 balance score, spread, idle members,
kept/moved, lag spread, validity) into plain JSON-able values with stable keys.
"""

from __future__ import annotations

from typing import Any

from ..metrics import RoundMetrics, round_metrics
from ..model import GroupAssignment, GroupSubscription

__all__ = ["assignment_metrics", "flat_metrics"]


def flat_metrics(metrics: RoundMetrics, rounds: int | None = None) -> dict[str, Any]:
    """Stable keys: valid, problems, balance_score, balanced, spread, min/max_partitions,
    idle_members (a count), partitions_kept/moved, lag_spread, rounds."""
    return {
        "valid": metrics.validity.is_valid,
        "problems": "" if metrics.validity.is_valid else metrics.validity.describe(),
        "balance_score": metrics.balance_score,
        "balanced": metrics.balanced,
        "spread": metrics.spread,
        "min_partitions": metrics.min_partitions,
        "max_partitions": metrics.max_partitions,
        "idle_members": len(metrics.idle_members),
        "partitions_kept": metrics.partitions_kept,
        "partitions_moved": metrics.partitions_moved,
        "lag_spread": metrics.lag_spread,
        "rounds": rounds,
    }


def assignment_metrics(
    group: GroupSubscription,
    assignment: GroupAssignment,
    previous: GroupAssignment | None,
    owners_per_partition: int = 1,
    rounds: int | None = None,
) -> dict[str, Any]:
    """:func:`flat_metrics` of one assignment of ``group`` compared with ``previous``."""
    return flat_metrics(round_metrics(group, assignment, previous, owners_per_partition), rounds)
