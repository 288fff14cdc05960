"""The watch history: append-only JSON lines, one event per line, and what a poll changed.

Each event line is ``{"time", "group_id", "event", ...details, "after"}``; ``after`` is the
group as it stood once the event happened (generation or epoch, state, owner of each partition),
so a watch that is restarted on the same file resumes from the last line of every group and
never says the same change twice. A torn last line (the watch was killed mid-write) is skipped
with one warning and cut off, so the file stays valid JSON lines.

Events (docs/cluster.md lists their fields): ``seen`` (first poll of a group), ``epoch``
(generation or group epoch changed), ``state``, ``joined``, ``left``, ``moved`` (partitions a
member holds that another held before), ``added`` (held by nobody before), ``revoked`` (held by
nobody now) as :mod:`assignframe.movement` defines them, ``settled`` (stable and fully
reconciled again: ``seconds`` since the first poll that saw the change, and ``at_most`` since
the last poll that saw it settled before: the change came between the two, and a member that
crashed held its partitions, doing nothing, for up to its session timeout before the broker, and
so any poll, could tell), ``stuck`` (not settled for longer than the
threshold), ``unreadable``, ``vanished``. Share groups' owners are a partition's holders
(comma-separated: several members may share one); Streams groups' are active tasks (``0_1``), so
``moved`` says which task went where.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..jsonview import loads
from ..movement import holder_changes
from ..snapshot.streams import StreamsSnapshot
from .groups import REBALANCING
from .inspection import GroupVerdict, holding_back

__all__ = ["GroupState", "History", "changes", "rebalances", "state_of", "unreachable"]

SETTLED_STATES = ("Stable", "Empty")
#: how a group's ``unreadable`` starts while no broker of the cluster answers a poll
OUTAGE = "cluster unreachable"


@dataclass
class GroupState:
    """The compact state of a group the history keeps (``owners``: ``topic-p`` -> member)."""

    generation: int | None = None
    state: str | None = None
    owners: dict[str, str] = field(default_factory=dict)
    reconciling: int = 0
    unreadable: str | None = None
    unsettled_since: float | None = None
    #: the last poll that saw the group settled: an episode began after it, so a ``settled``
    #: event says at most how long it took (``at_most``) besides what the polls saw
    settled_seen: float | None = None
    stuck_said: bool = False
    unreadable_since: float | None = None
    #: the member ids the coordinator lists, holding partitions or not (None: not known, e.g.
    #: a history written before members were kept)
    members: list[str] | None = None
    #: classic or consumer (a classic group converted online becomes a consumer one)
    group_type: str | None = None
    #: each member not yet at its target: its client, its epoch and since when (``time`` of
    #: the first poll that saw it reconciling; set by :func:`changes`), so a stuck group names
    #: the member that holds it up and for how long
    reconciling_members: dict[str, dict[str, Any]] | None = None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> GroupState:
        known = {k: raw[k] for k in cls.__dataclass_fields__ if k in raw}
        return cls(**known)

    @property
    def settled(self) -> bool:
        return self.unreadable is None and self.state in SETTLED_STATES and not self.reconciling


def state_of(verdict: GroupVerdict) -> GroupState:
    """The compact state of a judged group (its clocks are set by :func:`changes`)."""
    snapshot = verdict.snapshot
    owners: dict[str, str] = {}
    generation = None
    if snapshot is not None:
        generation = snapshot.generation if snapshot.generation >= 0 else None  # unknown
        for member, assignment in snapshot.current.assignments.items():
            for tp in assignment.partitions:
                owners[f"{tp.topic}-{tp.partition}"] = member
    elif verdict.share_streams is not None:  # share and Streams groups
        view = verdict.share_streams
        reconciling = set(view.reconciling())
        behind = {m.member_id: m for m in view.members if m.member_id in reconciling}
        owing = view.not_given_up() if isinstance(view, StreamsSnapshot) else {}
        return GroupState(view.group_epoch, verdict.state, view.owners(), len(behind),
                          verdict.unreadable,
                          members=None if verdict.unreadable else sorted(verdict.member_ids),
                          group_type=verdict.group_type,
                          reconciling_members={m: _who(b.client_id, b.member_epoch,
                                                       owing.get(m, []))
                                               for m, b in sorted(behind.items())})
    for member, held in (verdict.held or {}).items():  # a rebalancing classic group
        for partition in held:
            owners[partition] = member
    members = None if verdict.unreadable else sorted(verdict.member_ids)
    late = sorted(snapshot.reconciling()) if snapshot else []
    owed = holding_back(snapshot) if snapshot else {}
    return GroupState(generation, verdict.state, owners, len(late), verdict.unreadable,
                      members=members, group_type=verdict.group_type,
                      reconciling_members={
                          m: _who(snapshot.info(m).client_id, snapshot.info(m).member_epoch,
                                  [f"{tp.topic}-{tp.partition}" for tp in owed.get(m, [])])
                          for m in late} if snapshot else {})


def _who(client_id: str | None, epoch: int | None, not_given_up: list[str]) -> dict[str, Any]:
    """A reconciling member as the state keeps it: ``not_given_up`` is what it still holds
    that its target gave to another (what the members it goes to wait for)."""
    return {"client_id": client_id, "epoch": epoch, "not_given_up": not_given_up,
            "since": None}


def unreachable(before: GroupState, why: str) -> GroupState:
    """A group's state after a poll that read nothing (the cluster could not be reached): what
    was known stands, and it is unreadable for ``why`` (an outage already said keeps its
    first reason, so it is one ``unreadable`` event however the polls fail)."""
    if not (before.unreadable and before.unreadable.startswith(OUTAGE)):
        why = f"{OUTAGE}: {why}"
    else:
        why = before.unreadable
    return GroupState(before.generation, before.state, dict(before.owners), before.reconciling,
                      why, members=before.members, group_type=before.group_type)


def rebalances(before: int | None, after: int | None) -> int:
    """How many rebalances a change of generation (or group epoch) from ``before`` to
    ``after`` stands for: each generation is one (a jump of two is two); a first known or a
    lower one (the group was deleted and made again) counts one."""
    if before is None or after is None or after <= before:
        return 1
    return after - before


def changes(group_id: str, before: GroupState | None, after: GroupState, now: float,
            stuck_after: float) -> list[dict[str, Any]]:
    """The events between two states of one group (``after`` gets its unsettled clock)."""
    if before is None:
        _reconciling_since(GroupState(), after, now)
        if not after.settled:
            after.unsettled_since = now
        else:
            after.settled_seen = now
        return [{"event": "seen", "generation": after.generation, "state": after.state}]
    after.unsettled_since, after.stuck_said = before.unsettled_since, before.stuck_said
    after.settled_seen = before.settled_seen
    if not after.owners and (after.unreadable or after.state in REBALANCING):
        # a rebalance (or a read that failed) shows no owners: the last known ones stand until
        # a readable state says otherwise, so who left and what moved is said then, once
        after.owners = dict(before.owners)
    if after.generation is None:  # unknown now (a rebalance, a failed read): the last stands
        after.generation = before.generation
    if after.members is None:
        after.members = before.members
    _reconciling_since(before, after, now)
    events = _differences(before, after)
    recovered: list[dict[str, Any]] = []  # read again: no change of the group's own
    if after.unreadable:
        after.unreadable_since = before.unreadable_since if before.unreadable else now
        if after.unreadable.startswith(OUTAGE):
            return events  # not knowing a group is no change of its own: clocks stand
    elif before.unreadable:
        recovered.append({"event": "readable", "seconds": None if before.unreadable_since
                          is None else round(now - before.unreadable_since, 3)})
    if events and after.unsettled_since is None:
        after.unsettled_since = now
    if after.settled and after.unsettled_since is not None and (events or not before.settled):
        events.append({"event": "settled",
                       "seconds": round(now - after.unsettled_since, 3),
                       "at_most": None if before.settled_seen is None
                       else round(now - before.settled_seen, 3)})
        after.unsettled_since, after.stuck_said = None, False
    elif not after.settled and after.unsettled_since is None:
        after.unsettled_since = now
    if after.settled:
        after.settled_seen = now
    if (not after.settled and after.unsettled_since is not None and not after.stuck_said
            and now - after.unsettled_since >= stuck_after):
        after.stuck_said = True
        events.append({"event": "stuck", "state": after.state, "reconciling": after.reconciling,
                       "seconds": round(now - after.unsettled_since, 3),
                       "members": _holding_up(after, now)})
    return recovered + events


def _reconciling_since(before: GroupState, after: GroupState, now: float) -> None:
    """Each member still reconciling keeps the time it was first seen so; a newly reconciling
    one starts now (a group not read keeps what was known)."""
    if after.reconciling_members is None or after.unreadable:
        after.reconciling_members = before.reconciling_members
        return
    known = before.reconciling_members or {}
    for member, who in after.reconciling_members.items():
        since = known.get(member, {}).get("since")
        who["since"] = now if since is None else since


def _holding_up(state: GroupState, now: float) -> list[dict[str, Any]]:
    """The members a stuck group waits for: those holding what they must give up first (they
    hold the others up), then the longest reconciling; id, client, epoch, what it has not
    given up and seconds since it was first seen reconciling."""
    members = [{"member_id": m, "client_id": who.get("client_id"), "epoch": who.get("epoch"),
                "not_given_up": who.get("not_given_up") or [],
                "seconds": None if who.get("since") is None else round(now - who["since"], 3)}
               for m, who in (state.reconciling_members or {}).items()]
    return sorted(members, key=lambda m: (not m["not_given_up"], -(m["seconds"] or 0.0),
                                          m["member_id"]))


def _differences(before: GroupState, after: GroupState) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    if after.unreadable and after.unreadable != before.unreadable:
        events.append({"event": "unreadable", "why": after.unreadable})
    if after.generation != before.generation and after.generation is not None:
        events.append({"event": "epoch", "from": before.generation, "to": after.generation,
                       "rebalances": rebalances(before.generation, after.generation)})
    if before.group_type and after.group_type and after.group_type != before.group_type:
        # an online upgrade (or downgrade): the epoch numbers of the two types do not compare
        events.append({"event": "type", "from": before.group_type, "to": after.group_type})
    if after.state != before.state:
        events.append({"event": "state", "from": before.state, "to": after.state})
    if after.unreadable:
        return events  # nothing below can be known of a group that was not read
    old, new = _members(before), _members(after)
    events += [{"event": "joined", "member_id": m} for m in sorted(new - old)]
    events += [{"event": "left", "member_id": m} for m in sorted(old - new)]
    changes = holder_changes(_held(before), _held(after))
    if changes.moved:
        events.append({"event": "moved", "partitions": [list(m) for m in changes.moved]})
    if changes.added:
        events.append({"event": "added", "partitions": [list(a) for a in changes.added]})
    if changes.revoked:
        events.append({"event": "revoked", "partitions": [list(r) for r in changes.revoked]})
    return events


def _held(state: GroupState) -> dict[str, list[str]]:
    """Member -> what it holds (a share partition's holders are comma-separated)."""
    held: dict[str, list[str]] = {}
    for item, owner in state.owners.items():
        for member in owner.split(",") if state.group_type == "share" else (owner,):
            held.setdefault(member, []).append(item)
    return held


def _members(state: GroupState) -> set[str]:
    """The members of a state: those the coordinator listed, or (a history written before
    members were kept) those holding something."""
    return set(state.members) if state.members is not None else _holders(state)


def _holders(state: GroupState) -> set[str]:
    """Every member holding something."""
    return set(_held(state))


class History:
    """The history file: resumes from it, appends events to it."""

    def __init__(self, path: Path | None, warn: Callable[[str], None]) -> None:
        self.path = path
        self.last: dict[str, GroupState] = {}
        self._lock: Any = None
        if path is not None:
            self._lock = _locked(path)
        if path is not None and path.exists():
            try:
                self._resume(path, warn)
            except InputError:
                self.close()
                raise

    def close(self) -> None:
        """Release the history file (its lock) for another watch."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def _resume(self, path: Path, warn: Callable[[str], None]) -> None:
        data = path.read_bytes()
        good = 0
        for line, end in _lines(data):
            try:
                event = loads(line)
                self.last[event["group_id"]] = GroupState.from_dict(event["after"])
            except (ValueError, KeyError, TypeError):
                if end < len(data) or data.endswith(b"\n"):
                    number = data[:good].count(b"\n") + 1
                    raise InputError("not a history event", f"{path} line {number}") from None
                warn(f"{path}: the last line is torn ({len(data) - good} bytes, the watch "
                     "was stopped while writing it); skipped")
                with open(path, "r+b") as f:
                    f.truncate(good)
                return
            good = end

    def append(self, group_id: str, now: float, events: list[dict[str, Any]],
               after: GroupState) -> None:
        self.last[group_id] = after
        if self.path is None or not events:
            return
        with open(self.path, "a", encoding="utf-8") as f:
            for event in events:
                f.write(json.dumps({"time": round(now, 3), "group_id": group_id, **event,
                                    "after": after.as_dict()}) + "\n")


def _locked(path: Path) -> Any:
    """``path`` opened and locked for this watch alone: a second watch on the same history
    would write every event twice, so it is refused (the lock goes with the process, also when
    it is killed)."""
    import fcntl

    try:
        handle = open(path, "a", encoding="utf-8")  # noqa: SIM115 - held for the watch's life
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", str(path)) from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise InputError("another watch is writing this history", str(path)) from None
    return handle


def _lines(data: bytes) -> Iterator[tuple[bytes, int]]:
    start = 0
    while start < len(data):
        stop = data.find(b"\n", start)
        end = len(data) if stop < 0 else stop + 1
        if data[start:end].strip():
            yield data[start:end], end
        start = end
