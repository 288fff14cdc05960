"""One inspect pass: read the cluster, build the snapshots, and give each group a verdict.

The verdict's numbers are the audit's (:func:`assignframe.audit.audit_group` on the serialized
snapshot, exactly as ``assignframe audit`` reads ``inspect --json``): current validity and
problems, spread of partitions and of lag per member, idle members, the recommended strategy and,
for classic groups, the migration verdict and prediction, with the heartbeat interval and session
timeout it assumed and where they came from (the group's or the broker's configs as the reader
read them, else Kafka's defaults: :attr:`GroupVerdict.migration_prediction`). A group that
could not be read is a verdict of its own (``unreadable``), ranked worst: it is never shown as
healthy. Share and Streams groups are
judged on views of their own (:mod:`.share_streams`: balance, idle and behind members, backlog
or task lag, reconciliation), kept in :attr:`GroupVerdict.share_streams`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..kip848.timing import GroupTiming
from ..lag import committed_lag
from ..metrics import lag_per_member
from ..model import TopicPartition
from ..snapshot import GroupSnapshot, snapshot_to_dict
from ..snapshot.problems import PROBLEM_KINDS, GroupProblem
from ..snapshot.share import ShareSnapshot
from ..snapshot.streams import StreamsSnapshot
from .config import ClientConfig
from .group_records import READ_BUDGET_S, GroupMetadataLog
from .groups import (
    NOT_SNAPSHOTTED,
    group_snapshot,
    rebalancing,
    rebalancing_assignments,
    unreadable,
)
from .reader import ClusterRead, GroupFilter, GroupRead, read_cluster
from .share_streams import snapshot_of
from .transport import Transport

if TYPE_CHECKING:
    from ..audit.rerun import AuditContext
    from ..snapshot.jsonform import AnySnapshot

__all__ = ["GroupVerdict", "Inspection", "absent", "group_lag", "holding_back", "inspect_cluster",
           "verdicts"]


@dataclass
class GroupVerdict:
    """One row of the fleet table."""

    group_id: str
    group_type: str | None
    state: str | None
    protocol: str | None = None
    members: int = 0
    partitions: int | None = 0
    spread: int | None = None
    lag_spread: int | None = None
    #: what is wrong, worst kinds first as found; each carries its kind (``problem_kinds``)
    problems: list[GroupProblem] = field(default_factory=list)
    recommendation: str | None = None
    migration: str | None = None
    unreadable: str | None = None
    snapshot: GroupSnapshot | None = None
    #: the member ids the coordinator listed (holding partitions or not)
    member_ids: list[str] = field(default_factory=list)
    #: records behind over the partitions with a committed offset (None: no lag known)
    lag: int | None = None
    #: member id -> lag of the partitions it owns that have a committed offset (a member
    #: owning partitions none of which has one is left out: its lag is not known)
    member_lag: dict[str, int] | None = None
    #: a rebalancing classic group: member id -> the partitions (``t-p``) it holds now
    held: dict[str, list[str]] | None = None
    #: subscribed (or, without members, listed) partitions holding records with no committed
    #: offset, ``t-p``: their lag is not known (where the consumer starts is its
    #: ``auto.offset.reset``)
    no_commit: list[str] = field(default_factory=list)
    #: a share or Streams group: its snapshot (classic and consumer groups: ``snapshot``)
    share_streams: ShareSnapshot | StreamsSnapshot | None = None
    #: classic: what the migration prediction assumed (``heartbeat_interval_ms``,
    #: ``session_timeout_ms``, ``timing_source``) and the longest a partition would wait for
    #: its new owner under each server assignor (``max_unowned_ms``: assignor -> ms, None where
    #: it cannot be predicted)
    migration_prediction: dict[str, Any] | None = None

    def behind(self) -> int | None:
        """Records behind: the consumer lag, or a share group's backlog (the LAG column)."""
        if self.lag is None and isinstance(self.share_streams, ShareSnapshot):
            return self.share_streams.total_backlog()
        return self.lag

    def badness(self) -> tuple[int, int, int, int]:
        """Worst first: unreadable, then problems, spread and lag spread."""
        return (1 if self.unreadable else 0, len(self.problems), self.spread or 0,
                self.lag_spread or 0)

    def triage(self) -> tuple[int, int, int, int, int]:
        """The fleet table's order: unreadable groups, then groups with members worst first,
        then groups without members (committed offsets only) last."""
        rank = 0 if self.unreadable else (1 if self.members else 2)
        unreadable, problems, spread, lag_spread = self.badness()
        return (rank, -unreadable, -problems, -spread, -lag_spread)

    def problem_kinds(self) -> list[str]:
        """The kinds of its problems (:data:`PROBLEM_KINDS`), ``unreadable`` included, in the
        order of :data:`PROBLEM_KINDS`."""
        kinds = {p.kind for p in self.problems} | ({"unreadable"} if self.unreadable else set())
        return [k for k in PROBLEM_KINDS if k in kinds]

    def as_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k not in ("snapshot", "share_streams")}
        data["problem_kinds"] = self.problem_kinds()
        if self.share_streams is not None:
            data["detail"] = self.share_streams.as_dict()
        return data


#: a group's lag is imbalanced when the spread of lag per member (most - least behind) is more
#: than this share of the group's lag, and the group is at least LAG_IMBALANCE_MIN records
#: behind (two members: one more than three times as far behind as the other)
LAG_IMBALANCE_SHARE = 0.5
LAG_IMBALANCE_MIN = 1000


@dataclass
class Inspection:
    """What ``assignframe inspect`` shows: the pass, the snapshots, the verdicts worst first."""

    read: ClusterRead
    verdicts: list[GroupVerdict]
    requests: dict[str, int]
    #: groups asked for by id that do not exist (never a row of their own)
    missing: list[str] = field(default_factory=list)

    @property
    def snapshots(self) -> list[GroupSnapshot]:
        """The classic and consumer groups' snapshots (the groups with members)."""
        return [v.snapshot for v in self.verdicts if v.snapshot is not None]

    @property
    def all_snapshots(self) -> list[AnySnapshot]:
        """Every group with members as a snapshot line holds it (the audit's input): classic and
        consumer groups, then share and Streams groups."""
        return [*self.snapshots, *(v.share_streams for v in self.verdicts
                                   if v.share_streams is not None and v.share_streams.members)]

    @property
    def unreadable(self) -> list[str]:
        return [v.unreadable for v in self.verdicts if v.unreadable]


def inspect_cluster(bootstrap: str, config: ClientConfig, wanted: GroupFilter,
                    timeout_s: float, context: AuditContext | None = None,
                    generation_budget_s: float = READ_BUDGET_S) -> Inspection:
    """Connect, read one pass, judge every group (see the module's docstring).

    :param generation_budget_s: seconds for reading classic generations from
        ``__consumer_offsets`` (:class:`GroupMetadataLog`); 0: they are not read (unknown)
    """
    transport = Transport(bootstrap, config, timeout_s)
    group_log = GroupMetadataLog(bootstrap, config, timeout_s, generation_budget_s) \
        if generation_budget_s > 0 else None
    try:
        read = read_cluster(transport, wanted, group_log)
    finally:
        transport.close()
        if group_log is not None:
            group_log.close()
    missing = [g.group_id for g in read.groups if absent(g)]
    return Inspection(read, verdicts(read, context), transport.requests_per_api(), missing)


def absent(group: GroupRead) -> bool:
    """A group asked for by id that ListGroups did not list and the coordinator does not know
    (Dead, or GROUP_ID_NOT_FOUND), with no committed offsets: there is no such group."""
    return not group.listed and not group.committed and (
        group.state == "Dead" or any("GROUP_ID_NOT_FOUND" in p for p in group.problems))


def verdicts(read: ClusterRead, context: AuditContext | None = None) -> list[GroupVerdict]:
    """A verdict per group read (none for :func:`absent` ones), in triage order."""
    present = [group for group in read.groups if not absent(group)]
    if not present:
        return []
    from ..audit.rerun import AuditContext  # the audit is loaded once there is a group to judge

    context = context or AuditContext.create()
    judged = [_verdict(read, group, context) for group in present]
    return sorted(judged, key=lambda v: (v.triage(), v.group_id))


def group_lag(read: ClusterRead, group: GroupRead) -> int | None:
    """Total lag of ``group``'s committed partitions whose lag is known
    (:func:`assignframe.lag.committed_lag`); None when no partition's is."""
    lags = (committed_lag(read.end_offsets.get(tp), offset)
            for tp, offset in group.committed.items())
    known = [lag for lag in lags if lag is not None]
    return sum(known) if known else None


def _verdict(read: ClusterRead, group: GroupRead, context: AuditContext) -> GroupVerdict:
    verdict = GroupVerdict(group.group_id, group.group_type, group.state)
    verdict.lag = group_lag(read, group)
    verdict.unreadable = unreadable(group)
    if verdict.unreadable:
        return verdict
    if group.described is not None:
        verdict.member_ids = sorted(m.member_id for m in group.described.members)
    if group.group_type in NOT_SNAPSHOTTED:
        return _judged_view(read, group, verdict)
    if rebalancing(group):
        held = rebalancing_assignments(group)
        verdict.members = len(group.described.members)
        verdict.held = {m: [f"{tp.topic}-{tp.partition}" for tp in tps] for m, tps in held.items()}
        verdict.partitions = len({tp for tps in held.values() for tp in tps})
        verdict.problems = [GroupProblem(
            f"state {group.state}: rebalancing (Kafka describes members with what they hold "
            "but without their subscriptions until it completes)", "rebalancing")]
        return verdict
    snapshot = group_snapshot(read, group)
    if snapshot is None:  # no members: committed offsets only, or no such group
        verdict.problems = _lag_without_members(verdict.lag, group)
        if group.state == "Dead":
            verdict.problems.append(GroupProblem("no such group (the coordinator says Dead)",
                                                 "gone"))
        return verdict
    from ..audit.group import audit_group
    from ..audit.rows import current_metrics
    from ..audit.streams_migration import is_classic_streams, streams_migration

    verdict.snapshot = snapshot
    current = current_metrics(snapshot)
    timing = group.timing or GroupTiming.default()
    rows, _ = audit_group(0, snapshot_to_dict(snapshot), context, timing=timing)
    first = rows[0] if rows else {}
    verdict.protocol = snapshot.protocol
    verdict.members = len(snapshot.members)
    verdict.partitions = len(snapshot.partitions())
    verdict.spread, verdict.lag_spread = current["spread"], current["lag_spread"]
    _lags(verdict, snapshot, group)
    verdict.problems = _problems(snapshot, current) + _lag_problems(verdict)
    verdict.recommendation = _recommendation(first.get("recommendation"), snapshot.protocol)
    verdict.migration = _migration(first) if snapshot.group_type == "classic" else None
    if is_classic_streams(snapshot):  # a Kafka Streams app moves to the Streams protocol
        verdict.migration = streams_migration(snapshot)
    elif verdict.migration is not None:
        verdict.migration_prediction = _prediction(first, timing)
    return verdict


def _judged_view(read: ClusterRead, group: GroupRead, verdict: GroupVerdict) -> GroupVerdict:
    """A share group: partitions per member, backlog spread over members; a Streams group:
    active tasks per member, task lag spread over members (the views' own numbers)."""
    view = snapshot_of(read, group)
    verdict.share_streams = view
    if view is None or not view.members:
        verdict.members, verdict.partitions = 0, None
        if view is not None and isinstance(view, ShareSnapshot) and view.total_backlog():
            verdict.problems = [GroupProblem(f"no members; backlog {view.total_backlog()}",
                                             "no-members")]
        return verdict
    verdict.protocol = view.assignor
    verdict.members = len(view.members)
    verdict.spread = view.spread()
    if isinstance(view, ShareSnapshot):
        verdict.partitions = len(view.partitions())
        lags = [view.member_backlog(m) for m in view.members]
    else:
        verdict.partitions = len(view.all_tasks())
        if verdict.lag is None:  # nothing committed yet: the tasks' lag, when every one is known
            verdict.lag = view.total_lag()
        lags = [view.member_lag(m) for m in view.members]
    known = [lag for lag in lags if lag is not None]
    verdict.lag_spread = max(known) - min(known) if known and len(known) == len(lags) else None
    verdict.problems = view.problems()
    if group.share_offsets_error:
        verdict.problems.append(GroupProblem(
            f"DescribeShareGroupOffsets: {group.share_offsets_error}", "unreadable"))
    return verdict


def _problems(snapshot: GroupSnapshot, current: dict[str, Any]) -> list[GroupProblem]:
    validity = current["validity"]
    found: list[GroupProblem] = []
    if validity["unowned"]:
        found.append(GroupProblem(f"unowned {_shown_pairs(validity['unowned'])}", "unowned"))
    if validity["double_owned"]:
        found.append(GroupProblem(f"double-owned {_shown_pairs(validity['double_owned'])}",
                                  "double-owned"))
    if current["idle_members"]:
        found.append(GroupProblem(f"{current['idle_members']} idle member(s)", "idle"))
    reconciling = snapshot.reconciling()
    if reconciling:
        found.append(GroupProblem(f"{len(reconciling)} member(s) reconciling toward epoch "
                                  f"{snapshot.target_epoch}", "reconciling"))
        found += _holding_back(snapshot)
    if snapshot.group_state not in (None, "Stable", "Empty"):
        found.append(GroupProblem(f"state {snapshot.group_state}", "rebalancing"))
    types = [snapshot.info(m).member_type for m in snapshot.members]
    if snapshot.group_type == "consumer" and "classic" in types:
        found.append(GroupProblem(
            f"mixed group (mid-migration): {types.count('classic')} classic member(s), "
            f"{types.count('consumer')} consumer member(s)", "mixed"))
    return found


def holding_back(snapshot: GroupSnapshot) -> dict[str, list[TopicPartition]]:
    """Consumer protocol: each member still holding partitions its target no longer has (it
    has not revoked them yet, which keeps the members they go to waiting), with those
    partitions."""
    owing: dict[str, list[TopicPartition]] = {}
    target = snapshot.target.assignments if snapshot.target is not None else {}
    for member, held in snapshot.current.assignments.items():
        kept = set(target[member].partitions) if member in target else set()
        owed = [tp for tp in held.partitions if tp not in kept]
        if owed:
            owing[member] = owed
    return owing


def _holding_back(snapshot: GroupSnapshot) -> list[GroupProblem]:
    """Each member :func:`holding_back`, named with its client and epoch, so the blocked group
    points at the member that blocks it."""
    found: list[GroupProblem] = []
    for member, owed in holding_back(snapshot).items():
        info = snapshot.info(member)
        found.append(GroupProblem(
            f"member {member} ({info.client_id or 'client unknown'}, epoch "
            f"{info.member_epoch}) has not revoked "
            f"{_shown_pairs([tp.topic, tp.partition] for tp in owed)}", "reconciling"))
    return found


def _lag_without_members(lag: int | None, group: GroupRead) -> list[GroupProblem]:
    return [GroupProblem(f"no members; lag {lag} on {len(group.committed)} committed "
                         "partition(s)", "no-members")] if lag else []


def _lags(verdict: GroupVerdict, snapshot: GroupSnapshot, group: GroupRead) -> None:
    """Total lag, lag per member (the core's :func:`lag_per_member`) and the partitions whose
    lag is unknown because nothing was committed for them."""
    known = snapshot.lags or {}
    verdict.no_commit = [f"{tp.topic}-{tp.partition}" for tp in snapshot.partitions()
                         if tp not in group.committed and tp not in known]
    if snapshot.lags:
        verdict.member_lag = lag_per_member(snapshot.current, snapshot.lags)


def _lag_problems(verdict: GroupVerdict) -> list[GroupProblem]:
    found: list[GroupProblem] = []
    if verdict.no_commit:
        found.append(GroupProblem(f"no commit on {_names(verdict.no_commit)} (lag unknown: "
                                  "where the consumer starts is its auto.offset.reset)",
                                  "no-commit"))
    member_lag = verdict.member_lag or {}
    if verdict.lag and verdict.lag >= LAG_IMBALANCE_MIN and len(member_lag) > 1 and \
            (verdict.lag_spread or 0) > LAG_IMBALANCE_SHARE * verdict.lag:
        most = max(member_lag, key=lambda m: (member_lag[m], m))
        least = min(member_lag, key=lambda m: (member_lag[m], m))
        found.append(GroupProblem(f"lag imbalance: {most} is {member_lag[most]} records "
                                  f"behind, {least} {member_lag[least]} (of {verdict.lag})",
                                  "lag-imbalance"))
    return found


def _names(shown: list[str]) -> str:
    return ", ".join(shown[:5]) + (", ..." if len(shown) > 5 else "")


def _shown_pairs(pairs: Iterable[list[Any]]) -> str:
    shown = [f"{t}-{p}" for t, p in pairs]
    return ", ".join(shown[:5]) + (", ..." if len(shown) > 5 else "")


def _recommendation(best: str | None, running: str | None) -> str | None:
    """The audit's best strategy; when the group already runs it, that is no switch."""
    return f"keep {best}" if best is not None and best == running else best


def _prediction(row: dict[str, Any], timing: GroupTiming) -> dict[str, Any]:
    """What the migration prediction assumed and the longest wait it predicts per assignor
    (the audit row's ``<assignor>_max_unowned_ms``)."""
    waits = {key.removesuffix("_max_unowned_ms"): value for key, value in row.items()
             if key.endswith("_max_unowned_ms")}
    return {**timing.as_dict(), "max_unowned_ms": waits}


def _migration(row: dict[str, Any]) -> str | None:
    if row.get("upgrade_refused") is None:
        return None
    if row["upgrade_refused"]:
        return f"refused: {row.get('upgrade_refusal')}"
    if row.get("unknown_clients"):  # the verdict holds only for the clients identified
        return (f"allowed, but the client of {row['unknown_clients']} member(s) is not "
                "identified: check it speaks the consumer protocol")
    return "allowed"
