"""The kinds of problem a group's verdict can have: one tag per kind, the same for every group
type, which ``inspect --problem`` filters on (the problem's text differs by type: a share group's
partitions are "held by no member", a Streams group's active tasks too, a consumer group's are
"unowned"; all three are ``unowned``).

A :class:`GroupProblem` is the problem's text (a ``str``, shown and written to JSON as before)
carrying its :attr:`~GroupProblem.kind`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PROBLEM_KINDS", "GroupProblem", "listed", "member_label", "state_problems"]

#: kind -> what it means (``inspect --help`` and docs/cli.md list these)
PROBLEM_KINDS: dict[str, str] = {
    "unreadable": "the group, or part of it, could not be read",
    "unowned": "partitions (share: partitions; Streams: active tasks) held by no member",
    "double-owned": "partitions owned by two members",
    "idle": "members holding nothing (Streams: no active task)",
    "reconciling": "members short of their target or the assignment epoch, or holding what "
                   "they must give up",
    "rebalancing": "the group is between generations (a state other than Stable or Empty)",
    "mixed": "classic and consumer-protocol members in one group (mid-migration)",
    "no-commit": "partitions holding records without a committed offset (lag unknown)",
    "lag-imbalance": "lag per member spread beyond the documented threshold",
    "no-members": "records waiting and no member to read them (lag or share backlog)",
    "gone": "the coordinator says the group is Dead",
}


class GroupProblem(str):
    """One problem of a group: its text, and its :attr:`kind` (a key of
    :data:`PROBLEM_KINDS`)."""

    kind: str

    def __new__(cls, text: str, kind: str) -> GroupProblem:
        if kind not in PROBLEM_KINDS:
            raise ValueError(f"unknown problem kind {kind!r}")
        made = super().__new__(cls, text)
        made.kind = kind
        return made

    def __getnewargs__(self) -> tuple[Any, ...]:  # type: ignore[override]
        return (str(self), self.kind)


def member_label(member_id: str, client_id: str | None) -> str:
    """How a problem names a member: its client id and the start of its id, or its id."""
    return f"{client_id} ({member_id[:8]})" if client_id else member_id


def listed(items: list[str], limit: int = 5) -> str:
    """The first ``limit`` items, comma-separated, ``...`` when there are more."""
    return ", ".join(items[:limit]) + (", ..." if len(items) > limit else "")


def state_problems(state: str | None) -> list[GroupProblem]:
    """A group between generations: a state other than Stable or Empty (None: not known)."""
    return [] if state in (None, "Stable", "Empty") else [
        GroupProblem(f"state {state}", "rebalancing")]
