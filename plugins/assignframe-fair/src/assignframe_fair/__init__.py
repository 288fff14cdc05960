"""The ``fair`` strategy (KIP-49): each partition to the least-loaded member that can take it.

Pick it when members' subscriptions differ (rolling config changes, mixed deployments) and you
want partition counts as even as the subscriptions allow; with identical subscriptions it is as
even as roundrobin.
"""

from __future__ import annotations

from typing import Any

from assignframe import GroupAssignment, GroupSubscription, Strategy, hookimpl

from ._greedy import assign_least_loaded, member_rank
from ._refine import rebalance_by_chains

__all__ = ["FairStrategy"]


class FairStrategy(Strategy):
    """KIP-49's greedy assignor, then chain shifts that make the max-min spread optimal.

    Options: ``refine`` (default true); ``refine=False`` runs KIP-49's greedy pass alone, which
    is occasionally less even than roundrobin (docs/strategies.md). Guarantees and limits are in
    the distribution's README.
    """

    name = "fair"
    option_defaults = {"refine": True}

    def assign(self, group: GroupSubscription) -> GroupAssignment:
        rank = member_rank(group)
        subscribers = group.subscribers_by_topic()
        assignment = assign_least_loaded(group, subscribers, rank)
        if _flag(self.options.get("refine", True)):
            assignment = rebalance_by_chains(assignment, subscribers, rank)
        return GroupAssignment.from_partitions(
            {member_id: sorted(partitions) for member_id, partitions in assignment.items()}
        )


def _flag(value: Any) -> bool:
    # Options may come from a command line as strings.
    if isinstance(value, str):
        return value.strip().lower() not in {"0", "false", "no", "off"}
    return bool(value)


@hookimpl
def register_strategies(registry):
    registry.add(FairStrategy)
