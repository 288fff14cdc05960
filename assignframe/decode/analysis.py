"""What changed between generations, how good each assignment is, what another strategy does.

Runs after the timeline is built. ``changes`` compares each generation's assignment with the
previous generation of the same group, partition by partition: *kept* (same owner), *moved*
(another member owns it now), *revoked* (owned before, unowned now: cooperative rebalances revoke
first and reassign in a follow-up round) and *added* (unowned before).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..plugins.manager import PluginManager
from ..snapshot import GroupSnapshot, snapshot_metrics
from .snapshots import group_snapshot
from .timeline import GroupTimeline, Snapshot
from .what_if import replay_snapshot

__all__ = ["analyse", "assignment_changes", "generation_metrics", "owners"]

Partition = tuple[str, int]


def owners(snapshot: Snapshot) -> dict[Partition, list[str]]:
    """partition -> members it went to (leader-sent assignment, else what members received)."""
    result: dict[Partition, list[str]] = {}
    for member_id, member in snapshot.members.items():
        assignment = member.effective_assignment or {}
        for topic, partition in assignment.get("partitions") or ():
            result.setdefault((topic, partition), []).append(member_id)
    return result


def _single_owner(owner_map: dict[Partition, list[str]]) -> dict[Partition, str]:
    return {p: members[0] for p, members in owner_map.items() if len(members) == 1}


def assignment_changes(previous: Snapshot | None, current: Snapshot) -> dict[str, Any]:
    """kept/moved/revoked/added partitions and joined/left members versus ``previous``."""
    before = _single_owner(owners(previous)) if previous else {}
    after = _single_owner(owners(current))
    changes: dict[str, Any] = {
        "previous_generation": previous.generation if previous else None,
        "kept": [],
        "moved": [],
        "revoked": [],
        "added": [],
    }
    for partition in sorted(set(before) | set(after)):
        old, new = before.get(partition), after.get(partition)
        topic, index = partition
        if old and new:
            if old == new:
                changes["kept"].append({"topic": topic, "partition": index, "member_id": new})
            else:
                changes["moved"].append(
                    {"topic": topic, "partition": index, "from": old, "to": new}
                )
        elif old:
            changes["revoked"].append({"topic": topic, "partition": index, "from": old})
        else:
            changes["added"].append({"topic": topic, "partition": index, "to": new})
    old_members = set(previous.members) if previous else set()
    changes["joined"] = sorted(set(current.members) - old_members)
    changes["left"] = sorted(old_members - set(current.members))
    return changes


def generation_metrics(
    typed: GroupSnapshot, previous: GroupSnapshot | None = None
) -> dict[str, Any]:
    """The core's metrics record of one generation (:func:`assignframe.snapshot.snapshot_metrics`:
    a cooperative round's revoked partitions are ``withheld``, not unowned), plus the count
    each member holds."""
    metrics = snapshot_metrics(typed, previous.current if previous else None).as_dict()
    metrics["partitions_per_member"] = {
        m: len(a.partitions) for m, a in typed.current.assignments.items()
    }
    return metrics


def _with_previous(snapshots: Iterable[Snapshot]) -> Iterable[tuple[Snapshot | None, Snapshot]]:
    previous: Snapshot | None = None
    for snapshot in snapshots:
        yield previous, snapshot
        if snapshot.complete:
            previous = snapshot


def analyse(
    timelines: Iterable[GroupTimeline],
    replay: str | None = None,
    manager: PluginManager | None = None,
) -> None:
    """Fill ``typed``, ``changes``, ``metrics`` (and ``replay`` when a strategy name is given)
    in place."""
    for timeline in timelines:
        typed = {id(s): group_snapshot(s) for s in timeline.snapshots}
        for previous, snapshot in _with_previous(timeline.snapshots):
            snapshot.typed = typed[id(snapshot)]
            snapshot.changes = assignment_changes(previous, snapshot)
            before = typed[id(previous)] if previous is not None else None
            snapshot.metrics = generation_metrics(typed[id(snapshot)], before)
            if replay:
                snapshot.replay = replay_snapshot(snapshot, replay, manager)
