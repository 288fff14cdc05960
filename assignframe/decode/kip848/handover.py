"""When each partition of a captured consumer-protocol group had no owner, and whether that was
normal reconciliation or a problem.

Ownership follows the group's events in time order: a member owns what the broker last sent it;
a partition the broker takes from it is *revoked* (KIP-848 reconciliation: the member gives it up
at one heartbeat, its new owner receives it at a later one); a member that leaves, is fenced or
vanishes (stops heartbeating without leaving) gives up everything. From its release until a
member receives it, a partition is consumed by nobody: a :class:`Gap`.

The last member leaving empties the group: its partitions are nobody's to consume, not waiting
for an owner.

A gap is **normal** when a live member handed the partition over (revoked, or left) and the next
owner had it within :data:`NORMAL_INTERVALS` heartbeat intervals: that is reconciliation at work.
It is a **problem** otherwise: its owner vanished or was fenced (the broker hands its partitions
over only when the session times out), or the hand-over took longer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ...model import TopicPartition
from .timeline import ConsumerGroupTimeline

__all__ = ["NORMAL_INTERVALS", "Gap", "epoch_spans", "handover_gaps", "member_names"]

#: How many heartbeat intervals a hand-over may take and still be ordinary reconciliation (the
#: old owner revokes at one heartbeat and confirms at its next; the new owner's next heartbeat
#: brings the partition).
NORMAL_INTERVALS = 3
DEFAULT_HEARTBEAT_MS = 5000
_RELEASES = {"leave": "left", "static leave": "left", "vanished": "vanished"}


@dataclass(frozen=True)
class Gap:
    """A partition without an owner.

    :param released_by: the member that gave it up; ``how``: revoked, left, vanished or fenced
    :param end: when the next owner received it (None: not within the capture)
    :param taken_by: that member
    :param normal: ordinary reconciliation (see the module docstring)
    """

    partition: TopicPartition
    start: float
    end: float | None
    released_by: str
    how: str
    taken_by: str | None
    normal: bool
    until: float  # ``end``, or the capture's end

    @property
    def seconds(self) -> float:
        return self.until - self.start

    def overlaps(self, start: float, end: float) -> bool:
        return self.start < end and self.until > start if end > start else (
            self.start <= start <= self.until
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "partition": [self.partition.topic, self.partition.partition],
            "from": self.start,
            "until": self.end,
            "seconds": round(self.seconds, 3),
            "released_by": self.released_by,
            "how": self.how,
            "taken_by": self.taken_by,
            "normal": self.normal,
        }


def member_names(group: ConsumerGroupTimeline) -> dict[str, str]:
    """member id -> how people know it: its client id, with the id's start when two share one."""
    ids = {m.member_id: m.client_id or m.member_id for m in group.members.values()}
    shared = {name for name in ids.values() if list(ids.values()).count(name) > 1}
    return {m: f"{name} ({m[:8]})" if name in shared else name for m, name in ids.items()}


def capture_end(group: ConsumerGroupTimeline) -> float:
    """The last moment the capture shows of the group."""
    times = [e["timestamp"] for e in group.events]
    times += [s.observed_at for s in group.snapshots if s.observed_at is not None]
    times += [m.last_seen for m in group.members.values()]
    return max(times, default=0.0)


def epoch_spans(group: ConsumerGroupTimeline) -> dict[int, tuple[float, float]]:
    """group epoch -> (start, end): from the first event of the epoch to the next one's start
    (the last epoch: to the capture's end)."""
    starts: dict[int, float] = {}
    for event in sorted(group.events, key=lambda e: e["timestamp"]):
        epoch = event.get("epoch")
        if isinstance(epoch, int) and epoch not in starts:
            starts[epoch] = event["timestamp"]
    for snapshot in group.snapshots:
        if snapshot.generation not in starts and snapshot.observed_at is not None:
            starts[snapshot.generation] = snapshot.observed_at
    ordered = sorted(starts.items(), key=lambda item: (item[1], item[0]))
    end = capture_end(group)
    return {
        epoch: (start, ordered[i + 1][1] if i + 1 < len(ordered) else end)
        for i, (epoch, start) in enumerate(ordered)
    }


def handover_gaps(group: ConsumerGroupTimeline) -> list[Gap]:
    """Every time a partition of the group had no owner, in time order. None for a share group
    (KIP-932): several members may hold one share partition and the coordinator hands it over
    without waiting for a revocation, so one owner per partition is not its model. None for a
    Streams group (KIP-1071) either: it hands over tasks, not partitions (not computed yet)."""
    if group.group_type in ("share", "streams"):
        return []
    end = capture_end(group)
    owner: dict[TopicPartition, str] = {}
    owned: dict[str, set[TopicPartition]] = {}
    open_gaps: dict[TopicPartition, tuple[float, str, str]] = {}
    closed: list[Gap] = []
    normal_after = {m.member_id: NORMAL_INTERVALS * (m.heartbeat_interval_ms or
                                                     DEFAULT_HEARTBEAT_MS) / 1000
                    for m in group.members.values()}

    def release(tp: TopicPartition, member: str, at: float, how: str) -> None:
        if owner.get(tp) == member:
            del owner[tp]
            open_gaps[tp] = (at, member, how)

    def receive(tp: TopicPartition, member: str, at: float) -> None:
        owner[tp] = member
        if tp in open_gaps:
            start, by, how = open_gaps.pop(tp)
            closed.append(_gap(tp, start, at, by, how, member, normal_after.get(by, 15.0)))

    live: set[str] = set()
    for event in sorted(group.events, key=lambda e: e["timestamp"]):
        member, at = event["member_id"], event["timestamp"]
        kind = _release_kind(event)
        if event["event"] == "join":
            live.add(member)
        elif kind:
            live.discard(member)
            for tp in sorted(owned.pop(member, set())):
                if live or kind != "left":  # the last member leaving empties the group
                    release(tp, member, at, kind)
                else:
                    owner.pop(tp, None)
        elif event["event"] == "assignment":
            new = {TopicPartition(t, p) for t, p in event.get("partitions") or ()}
            old = owned.get(member, set())
            for tp in sorted(old - new):
                release(tp, member, at, "revoked")
            for tp in sorted(new - old):
                receive(tp, member, at)
            owned[member] = new
    closed += [
        _gap(tp, start, None, by, how, None, normal_after.get(by, 15.0), end)
        for tp, (start, by, how) in open_gaps.items()
    ]
    return sorted(closed, key=lambda g: (g.start, g.partition))


def _release_kind(event: dict[str, Any]) -> str | None:
    if event["event"] in _RELEASES:
        return _RELEASES[event["event"]]
    if event["event"] == "error" and event.get("error") in ("FENCED_MEMBER_EPOCH",
                                                             "UNKNOWN_MEMBER_ID"):
        return "fenced"
    return None


def _gap(tp: TopicPartition, start: float, end: float | None, by: str, how: str,
         taken_by: str | None, normal_after: float, capture_end: float | None = None) -> Gap:
    until = end if end is not None else max(capture_end or start, start)
    normal = how in ("revoked", "left") and until - start <= normal_after
    return Gap(tp, start, end, by, how, taken_by, normal, until)


def gaps_in(gaps: Iterable[Gap], span: tuple[float, float]) -> list[Gap]:
    """The gaps that overlap one epoch's span."""
    return [gap for gap in gaps if gap.overlaps(*span)]


__all__ += ["capture_end", "gaps_in"]
