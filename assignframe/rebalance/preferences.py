"""Each member's own options, read back from the user data a captured group's members sent.

A consumer may advertise an option in its user data (:attr:`Strategy.user_data_options`, e.g.
``redundant``'s ``replicas``). To replay a captured group faithfully, each member must run with
the options it advertised, or the replay "moves" partitions the real group would not. Those bytes
are the strategy's own only when the group ran that strategy (the elected protocol); under any
other strategy, or when a member's bytes do not read, the member's options are unknown, and
:func:`member_preferences` says so in one note instead of guessing.

Only options travel this way. State in user data (sticky's previous assignment) was sent
*before* the captured generation's assignment; replays rebuild it from the current assignment
(:meth:`assignframe.rebalance.runner.GroupRunner.adopt`), never from these bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import UserDataError
from ..model import Member

if TYPE_CHECKING:
    from ..plugins.manager import PluginManager
    from ..strategy import Strategy

__all__ = ["MemberPreferences", "member_preferences"]


@dataclass(frozen=True)
class MemberPreferences:
    """What a replay knows of each member's own options.

    :param options: member id -> the options it advertised (members that advertised none are
        absent: they run with the strategy's configured options, as they did)
    :param notes: one sentence per thing that could not be known (empty: nothing missing)
    """

    options: Mapping[str, Mapping[str, Any]]
    notes: tuple[str, ...] = ()


#: A strategy that carries no option in its user data: nothing to read, nothing to say.
NONE = MemberPreferences({})


def member_preferences(
    plugins: PluginManager,
    strategy: Strategy,
    members: Mapping[str, Member],
    group_protocol: str | None,
) -> MemberPreferences:
    """Read each member's advertised options for ``strategy`` from its captured user data.

    :param plugins: the manager whose ``decode_user_data`` hook reads the bytes
    :param strategy: the strategy about to be replayed
    :param members: the captured members (``Member.user_data``: the bytes each one sent)
    :param group_protocol: the strategy the captured group ran (its user data is that one's)
    """
    names = strategy.user_data_options
    if not names:
        return NONE
    described = ", ".join(names)
    if group_protocol != strategy.name:
        ran = f"{group_protocol}'s" if group_protocol else "of an unknown strategy"
        return MemberPreferences(
            {},
            (
                f"{strategy.name}: the members' own {described} are unknown (their user data "
                f"is {ran}); replayed with {_configured(strategy, names)}",
            ),
        )
    options: dict[str, Mapping[str, Any]] = {}
    unreadable: list[str] = []
    for member_id, member in members.items():
        try:
            decoded = plugins.decode_user_data(
                strategy, member_id, member.user_data, member.subscription_version
            )
        except UserDataError:
            unreadable.append(member_id)
            continue
        own = {k: v for k, v in strategy.member_options(decoded).items() if k in names}
        if own:
            options[member_id] = own
    notes: tuple[str, ...] = ()
    if unreadable:
        notes = (
            f"{strategy.name}: {described} is unknown for {len(unreadable)} member(s) whose user "
            f"data does not read (first {unreadable[0]!r}); those replayed with "
            f"{_configured(strategy, names)}",
        )
    return MemberPreferences(options, notes)


def _configured(strategy: Strategy, names: tuple[str, ...]) -> str:
    defaults = strategy.option_defaults or {}
    values = {name: strategy.options.get(name, defaults.get(name)) for name in names}
    return ", ".join(f"{name}={value!r}" for name, value in values.items())
