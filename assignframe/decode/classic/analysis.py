"""What changed between generations, how good each assignment is, what another strategy does.

Runs after the timeline is built. ``changes`` compares each generation's typed assignment with the
previous generation of the same group, partition by partition: *kept* (same owner), *moved*
(another member owns it now), *revoked* (owned before, unowned now: cooperative rebalances revoke
first and reassign in a follow-up round) and *added* (unowned before); a partition with several
owners gives one entry per owner, as the metrics count movement.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...metrics import ownership_changes
from ...model import TopicPartition
from ...plugins.manager import PluginManager
from ...snapshot import GroupSnapshot, snapshot_metrics
from .snapshots import captured_snapshot
from .timeline import GroupTimeline, Snapshot
from .what_if import replay_snapshot

__all__ = ["analyse", "assignment_changes", "generation_metrics"]

def assignment_changes(previous: GroupSnapshot | None, current: GroupSnapshot) -> dict[str, Any]:
    """kept/moved/revoked/added partitions and joined/left members versus ``previous``, from
    the typed snapshots (:func:`assignframe.metrics.ownership_changes`: the movement the
    metrics count, partitions with several owners included)."""
    changes = ownership_changes(previous.current if previous else None, current.current)
    old_members = set(previous.members) if previous else set()
    return {
        "previous_generation": previous.generation if previous else None,
        "kept": [_entry(tp, member_id=m) for tp, m in changes.kept],
        "moved": [_entry(tp, **{"from": old, "to": new}) for tp, old, new in changes.moved],
        "revoked": [_entry(tp, **{"from": m}) for tp, m in changes.revoked],
        "added": [_entry(tp, to=m) for tp, m in changes.added],
        "joined": sorted(set(current.members) - old_members),
        "left": sorted(old_members - set(current.members)),
    }


def _entry(tp: TopicPartition, **members: str) -> dict[str, Any]:
    return {"topic": tp.topic, "partition": tp.partition, **members}


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
        typed = {id(s): captured_snapshot(s) for s in timeline.snapshots}
        for previous, snapshot in _with_previous(timeline.snapshots):
            snapshot.typed = typed[id(snapshot)]
            before = typed[id(previous)] if previous is not None else None
            snapshot.changes = assignment_changes(before, snapshot.typed)
            snapshot.metrics = generation_metrics(snapshot.typed, before)
            if replay:
                snapshot.replay = replay_snapshot(snapshot, replay, manager)
