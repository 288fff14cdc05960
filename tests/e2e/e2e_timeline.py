"""What the members' event logs say happened, and the group rules checked against it.

Ownership comes only from the members' own rebalance callbacks (``assigned`` adds partitions,
``revoked`` and ``lost`` remove them) plus the harness's records of processes it killed. Under
every protocol the callbacks are incremental in effect: eager members revoke everything and are
then assigned everything they get; cooperative members are told only what changes.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Partition = tuple[str, int]


def read_events(paths: Iterable[Path]) -> list[dict[str, Any]]:
    """Every event of every log, in time order (a line cut short by kill -9 is dropped)."""
    events = []
    for path in paths:
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # the last line of a killed process
    return sorted(events, key=lambda e: e["t"])


def partitions_of(event: dict[str, Any]) -> list[Partition]:
    return [(topic, partition) for topic, partition in event.get("partitions", ())]


@dataclass
class Ownership:
    """Who owns which partition, replayed from the events up to some moment.

    :param excused: member -> (start, end) windows in which that member was frozen or a known
        zombie: its ownership is not counted as overlapping anyone else's then
    """

    excused: dict[str, tuple[float, float]] = field(default_factory=dict)
    owners: dict[Partition, set[str]] = field(default_factory=lambda: defaultdict(set))
    overlaps: list[str] = field(default_factory=list)

    def apply(self, event: dict[str, Any]) -> None:
        member, kind = event["m"], event["ev"]
        if kind == "assigned":
            for tp in partitions_of(event):
                others = {
                    o for o in self.owners[tp] if o != member and not self._excused(o, event["t"])
                }
                if others and not self._excused(member, event["t"]):
                    self.overlaps.append(
                        f"{event['t']:.3f} {tp} assigned to {member}, "
                        f"still owned by {sorted(others)}"
                    )
                self.owners[tp].add(member)
        elif kind in ("revoked", "lost"):
            for tp in partitions_of(event):
                self.owners[tp].discard(member)
        elif kind in ("killed", "closed"):
            for owners in self.owners.values():
                owners.discard(member)

    def _excused(self, member: str, moment: float) -> bool:
        window = self.excused.get(member)
        return window is not None and window[0] <= moment <= window[1]

    def of(self, member: str) -> set[Partition]:
        return {tp for tp, owners in self.owners.items() if member in owners}

    def by_member(self) -> dict[str, set[Partition]]:
        members: dict[str, set[Partition]] = defaultdict(set)
        for tp, owners in self.owners.items():
            for owner in owners:
                members[owner].add(tp)
        return dict(members)


def replay(
    events: Iterable[dict[str, Any]],
    excused: dict[str, tuple[float, float]] | None = None,
    until: float | None = None,
) -> Ownership:
    """Ownership after every event up to ``until`` (all of them when None)."""
    ownership = Ownership(excused=dict(excused or {}))
    for event in events:
        if until is not None and event["t"] > until:
            break
        ownership.apply(event)
    return ownership


def assignment_problems(owned: dict[str, set[Partition]], partitions: set[Partition]) -> list[str]:
    """Why ``owned`` (member -> partitions) is not disjoint and complete over ``partitions``."""
    problems = []
    seen: dict[Partition, str] = {}
    for member, tps in sorted(owned.items()):
        for tp in sorted(tps):
            if tp in seen:
                problems.append(f"{tp} owned by {seen[tp]} and {member}")
            seen[tp] = member
    missing = sorted(partitions - set(seen))
    if missing:
        problems.append(f"unowned: {missing}")
    extra = sorted(set(seen) - partitions)
    if extra:
        problems.append(f"not in the topic: {extra}")
    return problems


def records(events: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    return (e for e in events if e["ev"] == "record")


def consumption_problems(
    events: list[dict[str, Any]],
    produced: dict[Partition, int],
    excused: dict[str, tuple[float, float]] | None = None,
) -> list[str]:
    """Records consumed exactly as committed.

    * every produced record was consumed, and nothing else;
    * every record was consumed while its member owned the partition (outside excused windows);
    * each time a member starts on a partition it starts at the last committed offset. After a
      member died or was fenced, its last commits may not be in its log (killed between the
      broker's answer and the write), so then the start may lie anywhere between the last logged
      commit and the end of what was consumed: redelivery of uncommitted records, never a gap.
      The same holds for a partition taken over from a member frozen at that moment (an excused
      window): a commit the broker accepted before the freeze is logged only once it wakes. Only
      the first start after such a takeover gets this leniency; later hand-overs are exact.
    """
    problems: list[str] = []
    ownership = Ownership(excused=dict(excused or {}))
    committed: dict[Partition, int] = defaultdict(int)
    consumed_end: dict[Partition, int] = defaultdict(int)
    unclean: set[Partition] = set()
    started: set[tuple[str, Partition]] = set()
    seen: dict[Partition, set[int]] = defaultdict(set)
    for event in events:
        kind, member = event["ev"], event["m"]
        if kind in ("assigned", "revoked", "lost", "killed", "closed"):
            if kind in ("killed", "lost"):
                unclean.update(ownership.of(member))
            if kind == "assigned":  # taken over from a member frozen now: see the docstring
                unclean.update(
                    tp
                    for tp in partitions_of(event)
                    if any(
                        owner != member and ownership._excused(owner, event["t"])
                        for owner in ownership.owners[tp]
                    )
                )
            ownership.apply(event)
            started = {(m, tp) for m, tp in started if m != member or tp in ownership.of(member)}
        elif kind == "commit":
            for key, offset in event["offsets"].items():
                topic, _, partition = key.rpartition(":")
                tp = (topic, int(partition))
                committed[tp] = max(committed[tp], offset)
        elif kind == "record":
            tp, offset = (event["topic"], event["partition"]), event["offset"]
            seen[tp].add(offset)
            if member not in ownership.owners[tp] and not ownership._excused(member, event["t"]):
                problems.append(f"{member} consumed {tp}@{offset} without owning it")
            if (member, tp) not in started:
                started.add((member, tp))
                low, high = committed[tp], (consumed_end[tp] if tp in unclean else committed[tp])
                if not low <= offset <= max(low, high):
                    problems.append(f"{member} started {tp} at {offset}, committed {committed[tp]}")
                unclean.discard(tp)  # the leniency covers the first start after the takeover
            consumed_end[tp] = max(consumed_end[tp], offset + 1)
    for tp, count in sorted(produced.items()):
        missing = sorted(set(range(count)) - seen[tp])
        if missing:
            problems.append(f"{tp}: offsets never consumed: {missing[:10]}")
        extra = sorted(seen[tp] - set(range(count)))
        if extra:
            problems.append(f"{tp}: offsets consumed that were not produced: {extra[:10]}")
    return problems


def callback_problems(events: Iterable[dict[str, Any]], cooperative: bool) -> list[str]:
    """Where members' own callbacks break their rebalance protocol.

    * a member is told it loses (``revoked``, ``lost``) only partitions it owns, and is assigned
      only partitions it does not own yet;
    * eager: it has revoked everything before it is assigned anything;
    * cooperative (KIP-429): it is asked to revoke only partitions that move away: no partition is
      assigned back to the member that revoked it before another member owned it (revoking and
      getting back is eager's way). Some clients skip empty ``assigned`` callbacks, so this is
      judged by who owned the partition next, not by the member's next callback.
    """
    problems: list[str] = []
    owned: dict[str, set[Partition]] = defaultdict(set)
    revoked_by: dict[Partition, str] = {}  # partitions nobody owned since this member revoked
    for event in events:
        member, kind, moment = event["m"], event["ev"], f"{event['t']:.3f}"
        tps = set(partitions_of(event))
        if kind in ("revoked", "lost"):
            if tps - owned[member]:
                problems.append(f"{moment} {member} {kind} {sorted(tps - owned[member])} unowned")
            owned[member] -= tps
            revoked_by.update(dict.fromkeys(tps, member) if kind == "revoked" else {})
        elif kind == "assigned":
            if tps & owned[member]:
                problems.append(f"{moment} {member} assigned {sorted(tps & owned[member])} again")
            if not cooperative and owned[member]:
                problems.append(f"{moment} {member} assigned while still owning {owned[member]}")
            back = sorted(tp for tp in tps if revoked_by.get(tp) == member)
            if cooperative and back:
                problems.append(f"{moment} {member} revoked then was given back {back}")
            for tp in tps:
                revoked_by.pop(tp, None)
            owned[member] |= tps
        elif kind in ("killed", "closed"):
            owned[member] = set()
    return problems
