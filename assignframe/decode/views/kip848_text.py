"""decode's text view of consumer-protocol (KIP-848), share (KIP-932) and Streams (KIP-1071)
groups, for people.

One group: its span in time, the server assignor (named, and how that is known), the members by
client name (their ids said once), every event in time order with its time, then each epoch with
its own time span, its members' epochs, owned / assigned / target partitions, its metrics, and
the partitions nobody consumed during it: *in flight* while members reconciled (normal), or
*unowned* because an owner vanished, was fenced or the hand-over took too long (a problem).
A share group's members report no owned partitions and get no separate target, so those columns
are left out, and its partitions held by no live member are named per epoch. A Streams group's
epochs show its topology, each member's process and its active / standby / warm-up tasks (as the
heartbeat answers gave them, and the target a StreamsGroupDescribe reported), and the tasks no
live member runs.
Nothing is computed here: metrics are the core's, hand-overs :mod:`..kip848.handover`'s.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ...audit.migration import coordinator_assignor
from ...snapshot import GroupSnapshot, snapshot_metrics
from ...streams_assignor import TaskId, task_label, task_order
from ..kip848.handover import Gap, epoch_spans, gaps_in, handover_gaps, member_names
from ..kip848.share import share_metrics, shared_partitions, unheld_partitions
from ..kip848.streams import StreamsEpoch, task_labels
from ..kip848.timeline import ConsumerGroupTimeline

__all__ = ["render_consumer_timelines"]


def _clock(timestamp: float | None) -> str:
    if not timestamp:
        return "?"
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).strftime("%H:%M:%S.%f")[:-3]


def _shown_by_topic(partitions: Iterable[Any]) -> str:
    by_topic: dict[str, list[int]] = {}
    for topic, partition in partitions:
        by_topic.setdefault(topic, []).append(partition)
    text = " ".join(f"{t}[{','.join(map(str, sorted(p)))}]" for t, p in sorted(by_topic.items()))
    return text or "-"


class _View:
    """One group's names and times, shared by its parts."""

    def __init__(self, group: ConsumerGroupTimeline) -> None:
        self.group = group
        self.names = member_names(group)
        self.spans = epoch_spans(group)
        self.gaps = handover_gaps(group)
        starts = [s for s, _ in self.spans.values()] + [e["timestamp"] for e in group.events]
        self.start = min(starts, default=0.0)

    def name(self, member_id: str | None) -> str:
        if member_id is None:
            return "?"
        return self.names.get(member_id) or f"{member_id} (classic)"

    def when(self, timestamp: float) -> str:
        return f"{_clock(timestamp)} (+{timestamp - self.start:.2f} s)"


def render_consumer_timelines(groups: Iterable[ConsumerGroupTimeline], console: Console) -> None:
    for group in groups:
        view = _View(group)
        for line in _heading(view):
            console.print(line, highlight=False)
        for line in _events(view):
            console.print(line, highlight=False)
        known = {t for e in group.epochs for t in e.tasks("active")}
        for epoch in group.epochs:  # Streams groups
            console.print()
            console.print(_streams_table(view, epoch))
            for line in _streams_lines(epoch, known):
                console.print(line, highlight=False)
        previous: GroupSnapshot | None = None
        for snapshot in group.snapshots:
            console.print()
            console.print(_epoch_table(view, snapshot))
            for line in _epoch_lines(view, snapshot, previous):
                console.print(line, highlight=False)
            previous = snapshot
        console.print()


def _heading(view: _View) -> list[str]:
    group = view.group
    epochs = len(group.snapshots) + len(group.epochs)
    ends = [end for _, end in view.spans.values()]
    span = f", {_clock(view.start)} to {_clock(max(ends))}" if ends else ""
    assignor, how = _assignor(group)
    members = ", ".join(f"{escape(name)} = {escape(m)}" for m, name in view.names.items())
    kind = {"share": ("share group", "share groups, KIP-932"),
            "streams": ("Streams group", "Streams groups, KIP-1071")}.get(
        group.group_type, ("consumer group", "consumer protocol, KIP-848"))
    return [
        f"== {kind[0]} [bold]{escape(group.group_id)}[/] ({kind[1]}): "
        f"{epochs} epoch(s){span} ==",
        f"assignor: [bold]{escape(assignor)}[/] ({escape(how)})",
        f"members: {members}",
    ]


def _assignor(group: ConsumerGroupTimeline) -> tuple[str, str]:
    """The server assignor and how it is known. A share member names none (its heartbeat has
    no assignor field): only a ShareGroupDescribe answer tells."""
    if group.group_type == "streams":  # its heartbeats name no assignor either
        named = [d["assignor"] for d in group.described if d["assignor"]]
        return ((named[-1], "reported by the broker") if named else
                ("unknown", "no StreamsGroupDescribe answer naming it in the capture"))
    if not group.snapshots:
        return "?", ""
    if group.group_type != "share":
        return coordinator_assignor(group.snapshots[-1])
    named = [s.assignor for s in group.snapshots if s.assignor]
    if named:
        return named[-1], "reported by the broker"
    return "unknown", "no ShareGroupDescribe answer in the capture"


def _events(view: _View) -> list[str]:
    lines = ["events, in time order:"]
    for event in sorted(view.group.events, key=lambda e: e["timestamp"]):
        lines.append(f"  {view.when(event['timestamp'])}  {escape(_event_text(view, event))}")
    return lines


def _event_text(view: _View, event: dict[str, Any]) -> str:
    who, kind = view.name(event["member_id"]), event["event"]
    if kind == "assignment" and "tasks" in event:
        return f"{who} assigned {_shown_tasks(event['tasks'])} (epoch {event['epoch']})"
    if kind == "assignment":
        shown = _shown_by_topic(event.get("partitions") or ())
        return f"{who} assigned {shown} (epoch {event['epoch']})"
    if kind == "epoch":
        return f"{who} at epoch {event['epoch']}, assignment unchanged"
    if kind == "vanished":
        return f"{who} vanished: its last heartbeat (no leave sent; the broker waits for the " \
               "session timeout)"
    if kind == "error":
        message = f": {event['message']}" if event.get("message") else ""
        return f"{who} got {event.get('error')}{message}"
    if kind in ("leave", "static leave"):
        return f"{who} left ({kind})"
    return f"{who} {kind}" + ("ed" if kind == "join" else "")


def _epoch_table(view: _View, snapshot: GroupSnapshot) -> Table:
    start, end = view.spans.get(snapshot.generation, (snapshot.observed_at or 0.0,) * 2)
    title = (
        f"group epoch [bold]{snapshot.generation}[/]: {view.when(start)} to {_clock(end)} "
        f"({end - start:.1f} s)" + (f", state {snapshot.group_state}" if snapshot.group_state
                                     else "")
    )
    table = Table(title=title, title_justify="left")
    share = snapshot.group_type == "share"
    columns = ["member", "member epoch", "topics", *([] if share else ["owned (reported)"]),
               "assigned"]
    if snapshot.target is not None:
        columns.append(f"target (epoch {snapshot.target_epoch})")
    for column in columns:
        table.add_column(column)
    for member_id, member in snapshot.members.items():
        info = snapshot.info(member_id)
        epoch = "classic" if info.member_type == "classic" else str(info.member_epoch)
        row = [view.name(member_id), epoch, ",".join(member.topics),
               *([] if share else [_shown_by_topic(member.owned_partitions)]),
               _shown_by_topic(snapshot.current.partitions_of(member_id))]
        if snapshot.target is not None:
            row.append(_shown_by_topic(snapshot.target.partitions_of(member_id)))
        table.add_row(*map(escape, row))
    return table


def _epoch_lines(view: _View, snapshot: GroupSnapshot, previous: GroupSnapshot | None
                 ) -> list[str]:
    if snapshot.group_type == "share":
        return _share_lines(snapshot, previous)
    m = snapshot_metrics(snapshot, previous.current if previous else None).as_dict()
    verdict = "valid" if m["valid"] else f"[red]NOT valid: {escape(m['problems'])}[/]"
    if m["withheld"]:
        verdict += f", {m['withheld']} partition(s) still held by members giving them up"
    moved = (
        "first epoch seen" if previous is None
        else f"moved {m['partitions_moved']} since epoch {previous.generation}"
    )
    lines = [
        f"  metrics: balance score {m['balance_score']}, max-min {m['spread']} "
        f"(min {m['min_partitions']}, max {m['max_partitions']}), {moved}; {verdict}"
    ]
    for note in snapshot.notes:
        lines.append(f"  note: {escape(note)}")
    span = view.spans.get(snapshot.generation)
    for gap in gaps_in(view.gaps, span) if span else []:
        lines.append("  " + _gap_text(view, gap))
    return lines


def _share_lines(snapshot: GroupSnapshot, previous: GroupSnapshot | None) -> list[str]:
    """A share group's epoch (:mod:`..kip848.share`): partitions per member, the ones several
    members hold (allowed) and the ones nobody holds."""
    m = share_metrics(snapshot, previous.current if previous else None).as_dict()
    shared, nobody = shared_partitions(snapshot), unheld_partitions(snapshot)
    moved = ("first epoch seen" if previous is None
             else f"moved {m['partitions_moved']} since epoch {previous.generation}")
    lines = [f"  metrics: partitions per member min {m['min_partitions']}, max "
             f"{m['max_partitions']} (max-min {m['spread']}), {moved}"]
    if shared:
        lines.append(f"  shared by several members: {escape(_shown_by_topic(shared))}")
    if nobody:
        lines.append(f"  [red]held by no member[/]: {escape(_shown_by_topic(nobody))}")
    lines += [f"  note: {escape(note)}" for note in snapshot.notes]
    return lines


def _shown_tasks(labels: dict[str, list[str]] | None) -> str:
    """``active 0_0,1_0; standby 0_1`` (kinds holding nothing left out; ``-``: none at all)."""
    shown = [f"{kind} {','.join(tasks)}" for kind, tasks in (labels or {}).items() if tasks]
    return "; ".join(shown) or "-"


def _streams_table(view: _View, epoch: StreamsEpoch) -> Table:
    start, end = view.spans.get(epoch.epoch, (epoch.observed_at,) * 2)
    title = (f"group epoch [bold]{epoch.epoch}[/]: {view.when(start)} to {_clock(end)} "
             f"({end - start:.1f} s)" + (f", state {epoch.group_state}" if epoch.group_state
                                          else ""))
    table = Table(title=title, title_justify="left")
    columns = ["member", "member epoch", "process", "active", "standby", "warm-up",
               "owned (reported)"]
    if epoch.target is not None:
        columns.append(f"target (epoch {epoch.target_epoch})")
    for column in columns:
        table.add_column(column)
    for member_id, member in epoch.members.items():
        labels = task_labels(member.tasks) or {}
        row = [view.name(member_id), str(member.member_epoch), member.process_id or "?",
               *(",".join(labels[kind]) or "-" for kind in ("active", "standby", "warmup")),
               _shown_tasks(task_labels(member.owned)) if member.owned is not None else "?"]
        if epoch.target is not None:
            target = epoch.target.get(member_id)
            row.append(_shown_tasks(task_labels(target)) if target is not None else "?")
        table.add_row(*map(escape, row))
    return table


def _streams_lines(epoch: StreamsEpoch, known: set[TaskId]) -> list[str]:
    """The topology, tasks per member by kind, an active task two live members run, and the
    ``known`` active tasks (run by someone in some epoch of the capture) no live member runs
    at the epoch's end."""
    topology = ("not in the capture (no joining heartbeat)" if epoch.subtopologies is None
                else f"epoch {epoch.topology_epoch}, " + "; ".join(
                    f"sub-topology {s} reads {','.join(topics)}"
                    for s, topics in epoch.subtopologies.items()))
    counts = {kind: [len(getattr(m.tasks, kind)) for m in epoch.members.values()]
              for kind in ("active", "standby", "warmup")}
    per_member = "; ".join(f"{kind} {min(n)}-{max(n)}" for kind, n in counts.items() if n)
    lines = [f"  topology: {escape(topology)}",
             f"  tasks per member: {per_member or '-'}"]
    active = epoch.tasks("active")
    twice = sorted({t for t in active if active.count(t) > 1}, key=task_order)
    if twice:
        lines.append("  [red]active on several members[/]: "
                     + escape(",".join(map(task_label, twice))))
    idle = sorted(known - set(active), key=task_order)
    if idle:
        lines.append("  [red]run by no live member[/]: " + escape(",".join(map(task_label, idle))))
    return lines


def _gap_text(view: _View, gap: Gap) -> str:
    taken = (
        f"{view.name(gap.taken_by)} received it at +{gap.end - view.start:.2f} s"
        if gap.end is not None and gap.taken_by
        else "nobody had it by the capture's end"
    )
    cause = {
        "revoked": f"revoked by {view.name(gap.released_by)}",
        "left": f"{view.name(gap.released_by)} left",
        "vanished": f"{view.name(gap.released_by)} vanished without leaving",
        "fenced": f"{view.name(gap.released_by)} was fenced",
    }[gap.how]
    text = (
        f"{gap.partition} unconsumed {gap.seconds:.1f} s: {cause} at "
        f"+{gap.start - view.start:.2f} s, {taken}"
    )
    if gap.normal:
        return f"[green]in flight[/] {escape(text)} (normal reconciliation)"
    return f"[red]unowned[/] {escape(text)} (a problem: nobody consumed it meanwhile)"
