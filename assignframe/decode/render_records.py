"""Rich views of payloads and ``__consumer_offsets`` records (the JSON view is ``to_dict``)."""

from __future__ import annotations

import json

from rich.console import Group
from rich.json import JSON
from rich.markup import escape
from rich.text import Text

from .group_state import ConsumerGroupState
from .offsets import OffsetsRecord
from .payload import PayloadResult

__all__ = ["render_group_state", "render_offsets_record", "render_payload"]


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
