"""decode's presentation for people: rich views of classic timelines, consumer-protocol
(KIP-848) timelines, payloads, ``__consumer_offsets`` records and rebuilt group states. The JSON
views are :mod:`.jsonl`; nothing here computes a metric (they come with the snapshots).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from rich.console import Console, Group
from rich.json import JSON
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..classic.timeline import GroupTimeline, MemberRound, Snapshot
from ..offsets.group_state import ConsumerGroupState
from ..offsets.records import OffsetsRecord
from ..payload import PayloadResult
from .kip848_text import render_consumer_timelines

__all__ = [
    "GroupHistory",
    "membership_lines",
    "render_consumer_timelines",
    "render_group_state",
    "render_offsets_record",
    "render_payload",
    "render_snapshot",
    "render_timelines",
]


# -- classic group timelines --------------------------------------------------------------------


def _time(timestamp: float | None) -> str:
    if not timestamp:
        return "?"
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).strftime("%H:%M:%S.%f")[:-3]


def _partitions(pairs: Iterable[Any] | None) -> str:
    grouped: dict[str, list[int]] = {}
    for topic, partition in pairs or ():
        grouped.setdefault(topic, []).append(partition)
    return " ".join(f"{t}[{','.join(map(str, ps))}]" for t, ps in grouped.items()) or "-"


def _user_data(subscription: dict[str, Any]) -> str:
    """The strategy's own view of the user data, else hex (and why it was not read)."""
    decoded = subscription.get("user_data_decoded") or {}
    if "value" in decoded:
        text = json.dumps(decoded["value"], separators=(",", ":"), default=str)
        return escape(f"{decoded['strategy']}: {text[:120]}{'…' if len(text) > 120 else ''}")
    if subscription.get("user_data_error"):
        return f"[red]{escape(subscription['user_data_error'])}[/]"
    raw = subscription.get("user_data")
    shown = (
        "null"
        if raw is None
        else ("empty" if raw == "" else f"0x{raw[:24]}…" if len(raw) > 24 else f"0x{raw}")
    )
    return shown + (f" ({decoded['note']})" if decoded.get("note") else "")


def _member_row(member: MemberRound, leader: str | None) -> list[str]:
    sub = member.subscription.view if member.subscription is not None else {}
    name = member.member_id + (" [bold](leader)[/]" if member.member_id == leader else "")
    client = " ".join(
        x
        for x in (
            member.client_id,
            f"({member.client_software})" if member.client_software else None,
        )
        if x
    )
    if sub.get("error"):
        return [name, client, f"[red]{sub['error']}[/]", "", "", "", _assignment_cell(member)]
    generation = sub.get("generation_id")
    return [
        name,
        client,
        ",".join(sub.get("topics") or []) + f" (v{sub.get('version')})",
        _partitions(sub.get("owned_partitions")),
        "-" if generation is None else str(generation),
        f"{sub.get('rack_id')!r}" if sub.get("rack_id") is not None else "-",
        f"{_user_data(sub)}\n{_assignment_cell(member)}",
    ]


def _assignment_cell(member: MemberRound) -> str:
    payload = member.effective_assignment
    if payload is None:
        return "[yellow]assigned: not captured[/]"
    assignment = payload.view
    if assignment.get("error"):
        return f"[red]assignment {assignment['error']}[/]"
    text = f"[green]assigned: {_partitions(assignment.get('partitions'))}[/]"
    if (
        member.received is not None
        and member.assignment is not None
        and member.received.raw != member.assignment.raw
    ):
        text += " [red](member received different bytes)[/]"
    return text


def _changes_text(snapshot: Snapshot) -> Text:
    changes, metrics = snapshot.changes or {}, snapshot.metrics or {}
    parts = [
        f"vs generation {changes.get('previous_generation')}: "
        if changes.get("previous_generation") is not None
        else "first generation seen: "
    ]
    for key in ("kept", "moved", "revoked", "added"):
        parts.append(f"{key} {len(changes.get(key) or [])}  ")
    moved = ", ".join(
        f"{m['topic']}-{m['partition']} {_short(m['from'])}→{_short(m['to'])}"
        for m in changes.get("moved") or []
    )
    revoked = ", ".join(
        f"{r['topic']}-{r['partition']} from {_short(r['from'])}"
        for r in changes.get("revoked") or []
    )
    text = (
        "".join(parts)
        + (f"\n  moved: {moved}" if moved else "")
        + (f"\n  revoked: {revoked}" if revoked else "")
    )
    validity = metrics.get("validity") or {}
    verdict = "valid" if validity.get("valid") else f"NOT valid: {_validity_problems(validity)}"
    if not metrics.get("complete", True):
        verdict += " (incomplete: assignments missing)"
    text += (
        f"\n  metrics: balance score {metrics.get('balance_score')}, spread {metrics.get('spread')}"
        f" (min {metrics.get('min_partitions')}, max {metrics.get('max_partitions')}), {verdict}"
    )
    return Text(text)


def _validity_problems(validity: dict[str, Any]) -> str:
    parts = []
    for key in ("double_owned", "unowned", "non_subscriber", "unknown"):
        items = validity.get(key) or []
        if items:
            shown = ", ".join("-".join(map(str, item)) for item in items[:6])
            parts.append(f"{key.replace('_', ' ')}: {shown}{', ...' if len(items) > 6 else ''}")
    return "; ".join(parts)


def _short(member_id: str | None) -> str:
    return (member_id or "?")[:14]


#: The join error a new member gets first (KIP-394): part of joining, not a failure.
HANDSHAKE_ERROR = "MEMBER_ID_REQUIRED"


def _is_handshake(event: dict[str, Any]) -> bool:
    return event["type"] == "join_error" and event.get("error") == HANDSHAKE_ERROR


def _events_text(snapshot: Snapshot) -> Text | None:
    shown = [event for event in snapshot.events if not _is_handshake(event)]
    if not shown:
        return None
    lines = []
    for event in shown:
        detail = event.get("error") or (f"reason: {event['reason']}" if event.get("reason") else "")
        lines.append(
            f"  {_time(event['timestamp'])} {event['type']} "
            f"{event.get('member_id') or ''} {detail}".rstrip()
        )
    return Text("events during this generation:\n" + "\n".join(lines))


@dataclass(frozen=True)
class GroupHistory:
    """What a group's whole timeline says about its members (events land in the generation
    during which they happened, so a member's LeaveGroup or handshake precedes the generation
    it is missing from or joins)."""

    leavers: frozenset[str] = frozenset()
    handshakes: frozenset[str] = frozenset()

    @classmethod
    def of(cls, timeline: GroupTimeline) -> GroupHistory:
        events = [e for s in timeline.snapshots for e in s.events]
        return cls(
            frozenset(e["member_id"] for e in events if e["type"] == "leave"),
            frozenset(e["member_id"] for e in events if _is_handshake(e) and e.get("member_id")),
        )


def membership_lines(snapshot: Snapshot, history: GroupHistory) -> list[str]:
    """Who joined, left (sent LeaveGroup) or vanished (gone without one) since the previous
    generation seen; a join that went through the member-id handshake is still one join."""
    changes = snapshot.changes or {}
    leavers, handshakes = history.leavers, history.handshakes
    joined = [
        member + (" (after the member-id handshake)" if member in handshakes else "")
        for member in changes.get("joined") or []
    ]
    gone = changes.get("left") or []
    parts = [
        ("joined", joined),
        ("left", [m for m in gone if m in leavers]),
        ("vanished", [f"{m} (no LeaveGroup seen)" for m in gone if m not in leavers]),
    ]
    return [f"{word}: {', '.join(members)}" for word, members in parts if members]


def render_snapshot(snapshot: Snapshot, history: GroupHistory | None = None) -> Group:
    """One generation: members, partition counts, who joined/left/vanished, rounds, changes."""
    counts = ", ".join(f"{t}: {n}" for t, n in sorted(snapshot.partitions_per_topic.items()))
    kind = (
        "classic protocol, strategy"
        if snapshot.protocol_type in (None, "consumer")
        else f"protocol type {snapshot.protocol_type}, protocol"
    )
    title = (
        f"group [bold]{snapshot.group_id}[/] generation [bold]{snapshot.generation}[/] "
        f"({kind} [bold]{snapshot.protocol}[/]) at {_time(snapshot.first_seen)}"
        + ("" if snapshot.complete else " [yellow](incomplete: no SyncGroup for every member)[/]")
    )
    table = Table(title=title, title_justify="left", show_lines=True, expand=False)
    for column in (
        "member",
        "client",
        "topics (sub. version)",
        "owned",
        "gen",
        "rack",
        "user data / assignment",
    ):
        table.add_column(column, overflow="fold")
    for member in snapshot.members.values():
        table.add_row(*_member_row(member, snapshot.leader))
    rounds = ", ".join(f"{r['type']} {_short(r['member_id'])}" for r in snapshot.rounds)
    membership = membership_lines(snapshot, history or GroupHistory())
    parts: list[Any] = [
        table,
        Text(f"partition counts: {counts or 'unknown'}"),
        *(Text(line) for line in membership),
        Text(f"rounds: {rounds}"),
        _changes_text(snapshot),
    ]
    if snapshot.replay:
        parts.append(_replay_text(snapshot.replay))
    events = _events_text(snapshot)
    if events:
        parts.append(events)
    parts += [Text(f"note: {note}") for note in snapshot.notes]
    return Group(*parts)


def _replay_text(replay: dict[str, Any]) -> Text:
    if replay.get("error"):
        return Text(f"replay with {replay['strategy']}: {replay['error']}", style="red")
    lines = [
        f"replay with {replay['strategy']} "
        f"({'same as captured' if replay['same_as_captured'] else 'DIFFERS from captured'}):"
    ]
    lines += [
        f"  {member}: {_partitions(parts)}" for member, parts in replay["assignments"].items()
    ]
    lines += [f"  warning: {warning}" for warning in replay.get("warnings") or ()]
    return Text("\n".join(lines))


def render_timelines(timelines: Iterable[GroupTimeline], console: Console) -> None:
    for timeline in timelines:
        heading = f"[bold]group {timeline.group_id}[/]: {len(timeline.snapshots)} generation(s)"
        if console.is_terminal:
            console.rule(heading)
        else:  # a rule is as wide as the console: unwrapped (piped) output gets a plain heading
            console.print(f"== {heading} ==")
        history = GroupHistory.of(timeline)
        for snapshot in timeline.snapshots:
            console.print(render_snapshot(snapshot, history))
            console.print()


# -- payloads, records, rebuilt group states ------------------------------------------------------


def _json(value: object) -> JSON:
    return JSON(json.dumps(value, default=str))


def render_payload(result: PayloadResult) -> Group:
    if result.kind is None:
        return Group(
            Text.from_markup(
                f"[bold]{escape(result.source)}[/]: [red]not decoded[/] "
                f"({escape(result.error or '')})"
            )
        )
    head = f"[bold]{escape(result.source)}[/]: [green]{escape(result.label or '')}[/]"
    if result.framed:
        head += f" (framed; header {escape(json.dumps(result.framed['header']))})"
    if not result.exact:
        head += " [yellow](decodes, but does not re-encode to the same bytes)[/]"
    parts: list[object] = [Text.from_markup(head)]
    if result.ambiguous_with:
        parts.append(
            Text(
                f"  ambiguous: these bytes also fit {', '.join(result.ambiguous_with)}",
                style="yellow",
            )
        )
    if result.loose and result.exact:
        parts.append(Text(f"  also decodes loosely as {', '.join(result.loose)}", style="dim"))
    parts.append(_json(result.value))
    return Group(*parts)  # type: ignore[arg-type]


def render_offsets_record(record: OffsetsRecord) -> Group:
    head = f"[bold]{escape(record.where)}[/]: "
    if record.error:
        return Group(
            Text.from_markup(head + f"[red]{escape(record.error)}[/] (key {record.key_hex})")
        )
    kind = record.record_type or "?"
    if record.tombstone:
        deleted = "offset deleted" if kind == "offset_commit" else "group deleted"
        return Group(
            Text.from_markup(
                head + f"{kind} v{record.key_version} [yellow]tombstone ({deleted})[/]"
            ),
            _json(record.key),
        )
    return Group(
        Text.from_markup(head + f"{kind} key v{record.key_version}, value v{record.value_version}"),
        _json({"key": record.key, "value": record.value}),
    )


def render_group_state(state: ConsumerGroupState, broken: list[str]) -> Group:
    """A consumer-protocol group rebuilt from its records, and the invariants it breaks."""
    head = (f"[bold]consumer group {escape(state.group_id)}[/] (rebuilt from records): "
            + ("[red]deleted[/]" if state.deleted else
               f"group epoch {state.group_epoch}, assignment epoch {state.assignment_epoch}"))
    parts: list[Text | JSON] = [Text.from_markup(head), _json(state.to_dict())]
    parts += [Text.from_markup(f"  [red]invariant broken[/]: {escape(line)}") for line in broken]
    return Group(*parts)
