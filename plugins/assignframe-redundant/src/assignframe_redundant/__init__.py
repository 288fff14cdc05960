"""The ``redundant`` strategy: every partition to N members at once ("redundant partitioning").

For consumers that keep replicas of what they read, e.g. search indexers where each partition
must be indexed by N processes so a query survives the loss of N-1 of them. Written only against
assignframe's public API (``from assignframe import ...``), as any third-party strategy would be.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assignframe import (
    GroupAssignment,
    GroupSubscription,
    MemberState,
    Strategy,
    hookimpl,
)

from ._spread import assign_replicated
from ._user_data import decode_replicas, encode_replicas

__all__ = ["RedundantStrategy", "decode_replicas", "encode_replicas"]


class RedundantStrategy(Strategy):
    """Each partition to ``min(N, subscribers)`` distinct members, spread evenly, deterministic.

    N is the largest of the ``replicas`` option (default 1) and every member's advertised
    replicas (its user data, see :mod:`assignframe_redundant._user_data`). A member built with
    ``replicas=N`` advertises N itself, so a group converges on the largest N any member asks for.
    """

    name = "redundant"
    option_defaults = {"replicas": 1}
    user_data_options = ("replicas",)

    def assign(self, group: GroupSubscription) -> GroupAssignment:
        return GroupAssignment.from_partitions(
            assign_replicated(group, self.owners_per_partition(group))
        )

    @classmethod
    def check_options(cls, options: Mapping[str, Any]) -> None:
        super().check_options(options)
        if "replicas" in options:
            _as_replicas(options["replicas"])  # at least 1, before any group is assigned

    def owners_per_partition(self, group: GroupSubscription) -> int:
        wanted = [self._configured_replicas(group.options)]
        for member in group.members.values():
            advertised = member.decoded_user_data
            if advertised is None and member.user_data is not None:
                # Called without the decode hook (e.g. directly in a test): decode ourselves.
                advertised = decode_replicas(member.user_data)
            if isinstance(advertised, int):
                wanted.append(advertised)
        return max(wanted)

    def subscription_user_data(self, topics: tuple[str, ...], state: MemberState) -> bytes | None:
        if "replicas" not in self.options:
            return None
        return encode_replicas(_as_replicas(self.options["replicas"]))

    def decode_user_data(self, user_data: bytes | None, subscription_version: int) -> Any:
        return decode_replicas(user_data)

    def member_options(self, decoded: Any) -> Mapping[str, Any]:
        # A member that sent null configured no replicas: it states no preference.
        return {} if decoded is None else {"replicas": decoded}

    def _configured_replicas(self, group_options: Any) -> int:
        # The operator's group options win over the options this instance was built with.
        value = group_options.get("replicas", self.options.get("replicas", 1))
        return _as_replicas(value)


def _as_replicas(value: Any) -> int:
    replicas = int(value)  # options may arrive as strings from a command line
    if replicas < 1:
        raise ValueError(f"replicas must be at least 1, got {value!r}")
    return replicas


@hookimpl
def register_strategies(registry):
    registry.add(RedundantStrategy)
