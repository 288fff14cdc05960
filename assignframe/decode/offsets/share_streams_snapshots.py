"""Share and Streams groups rebuilt from ``__consumer_offsets`` as their snapshots
(:class:`~assignframe.snapshot.share.ShareSnapshot`,
:class:`~assignframe.snapshot.streams.StreamsSnapshot`), the types ``inspect`` builds from the
describes: :func:`.snapshots.offsets_snapshots` writes them beside the other groups.

What the records do not hold is None, with a note, never made up: the group's state, the
assignor the broker runs (the records name none), a share group's backlog (share-partition start
offsets and lag are the share coordinator's, in ``__share_group_state``), a Streams group's task
lag (no end offsets are read) and its ``streams.num.standby.replicas`` (Kafka 4.3.1 records it
in StreamsGroupMetadata's tagged field 1, which the codec does not declare). Topic
ids are named from ShareGroupStatePartitionMetadata where it names them, else from Metadata when
it was read (``--bootstrap-server``); partition counts come from Metadata only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

from ...model import TopicPartition
from ...snapshot.share import ShareMember, ShareSnapshot
from ...snapshot.streams import StreamsGroupMember, StreamsSnapshot, label_order
from ...streams_assignor import TASK_KINDS
from .share_streams_state import ShareGroupState, StreamsGroupState

__all__ = ["recorded_share_snapshot", "recorded_streams_snapshot"]

_NO_STATE = "rebuilt from __consumer_offsets: the records hold no group state"
_NO_ASSIGNOR = {"share": "the assignor is not in the records (the broker's first of "
                         "group.share.assignors)",
                "streams": "the assignor is not in the records"}
_NO_BACKLOG = ("the records hold no share-partition state (start offsets and lag are the share "
               "coordinator's, in __share_group_state): backlog unknown")
_NO_LAG = "end offsets not read: task lag unknown"
_NO_STANDBYS = "streams.num.standby.replicas not read: unknown"


class _Snapshottable(NamedTuple):
    """What a group's snapshot holds: its members (those with both their metadata and current
    assignment records: what a member is and what it holds at which epoch), a note naming the
    ones with only one (left out, not filled in), and its two epochs."""

    ids: list[str]
    notes: list[str]
    group_epoch: int
    assignment_epoch: int


def _snapshottable(state: ShareGroupState | StreamsGroupState) -> _Snapshottable | str:
    """:class:`_Snapshottable`, or why the group has no snapshot (deleted, no members, an epoch
    not in the records)."""
    if state.deleted:
        return "deleted (tombstone)"
    both = sorted(set(state.members) & set(state.current))
    partial = sorted(set(state.members) ^ set(state.current))
    notes = ([f"member(s) with only one of their metadata and current assignment records, "
              f"left out: {', '.join(partial)}"] if partial else [])
    if not both:
        return "; ".join([f"{state.group_type}, no members (group epoch {state.group_epoch})",
                          *notes])
    missing = [name for name, value in (("group epoch", state.group_epoch),
                                        ("assignment epoch", state.assignment_epoch))
               if value is None]
    if state.group_epoch is None or state.assignment_epoch is None:
        return f"{state.group_type}, {' and '.join(missing)} not in the records"
    return _Snapshottable(both, notes, state.group_epoch, state.assignment_epoch)


def _counts(topics: Iterable[str], counts: Mapping[str, int], notes: list[str],
            ) -> dict[str, int]:
    wanted = sorted(set(topics))
    unknown = [t for t in wanted if t not in counts]
    if unknown:
        notes.append(f"partition count of {', '.join(unknown)} not read (no Metadata)")
    return {t: counts[t] for t in wanted if t in counts}


def recorded_share_snapshot(state: ShareGroupState, names: Mapping[str, str],
                            counts: Mapping[str, int]) -> tuple[ShareSnapshot | None, str]:
    """The share group as its snapshot, or None and why not (deleted, no members)."""
    found = _snapshottable(state)
    if isinstance(found, str):
        return None, found
    named = {**names, **state.topic_names}
    unnamed: set[str] = set()
    topic_ids: dict[str, str] = {}
    members = []
    for member_id in found.ids:
        meta, now = state.members[member_id], state.current[member_id]
        held = []
        for topic_id, partition in now.assigned:
            topic = named.get(topic_id)
            if topic is None:
                unnamed.add(topic_id)
                topic = topic_id
            else:
                topic_ids[topic] = topic_id
            held.append(TopicPartition(topic, partition))
        members.append(ShareMember(
            member_id, meta.client_id or None, meta.client_host or None, now.member_epoch,
            meta.subscribed_topic_names, tuple(sorted(held))))
    notes = [_NO_STATE, _NO_ASSIGNOR["share"], _NO_BACKLOG, *found.notes]
    if unnamed:
        notes.append(f"topic ids not named (no Metadata for them): {', '.join(sorted(unnamed))}")
    subscribed = _counts((t for m in members for t in m.subscribed), counts, notes)
    return ShareSnapshot(
        state.group_id, None, found.group_epoch, found.assignment_epoch, None, members,
        subscribed, notes=notes, topic_ids=dict(sorted(topic_ids.items()))), ""


def recorded_streams_snapshot(state: StreamsGroupState, counts: Mapping[str, int],
                              ) -> tuple[StreamsSnapshot | None, str]:
    """The Streams group as its snapshot, or None and why not (deleted, no members)."""
    found = _snapshottable(state)
    if isinstance(found, str):
        return None, found
    nothing = {kind: () for kind in TASK_KINDS}
    members = []
    for member_id in found.ids:
        meta, now = state.members[member_id], state.current[member_id]
        members.append(StreamsGroupMember(
            member_id, meta.client_id or None, meta.client_host or None,
            meta.process_id or None, now.member_epoch, dict(now.tasks),
            dict(state.target.get(member_id, nothing))))
    notes = [_NO_STATE, _NO_ASSIGNOR["streams"], _NO_LAG, _NO_STANDBYS, *found.notes]
    if state.topology_epoch is None:
        notes.append("no StreamsGroupTopology record: task inputs unknown")
    inputs = [t for topics in state.subtopologies.values() for t in topics]
    snapshot = StreamsSnapshot(
        state.group_id, None, found.group_epoch, found.assignment_epoch, state.topology_epoch,
        None, members, dict(state.subtopologies), notes=notes,
        partitions=_counts(inputs, counts, notes), stateful=state.stateful)
    held = {t for m in members for t in m.tasks.get("active", ())}
    snapshot.task_lags = {task: None for task in sorted(held, key=label_order)}
    return snapshot, ""
