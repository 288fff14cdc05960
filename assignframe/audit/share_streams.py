"""Audit a share or a Streams group: what it holds now, and the broker's assignor replayed on it.

A share group (:class:`~assignframe.snapshot.share.ShareSnapshot`) is measured on the partitions
each member holds (a partition may have several holders), a Streams group
(:class:`~assignframe.snapshot.streams.StreamsSnapshot`) on the active tasks each member holds.
Then the assignor the broker runs for it (``server:simple``, Kafka's share assignor; a Streams
task assignor, ``streams:sticky``) is given the group as the coordinator would give it (each
member's subscription or process, what it is assigned now, the topics' partitions or the topology)
and its result is compared with what the broker assigned: equal for a settled group whose
assignor the plugin reproduces. Movement is counted by the one definition
(:func:`assignframe.movement.holder_changes`).

Both give the audit's rows (:data:`~.rows.COLUMNS`, one row: the broker's assignor is the only one
these groups can run) and the report's group detail, with the same keys as a classic or
consumer group's (docs/audit.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..javaorder import Uuid
from ..kip848.group import topic_id
from ..metrics import balance_score
from ..model import TopicPartition
from ..movement import holder_changes
from ..server_assignor import SHARE_GROUP, ServerGroupSpec, ServerMember, ServerTopic, server_name
from ..snapshot.share import ShareSnapshot, tp_label
from ..snapshot.streams import StreamsSnapshot, label_order
from ..streams_assignor import (
    TASK_KINDS,
    MemberTasks,
    StreamsGroupSpec,
    StreamsMember,
    Subtopology,
    parse_task_label,
    streams_name,
    task_label,
)
from .recommend import Recommendation
from .rerun import AuditContext, StrategyOutcome
from .rows import MIGRATION_COLUMNS, strategy_columns

__all__ = ["audit_share_streams", "broker_assignor", "held_now", "share_streams_view"]

#: what each group type runs when the describe does not name its assignor (Kafka's defaults)
_DEFAULT_ASSIGNOR = {"share": "server:simple", "streams": "streams:sticky"}
#: a Streams task as the report's heatmap draws it (a row per task): (its sub-topology, partition)
_TASK_ROW = "subtopology {}"

Held = dict[str, list[Any]]


def broker_assignor(snapshot: ShareSnapshot | StreamsSnapshot) -> str:
    """The qualified name of the assignor the broker runs for the group."""
    if snapshot.assignor is None:
        return _DEFAULT_ASSIGNOR[snapshot.group_type]
    if isinstance(snapshot, ShareSnapshot):
        return server_name(snapshot.assignor)
    return streams_name(snapshot.assignor)


def held_now(snapshot: ShareSnapshot | StreamsSnapshot) -> Held:
    """member -> what it holds: partitions (share), active task labels (Streams)."""
    if isinstance(snapshot, ShareSnapshot):
        return {m.member_id: list(m.partitions) for m in snapshot.members}
    return {m.member_id: list(m.tasks.get("active", ())) for m in snapshot.members}


def audit_share_streams(
    input_row: int, snapshot: ShareSnapshot | StreamsSnapshot, context: AuditContext,
    detail: bool = False,
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The group's row (its columns and the broker's assignor replayed) and, when asked, the
    detail the report draws."""
    held = held_now(snapshot)
    current = _metrics(snapshot, held, None)
    outcome, predicted = _replay(snapshot, held, context)
    recommendation = _recommendation(outcome)
    record = _group_record(input_row, snapshot, current, outcome, recommendation)
    rows = [record | strategy_columns(outcome, recommendation) | {"first_of_group": True}]
    if not detail:
        return rows, None
    return rows, _detail(snapshot, held, current, outcome, predicted, record)


# --------------------------------------------------------------------------- measuring
def _metrics(snapshot: ShareSnapshot | StreamsSnapshot, held: Held,
             previous: Held | None) -> dict[str, Any]:
    """The audit's metrics record of ``held`` (the keys the core's metrics record has)."""
    problems = _problems(snapshot, held)
    counts = [len(items) for items in held.values()]
    lags = [_lag(snapshot, items) for items in held.values()]
    known = [lag for lag in lags if lag is not None]
    record: dict[str, Any] = {
        "valid": not problems,
        "problems": "; ".join(problems),
        "problem_count": len(problems),
        "members": len(held),
        "partitions_assigned": len({x for items in held.values() for x in items}),
        "balance_score": balance_score(counts),
        "min_partitions": min(counts, default=0),
        "max_partitions": max(counts, default=0),
        "spread": max(counts) - min(counts) if counts else None,
        "idle_members": sum(1 for n in counts if n == 0),
        "lag_spread": max(known) - min(known) if known and len(known) == len(lags) else None,
        "partitions_kept": None,
        "partitions_moved": None,
    }
    if previous is not None:  # a replay: one assignment, as the broker computes it
        record["rounds"] = 1
        changes = holder_changes(previous, held)
        record["partitions_kept"], record["partitions_moved"] = (len(changes.kept),
                                                                 len(changes.moved))
    return record


def _problems(snapshot: ShareSnapshot | StreamsSnapshot, held: Held) -> list[str]:
    """What makes ``held`` wrong for the group: something to hold that nobody holds, something
    held by a member that may not (share: a topic it does not subscribe to; Streams: an active
    task twice, a standby on the process running the task)."""
    holders: dict[Any, list[str]] = {}
    for member, items in held.items():
        for item in items:
            holders.setdefault(item, []).append(member)
    if isinstance(snapshot, ShareSnapshot):
        subscribed = {m.member_id: set(m.subscribed) for m in snapshot.members}
        unowned = [tp_label(tp) for tp in snapshot.partitions() if tp not in holders]
        misplaced = [f"{tp_label(tp)}->{member}" for member, items in held.items()
                     for tp in items if tp.topic not in subscribed.get(member, ())]
        return _said("partitions held by no member", unowned) + _said(
            "partitions of topics their member does not subscribe to", misplaced)
    unowned = [t for t in snapshot.all_tasks() if t not in holders]
    twice = sorted((t for t, ids in holders.items() if len(ids) > 1), key=label_order)
    return (_said("active tasks held by no member", unowned)
            + _said("active tasks held twice", twice)
            + _said("standby tasks on the process running them", _standby_beside_active(snapshot)))


def _standby_beside_active(snapshot: StreamsSnapshot) -> list[str]:
    process = {m.member_id: m.process_id for m in snapshot.members}
    active = {t: process[m.member_id] for m in snapshot.members for t in m.tasks.get("active", ())}
    return [f"{t}->{m.member_id}" for m in snapshot.members for t in m.tasks.get("standby", ())
            if m.process_id is not None and active.get(t) == m.process_id]


def _said(what: str, items: list[str], limit: int = 5) -> list[str]:
    if not items:
        return []
    shown = ", ".join(items[:limit]) + (", ..." if len(items) > limit else "")
    return [f"{len(items)} {what}: {shown}"]


def _lag(snapshot: ShareSnapshot | StreamsSnapshot, items: Iterable[Any]) -> int | None:
    """The backlog (share) or lag (Streams) of what a member holds; None when not all known."""
    lags = ([b.lag if (b := snapshot.backlog.get(tp)) else None for tp in items]
            if isinstance(snapshot, ShareSnapshot)
            else [snapshot.task_lags.get(t) for t in items])
    return None if any(lag is None for lag in lags) else sum(lag for lag in lags if lag)


# --------------------------------------------------------------------------- the broker's assignor
def _replay(snapshot: ShareSnapshot | StreamsSnapshot, held: Held,
            context: AuditContext) -> tuple[StrategyOutcome, Held | None]:
    """The broker's assignor on the group, and what it assigns (None: it could not run)."""
    name = broker_assignor(snapshot)
    try:
        predicted, note = (_share_prediction(snapshot, name, context)
                           if isinstance(snapshot, ShareSnapshot)
                           else _streams_prediction(snapshot, name, context))
    except Exception as exc:  # one assignor failing on one group is a result, not a crash
        return StrategyOutcome(name, None, None, error=f"{type(exc).__name__}: {exc}"), None
    if predicted is None:
        return StrategyOutcome(name, None, None, error=note), None
    differ = sorted(m for m in held if sorted(map(str, held[m])) != sorted(
        map(str, predicted.get(m, ()))))
    said = ("equals what the broker assigned" if not differ else
            f"differs from what the broker assigned for {len(differ)} member(s) "
            f"({', '.join(differ[:3])}{', ...' if len(differ) > 3 else ''}): the broker computed "
            "its assignment from an earlier membership, or the group is still settling")
    outcome_note = f"{name} replayed on the group as it is {said}" + (f"; {note}" if note else "")
    owners: dict[Any, int] = {}
    for items in predicted.values():
        for item in items:
            owners[item] = owners.get(item, 0) + 1
    return StrategyOutcome(name, _metrics(snapshot, predicted, held), None,
                           owners_per_partition=max(owners.values(), default=1),
                           note=outcome_note), predicted


def _share_prediction(snapshot: ShareSnapshot, name: str,
                      context: AuditContext) -> tuple[Held | None, str]:
    """``server:simple`` on the group's members (subscriptions, what each holds) and topics."""
    ids = {t: Uuid.from_string(snapshot.topic_ids[t]) if t in snapshot.topic_ids else topic_id(t)
           for t in snapshot.subscribed}
    synthetic = sorted(t for t in snapshot.subscribed if t not in snapshot.topic_ids)
    members = {}
    for m in snapshot.members:
        current: dict[Uuid, list[int]] = {}
        for tp in m.partitions:
            if tp.topic in ids:
                current.setdefault(ids[tp.topic], []).append(tp.partition)
        members[m.member_id] = ServerMember(
            m.member_id, tuple(t for t in m.subscribed if t in snapshot.subscribed),
            tuple((tid, tuple(ps)) for tid, ps in current.items()))
    spec = ServerGroupSpec(members, {ids[t]: ServerTopic(ids[t], t, n)
                                     for t, n in snapshot.subscribed.items()},
                           group_type=SHARE_GROUP,
                           member_order=tuple(m.member_id for m in snapshot.members))
    result = context.pm.server_assignor(name).assign(spec)
    names = {tid: t for t, tid in ids.items()}
    predicted: Held = {m.member_id: [] for m in snapshot.members}
    for member, topics in result.members.items():
        predicted[member] = sorted(
            TopicPartition(names[tid], p) for tid, partitions in topics.items()
            for p in partitions)
    note = (f"topic ids not read for {', '.join(synthetic)}: ties between members may fall "
            "otherwise on the broker" if synthetic else "")
    return predicted, note


def _streams_prediction(snapshot: StreamsSnapshot, name: str,
                        context: AuditContext) -> tuple[Held | None, str]:
    """The Streams task assignor on the members (process, current target tasks) and topology."""
    subtopologies = []
    for subtopology in snapshot.subtopologies:
        count = snapshot.task_count(subtopology)
        if count is None:
            return None, (f"sub-topology {subtopology}'s input topics were not sized: its tasks, "
                          "and the assignor's input, are not known")
        subtopologies.append(Subtopology(subtopology, count, subtopology in snapshot.stateful))
    if not subtopologies:
        return None, "the broker described no topology: the assignor's input is not known"
    replicas, note = snapshot.num_standby_replicas, ""
    if replicas is None:
        copies: dict[str, int] = {}
        for m in snapshot.members:
            for t in m.target.get("standby", ()):
                copies[t] = copies.get(t, 0) + 1
        replicas = max(copies.values(), default=0)
        note = (f"streams.num.standby.replicas not read: taken as {replicas}, the most standby "
                "copies of one task the members are given")
    members = tuple(StreamsMember(
        m.member_id, m.process_id or m.member_id,
        MemberTasks(**{k: tuple(parse_task_label(t) for t in m.target.get(k, ()))
                       for k in TASK_KINDS})) for m in snapshot.members)
    result = context.pm.streams_assignor(name).assign(
        StreamsGroupSpec(members, tuple(subtopologies), replicas))
    predicted: Held = {m.member_id: [] for m in snapshot.members}
    for member, tasks in result.members.items():
        predicted[member] = [task_label(t) for t in tasks.active]
    return predicted, note


def _recommendation(outcome: StrategyOutcome) -> Recommendation:
    if outcome.error is not None:
        return Recommendation(None, f"{outcome.strategy} could not be replayed: {outcome.error}")
    return Recommendation(outcome.strategy, "the assignor the broker runs for this group type")


# --------------------------------------------------------------------------- rows and detail
def _group_record(input_row: int, snapshot: ShareSnapshot | StreamsSnapshot,
                  current: dict[str, Any], outcome: StrategyOutcome,
                  recommendation: Recommendation) -> dict[str, Any]:
    if isinstance(snapshot, ShareSnapshot):
        topics, things = len(snapshot.subscribed), len(snapshot.partitions())
    else:
        topics = len({t for ts in snapshot.subtopologies.values() for t in ts})
        things = len(snapshot.all_tasks())
    reconciling = len(snapshot.reconciling())
    attention = (["invalid"] if not current["valid"] else []) + (
        ["reconciling"] if reconciling else [])
    record: dict[str, Any] = {
        "input_row": input_row, "group_id": snapshot.group_id,
        "group_type": snapshot.group_type, "generation": snapshot.group_epoch,
        "protocol": snapshot.assignor, "current_strategy": outcome.strategy,
        "group_state": snapshot.state, "clients": None, "members": len(snapshot.members),
        "topics": topics, "partitions": things,
        "current_valid": current["valid"], "current_problems": current["problems"],
        "current_problem_count": current["problem_count"],
        "current_balance_score": current["balance_score"],
        "current_spread": current["spread"], "current_idle_members": current["idle_members"],
        "current_lag_spread": current["lag_spread"], "reconciling_members": reconciling,
        "recommendation": recommendation.strategy, "reason": recommendation.reason,
        "recommendation_tie": False,
    }
    record |= {name: None for name, _ in MIGRATION_COLUMNS}
    record["attention"] = ",".join(attention)
    return record


def _pairs(snapshot: ShareSnapshot | StreamsSnapshot, held: Mapping[str, Iterable[Any]]
           ) -> dict[str, list[list[Any]]]:
    """member -> ``[[topic, partition], ...]`` (Streams: ``[["subtopology S", p], ...]``)."""
    if isinstance(snapshot, ShareSnapshot):
        return {m: [[tp.topic, tp.partition] for tp in sorted(items)] for m, items in held.items()}
    return {m: [_task_row(t) for t in sorted(items, key=label_order)] for m, items in held.items()}


def _task_row(label: str) -> list[Any]:
    subtopology, partition = parse_task_label(label)
    return [_TASK_ROW.format(subtopology), partition]


def _detail(snapshot: ShareSnapshot | StreamsSnapshot, held: Held, current: dict[str, Any],
            outcome: StrategyOutcome, predicted: Held | None,
            record: Mapping[str, Any]) -> dict[str, Any]:
    """The report's group detail (the keys of :func:`~.group.report_detail`)."""
    if isinstance(snapshot, ShareSnapshot):
        partitions = [[tp.topic, tp.partition] for tp in snapshot.partitions()]
        target = None
    else:
        partitions = [_task_row(t) for t in snapshot.all_tasks()]
        target = _pairs(snapshot, {m.member_id: m.target.get("active", ())
                                   for m in snapshot.members})
    return {
        "group_id": snapshot.group_id, "group_type": snapshot.group_type,
        "generation": snapshot.group_epoch, "protocol": snapshot.assignor,
        "group_state": snapshot.state,
        "assignor": _assignor(snapshot),
        "attention": [a for a in record["attention"].split(",") if a],
        "clients": None, "target": target, "reconciling": list(snapshot.reconciling()),
        "migration": None, "input_row": record["input_row"],
        "problems": [current["problems"]] if current["problems"] else [],
        "notes": list(snapshot.notes), "members": [m.member_id for m in snapshot.members],
        "partitions": partitions,
        "current": {"assignment": _pairs(snapshot, held), "metrics": current},
        "strategies": [{
            "strategy": outcome.strategy,
            "assignment": None if predicted is None else _pairs(snapshot, predicted),
            "metrics": outcome.metrics,
            "error": outcome.error, "note": outcome.note,
        }],
        "recommendation": {"strategy": record["recommendation"], "reason": record["reason"],
                           "tie": False},
    }


def share_streams_view(snapshot: ShareSnapshot | StreamsSnapshot) -> dict[str, Any]:
    """The group as the report's capture section shows a snapshot (no replay)."""
    held = held_now(snapshot)
    current = _metrics(snapshot, held, None)
    target = None if isinstance(snapshot, ShareSnapshot) else _pairs(
        snapshot, {m.member_id: m.target.get("active", ()) for m in snapshot.members})
    return {
        "group_id": snapshot.group_id, "group_type": snapshot.group_type,
        "generation": snapshot.group_epoch, "protocol": snapshot.assignor,
        "assignor": _assignor(snapshot),
        "leader": None, "members": [m.member_id for m in snapshot.members],
        "member_names": {m.member_id: m.client_id for m in snapshot.members},
        "assignment": _pairs(snapshot, held), "target": target,
        "reconciling": list(snapshot.reconciling()), "metrics": current,
        "problems": [current["problems"]] if current["problems"] else [],
        "notes": list(snapshot.notes),
    }


def _assignor(snapshot: ShareSnapshot | StreamsSnapshot) -> dict[str, str]:
    """The assignor the broker runs and how it is known."""
    if snapshot.assignor:
        return {"name": snapshot.assignor, "how": "reported by the coordinator"}
    return {"name": broker_assignor(snapshot).split(":")[-1],
            "how": "not reported: the broker's default"}
