"""A consumer-protocol group's state rebuilt from its ``__consumer_offsets`` records (KIP-848).

The coordinator writes one record per fact and replays them in order on load; a later record
replaces an earlier one with the same key, and a tombstone deletes it. Rebuilt here: the group
epoch (ConsumerGroupMetadata), the target assignment epoch (ConsumerGroupTargetAssignmentMetadata),
each member's metadata, target assignment and current assignment (with the partitions pending
revocation), topic ids named from ConsumerGroupPartitionMetadata. Then the invariants the
coordinator keeps are checked (:func:`check_group`); a broken one is a problem naming the group
and the last record that touched it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .offsets import OffsetsRecord

__all__ = ["ConsumerGroupState", "GroupRebuild", "check_group", "rebuild_groups"]


@dataclass
class ConsumerGroupState:
    group_id: str
    group_epoch: int | None = None
    assignment_epoch: int | None = None
    members: dict[str, dict[str, Any]] = field(default_factory=dict)
    target: dict[str, list[list[Any]]] = field(default_factory=dict)
    current: dict[str, dict[str, Any]] = field(default_factory=dict)
    topic_names: dict[str, str] = field(default_factory=dict)
    regexes: dict[str, list[str]] = field(default_factory=dict)
    deleted: bool = False
    last_where: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"group_id": self.group_id, "deleted": self.deleted,
                "group_epoch": self.group_epoch, "assignment_epoch": self.assignment_epoch,
                "members": self.members, "target_assignment": self.target,
                "current_assignment": self.current, "regular_expressions": self.regexes}


def _put(table: dict[Any, Any], key: Any, value: Any) -> None:
    if value is None:
        table.pop(key, None)  # tombstone
    else:
        table[key] = value


class GroupRebuild:
    """Fed records in log order (files and live topics are streamed); :meth:`states` at the end.

    Beside the consumer-protocol groups it keeps, per classic group, its last group metadata
    value (``classic``; None once a tombstone deleted the group) and, per group of either kind,
    its committed offsets (``committed``: ``(topic, partition)`` -> offset; a tombstone deletes
    one). :mod:`.offsets_snapshots` makes group snapshots of all of it.
    """

    def __init__(self) -> None:
        self.groups: dict[str, ConsumerGroupState] = {}
        self.classic: dict[str, dict[str, Any] | None] = {}
        self.committed: dict[str, dict[tuple[str, int], int]] = {}

    def add(self, record: OffsetsRecord) -> None:
        if record.key is None or record.error:
            return
        if record.record_type == "group_metadata":
            self.classic[record.key["group"]] = record.value
            return
        if record.record_type == "offset_commit":
            self._commit(record.key, record.value)
            return
        handler = getattr(self, f"_on_{record.record_type}", None)
        if handler is None:
            return
        group = self.groups.setdefault(record.key["group_id"],
                                       ConsumerGroupState(record.key["group_id"]))
        group.last_where = record.where
        handler(group, record.key, record.value)

    def _commit(self, key: dict[str, Any], value: dict[str, Any] | None) -> None:
        offsets = self.committed.setdefault(key["group"], {})
        _put(offsets, (key["topic"], key["partition"]), value and value["offset"])

    def states(self) -> list[ConsumerGroupState]:
        return sorted(self.groups.values(), key=lambda g: g.group_id)

    def _names(self, group: ConsumerGroupState, topics: Iterable[dict[str, Any]],
               field_name: str = "partitions") -> list[list[Any]]:
        return sorted([group.topic_names.get(t["topic_id"], t["topic_id"]), p]
                      for t in topics for p in t[field_name])

    def _on_ConsumerGroupMetadata(self, group: ConsumerGroupState, _key: Any,  # noqa: N802
                                  value: Any) -> None:
        group.deleted = value is None
        group.group_epoch = None if value is None else value["epoch"]

    def _on_ConsumerGroupTargetAssignmentMetadata(  # noqa: N802
            self, group: ConsumerGroupState, _key: Any, value: Any) -> None:
        group.assignment_epoch = None if value is None else value["assignment_epoch"]

    def _on_ConsumerGroupPartitionMetadata(  # noqa: N802
            self, group: ConsumerGroupState, _key: Any, value: Any) -> None:
        for topic in (value or {}).get("topics") or ():
            group.topic_names[topic["topic_id"]] = topic["topic_name"]

    def _on_ConsumerGroupMemberMetadata(  # noqa: N802
            self, group: ConsumerGroupState, key: Any, value: Any) -> None:
        _put(group.members, key["member_id"], value and {
            name: value.get(name) for name in (
                "instance_id", "rack_id", "client_id", "client_host", "subscribed_topic_names",
                "subscribed_topic_regex", "server_assignor", "rebalance_timeout_ms",
                "classic_member_metadata")})

    def _on_ConsumerGroupTargetAssignmentMember(  # noqa: N802
            self, group: ConsumerGroupState, key: Any, value: Any) -> None:
        _put(group.target, key["member_id"],
             value and self._names(group, value["topic_partitions"]))

    def _on_ConsumerGroupCurrentMemberAssignment(  # noqa: N802
            self, group: ConsumerGroupState, key: Any, value: Any) -> None:
        _put(group.current, key["member_id"], value and {
            "member_epoch": value["member_epoch"],
            "previous_member_epoch": value["previous_member_epoch"],
            "state": value["state"],
            "assigned": self._names(group, value["assigned_partitions"]),
            "pending_revocation": self._names(group, value["partitions_pending_revocation"]),
        })

    def _on_ConsumerGroupRegularExpression(  # noqa: N802
            self, group: ConsumerGroupState, key: Any, value: Any) -> None:
        _put(group.regexes, key["regular_expression"], value and value["topics"])


def rebuild_groups(records: Iterable[OffsetsRecord]) -> list[ConsumerGroupState]:
    """The consumer-protocol groups the records describe, in group id order."""
    rebuild = GroupRebuild()
    for record in records:
        rebuild.add(record)
    return rebuild.states()


def check_group(group: ConsumerGroupState) -> list[str]:
    """The coordinator's invariants this state breaks, one sentence each (empty when none)."""
    if group.deleted:
        return []
    found: list[str] = []
    epoch, target_epoch = group.group_epoch, group.assignment_epoch
    # An empty group's target may lag its epoch: when the last member leaves or is fenced, the
    # coordinator bumps the group epoch and computes no new target until someone heartbeats
    # (what Kafka 4.1 writes, tests/cluster/test_offsets_live.py), so that is no violation.
    if None not in (epoch, target_epoch) and target_epoch > epoch:  # type: ignore[operator]
        found.append(f"assignment epoch {target_epoch} is ahead of group epoch {epoch}")
    owners: dict[tuple[Any, ...], str] = {}
    for member_id, current in sorted(group.current.items()):
        if target_epoch is not None and current["member_epoch"] > target_epoch:
            found.append(f"member {member_id} is at epoch {current['member_epoch']}, beyond "
                         f"the target assignment epoch {target_epoch}")
        for pair in current["assigned"]:
            other = owners.setdefault(tuple(pair), member_id)
            if other != member_id:
                found.append(f"partition {pair[0]}-{pair[1]} is in the current assignment of "
                             f"both {other} and {member_id}")
    return found
