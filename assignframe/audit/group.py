"""Audit one group: read it, measure what it has, replay every strategy, recommend one."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..kip848.timing import GroupTiming
from ..model import GroupAssignment, partition_pairs
from ..snapshot import GroupSnapshot, MalformedSnapshot, read_snapshot
from ..snapshot.jsonform import AnySnapshot
from ..snapshot.share import ShareSnapshot
from ..snapshot.streams import StreamsSnapshot
from .clients import GroupClients, identify_clients
from .migration import SERVER_STRATEGIES, coordinator_assignor, migration_section
from .recommend import Recommendation, TieBreak, recommend
from .rerun import AuditContext, StrategyOutcome, quiet_strategy_logs, replay_strategies
from .rows import current_metrics, group_rows, running_strategy
from .share_streams import audit_share_streams, share_streams_view

__all__ = [
    "ChunkResult",
    "audit_chunk",
    "audit_group",
    "fewer_collections",
    "report_detail",
    "snapshot_view",
]


@dataclass
class ChunkResult:
    """The rows of a chunk of input and the rows that could not be read."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    malformed: list[tuple[int, str]] = field(default_factory=list)
    groups: int = 0


def audit_group(
    input_row: int,
    raw: Mapping[str, Any] | str,
    context: AuditContext,
    detail: bool = False,
    timing: GroupTiming | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Rows for one snapshot (and, when asked, the detail the report draws).

    :param timing: the heartbeat interval and session timeout a classic group's migration
        prediction assumes (the live reader's, read from the broker); None: Kafka's defaults

    :raises MalformedSnapshot: the row is not a readable snapshot
    """
    snapshot = read_snapshot(raw)
    if not isinstance(snapshot, GroupSnapshot):  # a share or Streams group
        return audit_share_streams(input_row, snapshot, context, detail)
    current = current_metrics(snapshot)
    names = SERVER_STRATEGIES if snapshot.group_type == "consumer" else context.strategies
    with quiet_strategy_logs(context.strategy_loggers):
        clients = identify_clients(snapshot, context.pm, context.instance)
        outcomes = replay_strategies(snapshot, names, context)
        migration = migration_section(snapshot, context.pm, clients, timing)
    recommendation = _recommendation(snapshot, current, outcomes, clients)
    rows = group_rows(input_row, snapshot, current, outcomes, recommendation, migration, clients)
    if not detail:
        return rows, None
    return rows, report_detail(
        snapshot, current, outcomes, rows[0] if rows else {}, migration, clients
    )


def _recommendation(
    snapshot: GroupSnapshot,
    current: dict[str, Any],
    outcomes: list[StrategyOutcome],
    clients: GroupClients,
) -> Recommendation:
    """The recommendation among what the group's clients can run (a consumer-protocol group:
    the broker's assignors, the one it runs first on ties, then the broker's order)."""
    if snapshot.group_type == "consumer":
        ties = TieBreak(current=running_strategy(snapshot), broker_order=SERVER_STRATEGIES)
    else:
        ties = TieBreak(snapshot.protocol, clients.default_strategy(), (), clients.cannot_run)
    return recommend(outcomes, current, snapshot.protocol, ties)


#: The collector's first-generation threshold while groups are audited (CPython's is 700).
#: Auditing a group allocates a few thousand container objects, nearly all freed by reference
#: counting; at 700 the collector ran about 1.6 times per group and cost 6% of the audit's CPU
#: (bench/bench_audit.py --breakdown), for almost no cyclic garbage found.
AUDIT_GC_THRESHOLD = 50_000


_collections_lock = threading.Lock()
#: (blocks open, the thresholds the first one found): nested or concurrent blocks (threads)
#: restore what was there before the first, once the last ends
_collections_state: list[Any] = [0, None]


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the cyclic garbage collector less often inside the block (its thresholds restored
    after). Cycles are still collected, only in larger batches; the rows are unchanged. The
    audit engines use it around their work, never a library call a user makes."""
    with _collections_lock:
        if _collections_state[0] == 0:
            _collections_state[1] = thresholds = gc.get_threshold()
            gc.set_threshold(max(thresholds[0], AUDIT_GC_THRESHOLD), *thresholds[1:])
        _collections_state[0] += 1
    try:
        yield
    finally:
        with _collections_lock:
            _collections_state[0] -= 1
            if _collections_state[0] == 0:
                gc.set_threshold(*_collections_state[1])


def audit_chunk(chunk: Iterable[tuple[int, Any]], context: AuditContext) -> ChunkResult:
    """Audit ``(input_row, raw)`` pairs; malformed rows are collected, never raised."""
    result = ChunkResult()
    with fewer_collections(), quiet_strategy_logs(context.strategy_loggers):
        for input_row, raw in chunk:
            try:
                rows, _ = audit_group(input_row, raw, context)
            except MalformedSnapshot as exc:
                result.malformed.append((input_row, str(exc)))
                continue
            result.rows.extend(rows)
            result.groups += 1
    return result


def _assignment_pairs(assignment: GroupAssignment) -> dict[str, list[list[Any]]]:
    return {m: partition_pairs(a.partitions) for m, a in assignment.assignments.items()}


def _partitions(snapshot: GroupSnapshot) -> list[list[Any]]:
    topics = sorted({t for m in snapshot.members.values() for t in m.topics})
    return [[t, p] for t in topics for p in range(snapshot.cluster.partitions_per_topic.get(t, 0))]


def report_detail(
    snapshot: GroupSnapshot,
    current: dict[str, Any],
    outcomes: list[StrategyOutcome],
    first_row: Mapping[str, Any],
    migration: dict[str, Any] | None = None,
    clients: GroupClients | None = None,
) -> dict[str, Any]:
    """The JSON the report draws one group from (docs/audit.md, "worst groups")."""
    problems = [current["problems"]] if current["problems"] else []
    return {
        "group_id": snapshot.group_id,
        "group_type": snapshot.group_type,
        "generation": snapshot.generation,
        "protocol": snapshot.protocol,
        "group_state": snapshot.group_state,
        "assignor": _assignor(snapshot),
        "attention": [a for a in (first_row.get("attention") or "").split(",") if a],
        "clients": _clients(clients),
        "target": None if snapshot.target is None else _assignment_pairs(snapshot.target),
        "reconciling": list(snapshot.reconciling()),
        "migration": migration,
        "input_row": first_row.get("input_row"),
        "problems": problems,
        "notes": list(snapshot.notes),
        "members": list(snapshot.members),
        "partitions": _partitions(snapshot),
        "current": {"assignment": _assignment_pairs(snapshot.current), "metrics": current},
        "strategies": [
            {
                "strategy": o.strategy,
                "assignment": _assignment_pairs(o.assignment) if o.assignment is not None else None,
                "metrics": o.metrics,
                "error": o.error,
                "note": o.note,
            }
            for o in outcomes
        ],
        "recommendation": {
            "strategy": first_row.get("recommendation"),
            "reason": first_row.get("reason"),
            "tie": first_row.get("recommendation_tie"),
        },
    }


def _assignor(snapshot: GroupSnapshot) -> dict[str, str] | None:
    """A consumer-protocol group's server assignor and how it is known."""
    if snapshot.group_type != "consumer":
        return None
    name, how = coordinator_assignor(snapshot)
    return {"name": name, "how": how}


def _clients(clients: GroupClients | None) -> dict[str, Any] | None:
    if clients is None:
        return None
    return {
        "summary": clients.describe(),
        "members": {
            member_id: {"client": c.label, "name": c.name, "evidence": c.evidence}
            for member_id, c in clients.members.items()
        },
    }


def snapshot_view(raw: AnySnapshot | Mapping[str, Any], source: str = "") -> dict[str, Any]:
    """A snapshot as the report's capture section shows it (no replay): a typed snapshot (decode,
    in process) or a serialized one (read back by the one reader)."""
    if isinstance(raw, (GroupSnapshot, ShareSnapshot, StreamsSnapshot)):
        read = raw
    else:
        try:
            read = read_snapshot(raw)
        except MalformedSnapshot as exc:
            return {
                "source": source,
                "group_id": str(raw.get("group_id")),
                "generation": raw.get("generation"),
                "members": [],
                "assignment": {},
                "metrics": {},
                "problems": [str(exc)],
            }
    decoded = raw if isinstance(raw, Mapping) else {}
    if not isinstance(read, GroupSnapshot):
        return {"source": source, **share_streams_view(read),
                "handovers": list(decoded.get("handovers") or [])}
    snapshot = read
    current = current_metrics(snapshot)
    return {
        "source": source,
        "group_id": snapshot.group_id,
        "group_type": snapshot.group_type,
        "generation": snapshot.generation,
        "protocol": snapshot.protocol,
        "assignor": _assignor(snapshot),
        "leader": snapshot.leader,
        "members": list(snapshot.members),
        "member_names": {m: snapshot.info(m).client_id for m in snapshot.members},
        "assignment": _assignment_pairs(snapshot.current),
        "target": None if snapshot.target is None else _assignment_pairs(snapshot.target),
        "reconciling": list(snapshot.reconciling()),
        "metrics": current,
        "problems": [current["problems"]] if current["problems"] else [],
        "notes": list(snapshot.notes),
        "handovers": list(decoded.get("handovers") or []),  # decode's, per epoch
    }
