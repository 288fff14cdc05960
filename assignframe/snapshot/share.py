"""A share group (KIP-932) at one assignment epoch: :class:`ShareSnapshot`.

A share group's members hold partitions (several members may share one; the broker's
``simple`` assignor spreads them) and never commit offsets: the broker keeps a share-partition
start offset per partition and, from DescribeShareGroupOffsets v1 (Kafka 4.3), its lag (records
not yet acknowledged). The snapshot is what ``inspect`` shows, ``watch`` records, the metrics
export and the audit replays: balance (max - min partitions per member), idle members, members
behind the group's assignment epoch, partitions no member holds, and the backlog. Nothing is
invented: a value the broker did not give is None ("unknown"), never 0 or -1.

Its JSON form (:meth:`ShareSnapshot.as_dict`, read back by :meth:`ShareSnapshot.from_dict`
through :func:`assignframe.snapshot.read_snapshot`) carries the ``schema`` and ``group_type``
keys of every snapshot line, what was read, and the numbers derived from it for people (the
reader ignores those).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import MalformedSnapshot
from ..model import TopicPartition
from .problems import GroupProblem, listed, member_label, state_problems
from .schema import (
    counts_field,
    epoch_group_header,
    list_field,
    mapping_field,
    optional_int,
    partition_list,
    read_epoch_group_header,
    required_int,
    required_text,
    text_or_none,
)

__all__ = ["PartitionBacklog", "ShareMember", "ShareSnapshot", "spread", "tp_label"]


def spread(counts: list[int]) -> int | None:
    """Most minus least (None without any count)."""
    return max(counts) - min(counts) if counts else None


def tp_label(key: TopicPartition) -> str:
    """``topic-partition``, as Kafka's tools print a partition."""
    return f"{key.topic}-{key.partition}"


@dataclass(frozen=True)
class ShareMember:
    member_id: str
    client_id: str | None
    client_host: str | None
    member_epoch: int
    subscribed: tuple[str, ...]
    partitions: tuple[TopicPartition, ...]


@dataclass(frozen=True)
class PartitionBacklog:
    """One share-partition: its start offset and lag (the broker's: records not yet acknowledged;
    end - start would count the acknowledged records past the start too, so it is not used)
    and its end offset; None when unknown."""

    start_offset: int | None
    end_offset: int | None
    lag: int | None


@dataclass
class ShareSnapshot:
    """A share group as the broker described it.

    :param subscribed: topic -> partitions, for the subscribed topics the cluster's metadata knew
    :param backlog: per share-partition, when DescribeShareGroupOffsets was read
    :param topic_ids: topic -> the broker's topic id (Kafka's base64 form), as the assignments
        carried them; the assignor's replay needs them for Java's order
    :param observed_at: when it was read (Unix seconds), None when not known
    """

    group_id: str
    state: str | None
    group_epoch: int
    assignment_epoch: int
    assignor: str | None
    members: list[ShareMember]
    subscribed: dict[str, int]
    backlog: dict[TopicPartition, PartitionBacklog] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    topic_ids: dict[str, str] = field(default_factory=dict)
    observed_at: float | None = None

    group_type = "share"

    def partitions(self) -> list[TopicPartition]:
        """Every partition of the subscribed topics."""
        return [TopicPartition(t, p) for t, n in sorted(self.subscribed.items())
                for p in range(n)]

    def holders(self) -> dict[TopicPartition, list[str]]:
        held: dict[TopicPartition, list[str]] = {}
        for m in self.members:
            for tp in m.partitions:
                held.setdefault(tp, []).append(m.member_id)
        return held

    def unassigned(self) -> list[TopicPartition]:
        held = self.holders()
        return [tp for tp in self.partitions() if tp not in held]

    def idle(self) -> list[ShareMember]:
        return [m for m in self.members if not m.partitions]

    def behind(self) -> list[ShareMember]:
        """Members whose epoch is short of the group's assignment epoch: they have not yet
        heartbeated their way to the current assignment (stuck if it lasts)."""
        return [m for m in self.members if m.member_epoch < self.assignment_epoch]

    def spread(self) -> int | None:
        return spread([len(m.partitions) for m in self.members])

    def total_backlog(self) -> int | None:
        known = [b.lag for b in self.backlog.values() if b.lag is not None]
        return sum(known) if known else None

    def member_backlog(self, member: ShareMember) -> int | None:
        """The backlog of the partitions ``member`` holds (shared ones count for each holder)."""
        known = [lag for tp in member.partitions
                 if tp in self.backlog and (lag := self.backlog[tp].lag) is not None]
        return sum(known) if known else None

    def reconciling(self) -> list[str]:
        return [m.member_id for m in self.behind()]

    def owners(self) -> dict[str, str]:
        """``topic-p`` -> its holders (comma-separated member ids), for the watch history."""
        return {tp_label(tp): ",".join(sorted(ids)) for tp, ids in sorted(self.holders().items())}

    def problems(self) -> list[GroupProblem]:
        found: list[GroupProblem] = []
        unassigned, idle, behind = self.unassigned(), self.idle(), self.behind()
        if unassigned:
            found.append(GroupProblem(f"{len(unassigned)} partition(s) held by no member: "
                                      + listed([tp_label(tp) for tp in unassigned]), "unowned"))
        if idle:
            found.append(GroupProblem(f"{len(idle)} idle member(s): " + listed(
                [member_label(m.member_id, m.client_id) for m in idle]), "idle"))
        if behind:
            found.append(GroupProblem(
                f"{len(behind)} member(s) behind assignment epoch {self.assignment_epoch}: "
                + listed([f"{member_label(m.member_id, m.client_id)} at {m.member_epoch}"
                          for m in behind]), "reconciling"))
        return found + state_problems(self.state)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form: what was read, then the derived numbers (not read back)."""
        holders = self.holders()
        return {
            **epoch_group_header("share", self),
            "subscribed": self.subscribed, "topic_ids": self.topic_ids,
            "members": [{"member_id": m.member_id, "client_id": m.client_id,
                         "client_host": m.client_host,
                         "member_epoch": m.member_epoch, "subscribed": list(m.subscribed),
                         "partitions": [[tp.topic, tp.partition] for tp in m.partitions],
                         "backlog": self.member_backlog(m)} for m in self.members],
            "partitions": [{"topic": tp.topic, "partition": tp.partition,
                            "holders": sorted(holders.get(tp, [])),
                            "start_offset": b.start_offset, "end_offset": b.end_offset,
                            "lag": b.lag}
                           for tp, b in sorted(self.backlog.items())],
            "notes": self.notes,
            "spread": self.spread(), "backlog": self.total_backlog(),
            "unassigned": [tp_label(tp) for tp in self.unassigned()],
            "idle": [m.member_id for m in self.idle()],
            "behind": [m.member_id for m in self.behind()],
        }

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> ShareSnapshot:
        """Read :meth:`as_dict`'s form back.

        :raises MalformedSnapshot: a field missing or of the wrong type (says which)
        """
        where, header = read_epoch_group_header(row, "share group")
        members = [_member(where, i, m) for i, m in enumerate(list_field(row, "members", where))]
        backlog = {}
        for i, p in enumerate(list_field(row, "partitions", where)):
            if not isinstance(p, Mapping):
                raise MalformedSnapshot(f"{where}: partitions[{i}] is not an object")
            tp = partition_list(f"{where} partitions[{i}]",
                                [[p.get("topic"), p.get("partition")]])[0]
            backlog[tp] = PartitionBacklog(*(optional_int(where, f"partitions[{i}].{k}", p.get(k))
                                             for k in ("start_offset", "end_offset", "lag")))
        return cls(
            **header, members=members,
            subscribed=counts_field(where, "subscribed", row.get("subscribed")), backlog=backlog,
            notes=[str(n) for n in list_field(row, "notes", where)],
            topic_ids={str(t): str(i) for t, i in
                       mapping_field(where, "topic_ids", row.get("topic_ids")).items()})


def _member(where: str, index: int, raw: Any) -> ShareMember:
    if not isinstance(raw, Mapping):
        raise MalformedSnapshot(f"{where}: members[{index}] is not an object")
    member_id = required_text(raw, "member_id", f"{where} members[{index}]")
    at = f"{where} member {member_id!r}"
    return ShareMember(member_id, text_or_none(raw.get("client_id")),
                       text_or_none(raw.get("client_host")), required_int(raw, "member_epoch", at),
                       tuple(str(t) for t in list_field(raw, "subscribed", at)),
                       partition_list(f"{at} partitions", list_field(raw, "partitions", at)))
