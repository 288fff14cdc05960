"""Consumer-protocol (KIP-848) group timelines as JSON lines and rich text.

A JSON line per group epoch is the core snapshot's serialization
(:func:`assignframe.snapshot.snapshot_to_dict`, read back by ``read_snapshot``) plus decode's keys:
``source``, ``metrics`` (the core's :func:`~assignframe.snapshot.snapshot_metrics`), each member's
``protocol`` (consumer, or classic in a mixed group) and, for consumer members, ``client_id``,
``final_state`` (active, left, fenced or vanished at the capture's end), ``subscription_regex``
and ``server_assignor``; and the group's ``events`` and ``described`` (ConsumerGroupDescribe).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from rich.console import Console
from rich.table import Table

from ..snapshot import GroupSnapshot, snapshot_metrics
from ..snapshot import snapshot_to_dict as core_snapshot_dict
from .consumer_protocol import ConsumerGroupTimeline

__all__ = ["consumer_snapshot_dicts", "render_consumer_timelines"]


def _with_previous(snapshots: list[GroupSnapshot]) -> Iterator[tuple[GroupSnapshot | None,
                                                                      GroupSnapshot]]:
    return zip([None, *snapshots[:-1]], snapshots, strict=True)


def consumer_snapshot_dicts(
    groups: Iterable[ConsumerGroupTimeline], source: str | None = None
) -> Iterator[dict[str, Any]]:
    for group in groups:
        for previous, snapshot in _with_previous(group.snapshots):
            core = core_snapshot_dict(snapshot)
            result = {"schema": core.pop("schema"), "source": source, **core}
            for member in result["members"]:
                known = group.members.get(member["member_id"])
                if known is None:  # a classic member of a mixed group (see its notes)
                    member["protocol"] = "classic"
                    continue
                member.update(protocol="consumer", client_id=known.client_id,
                              final_state=known.state,
                              subscription_regex=known.subscription.get("subscribed_topic_regex"),
                              server_assignor=known.subscription.get("server_assignor"))
            metrics = snapshot_metrics(snapshot, previous.current if previous else None)
            result.update(metrics=metrics.as_dict(), events=group.events,
                          described=group.described)
            yield result


def _pairs(partitions: Iterable[Any]) -> str:
    by_topic: dict[str, list[int]] = {}
    for topic, partition in partitions:
        by_topic.setdefault(topic, []).append(partition)
    return " ".join(f"{t}[{','.join(map(str, sorted(p)))}]" for t, p in sorted(by_topic.items()))


def render_consumer_timelines(groups: Iterable[ConsumerGroupTimeline], console: Console) -> None:
    for group in groups:
        console.print(f"== consumer group {group.group_id} (KIP-848): "
                      f"{len(group.snapshots)} epoch(s) ==")
        for snapshot in group.snapshots:
            table = Table(title=f"group epoch {snapshot.generation}"
                          f" (assignor {snapshot.protocol or 'broker default'})")
            for column in ("member", "client", "epoch", "topics", "owned (reported)", "assigned"):
                table.add_column(column)
            for member_id, member in snapshot.members.items():
                known = group.members.get(member_id)
                table.add_row(member_id, (known.client_id or "") if known else "(classic)",
                              str(member.generation), ",".join(member.topics),
                              _pairs(member.owned_partitions),
                              _pairs(snapshot.current.assignments[member_id].partitions))
            console.print(table)
            for note in snapshot.notes:
                console.print(f"  note: {note}")
        for event in group.events:
            details = {k: v for k, v in event.items()
                       if k not in ("event", "member_id", "timestamp", "stream", "offset")}
            if "partitions" in details:
                details["partitions"] = _pairs(details["partitions"])
            text = " ".join(f"{k}={v}" for k, v in details.items())
            console.print(f"  {event['event']:<10} {event['member_id']} {text}".rstrip())
        console.print()
