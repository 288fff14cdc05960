"""Decoded groups as JSON lines, one object per generation (classic) or epoch (KIP-848).

Each line is the core snapshot's serialization (:func:`assignframe.snapshot.snapshot_to_dict`, read
back by ``read_snapshot``) plus what decode saw around it: ``source``, ``metrics`` (the core's one
record), rounds, events, changes, replay and, per member, its client and what it offered. For
consumer-protocol groups each member also says its ``final_state`` (active, left, fenced or
vanished at the capture's end), ``subscription_regex`` and ``server_assignor``, and the group its
``events`` (in time order), ``described`` (ConsumerGroupDescribe), the epoch's ``epoch_span``
and its ``handovers`` (partitions nobody consumed during it, and why). Share groups (KIP-932)
are written as every tool writes a share group (:class:`~assignframe.snapshot.share.ShareSnapshot`,
read back by ``read_snapshot``, so the audit replays them) with the same additions:
``final_state`` per member, ``described`` from ShareGroupDescribe, no hand-overs, ``metrics`` by
:mod:`..kip848.share` (several members may hold one share partition). Streams groups (KIP-1071)
are not written as snapshots by decode yet: one line per epoch of decode's own
:class:`~..kip848.streams.StreamsEpoch` (``group_type`` ``"streams"``, no ``schema``, not read
back): the topology, each live member's process and tasks by kind (active, standby, warmup, in
Kafka's ``0_3`` spelling), what it reported owning, its target from the epoch's last
StreamsGroupDescribe, and the group's events and describes. docs/decode.md lists every field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from ...snapshot import SNAPSHOT_SCHEMA, GroupSnapshot, snapshot_metrics
from ...snapshot import snapshot_to_dict as core_snapshot_dict
from ..classic.snapshots import captured_snapshot
from ..classic.timeline import GroupTimeline, MemberRound, Snapshot
from ..kip848.handover import epoch_spans, gaps_in, handover_gaps
from ..kip848.share import captured_share_snapshot, share_metrics
from ..kip848.streams import described_json, task_labels
from ..kip848.timeline import ConsumerGroupTimeline

__all__ = [
    "SNAPSHOT_SCHEMA",
    "consumer_snapshot_dicts",
    "generation_line",
    "json_line",
    "snapshot_dicts",
    "streams_epoch_dicts",
]


def _member_extras(member: MemberRound) -> dict[str, Any]:
    """What decode adds to a member beyond the snapshot (which says who it is: client id, host,
    software, the strategies it offered): what its SyncGroup response carried, and the
    strategy's view of its user data."""
    subscription = {
        k: v
        for k, v in (member.subscription.view if member.subscription is not None else {}).items()
        if k in ("user_data_decoded", "user_data_error", "error")
    }
    if member.subscription_source:
        subscription["source"] = member.subscription_source
    return {
        "subscription": subscription,
        "assignment_source": "leader" if member.assignment is not None else (
            "member" if member.received is not None else None
        ),
        "received_assignment": member.received.view if member.received is not None else None,
    }


def generation_line(snapshot: Snapshot, source: str | None = None) -> dict[str, Any]:
    """One group generation as a JSON-ready dict: the core snapshot's serialization
    (:func:`assignframe.snapshot.snapshot_to_dict`, read back by ``read_snapshot``) plus what
    decode saw around it (docs/decode.md lists every field)."""
    typed = snapshot.typed or captured_snapshot(snapshot)
    core = core_snapshot_dict(typed)
    result = {"schema": core.pop("schema"), "source": source, **core}
    for member in result["members"]:
        extras = _member_extras(snapshot.members[member["member_id"]])
        member["subscription"].update(extras.pop("subscription"))
        member.update(extras)
    result.update(
        protocol_type=snapshot.protocol_type,
        first_seen=snapshot.first_seen,
        synced_at=snapshot.synced_at,
        complete=snapshot.complete,
        changes=snapshot.changes,
        metrics=snapshot.metrics,
        rounds=snapshot.rounds,
        events=snapshot.events,
        replay=snapshot.replay,
    )
    return result


def snapshot_dicts(
    timelines: Iterable[GroupTimeline], source: str | None = None
) -> Iterator[dict[str, Any]]:
    for timeline in timelines:
        for snapshot in timeline.snapshots:
            yield generation_line(snapshot, source)


def json_line(value: dict[str, Any]) -> str:
    return json.dumps(value, sort_keys=False, separators=(",", ":"), default=_json_default)


def _json_default(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _with_previous(snapshots: list[GroupSnapshot]) -> Iterator[tuple[GroupSnapshot | None,
                                                                      GroupSnapshot]]:
    return zip([None, *snapshots[:-1]], snapshots, strict=True)


def consumer_snapshot_dicts(
    groups: Iterable[ConsumerGroupTimeline], source: str | None = None
) -> Iterator[dict[str, Any]]:
    """One line per epoch: the snapshot, its metrics, the group's events in time order and the
    hand-overs (partitions nobody consumed) during the epoch (:mod:`..kip848.handover`)."""
    for group in groups:
        gaps, spans = handover_gaps(group), epoch_spans(group)
        events = sorted(group.events, key=lambda e: e["timestamp"])
        for previous, snapshot in _with_previous(group.snapshots):
            core = (captured_share_snapshot(snapshot).as_dict() if snapshot.group_type == "share"
                    else core_snapshot_dict(snapshot))
            result = {"schema": core.pop("schema"), "source": source, **core}
            for member in result["members"]:
                known = group.members.get(member["member_id"])
                if known is None:  # a classic member of a mixed group (member_type says so)
                    continue
                member.update(final_state=known.state)
                if group.group_type == "consumer":  # a share heartbeat has neither field
                    member.update(
                        subscription_regex=known.subscription.get("subscribed_topic_regex"),
                        server_assignor=known.subscription.get("server_assignor"))
            judged = share_metrics if snapshot.group_type == "share" else snapshot_metrics
            metrics = judged(snapshot, previous.current if previous else None)
            span = spans.get(snapshot.generation)
            result.update(metrics=metrics.as_dict(), events=events, described=group.described,
                          epoch_span=list(span) if span else None,
                          handovers=[g.to_dict() for g in gaps_in(gaps, span)] if span else [])
            yield result


def streams_epoch_dicts(
    groups: Iterable[ConsumerGroupTimeline], source: str | None = None
) -> Iterator[dict[str, Any]]:
    """One line per epoch of each Streams group (the module docstring; docs/decode.md)."""
    for group in groups:
        spans = epoch_spans(group)
        events = sorted(group.events, key=lambda e: e["timestamp"])
        for epoch in group.epochs:
            target = epoch.target or {}
            span = spans.get(epoch.epoch)
            yield {
                "source": source,
                "group_id": epoch.group_id,
                "group_type": group.group_type,
                "generation": epoch.epoch,
                "observed_at": epoch.observed_at,
                "group_state": epoch.group_state,
                "topology_epoch": epoch.topology_epoch,
                "subtopologies": epoch.subtopologies,
                "target_epoch": epoch.target_epoch,
                "members": [{
                    "member_id": m.member_id,
                    "client_id": m.client_id,
                    "client_host": m.client_host,
                    "process_id": m.process_id,
                    "member_epoch": m.member_epoch,
                    "final_state": group.members[m.member_id].state,
                    "tasks": task_labels(m.tasks),
                    "owned": task_labels(m.owned),
                    "target": task_labels(target.get(m.member_id)),
                } for m in epoch.members.values()],
                "events": events,
                "described": [described_json(d) for d in group.described],
                "epoch_span": list(span) if span else None,
            }
