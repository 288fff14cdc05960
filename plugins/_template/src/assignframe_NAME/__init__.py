"""The NAME strategy: say in one line what it does and why someone would pick it."""

from __future__ import annotations

from assignframe import GroupAssignment, GroupSubscription, Strategy, hookimpl

__all__ = ["NameStrategy"]


class NameStrategy(Strategy):
    """Describe the algorithm and its guarantees here."""

    name = "NAME"
    option_defaults: dict = {}  # the options it accepts and their defaults

    def assign(self, group: GroupSubscription) -> GroupAssignment:
        raise NotImplementedError("write the algorithm")


@hookimpl
def register_strategies(registry):
    registry.add(NameStrategy)
