"""``watch``: poll the cluster, record every change as an event, serve metrics.

Each poll is one read-only pass (:func:`~assignframe.cluster.reader.read_cluster`) over one
connection kept between polls. A poll that fails (the broker restarted, a timeout) is counted
by the API it failed on, the connection is dropped and made again with backoff, and the history
is left as it was: the next good poll compares with the last state written, so no event is lost
or said twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..audit.rerun import AuditContext
from .config import ClientConfig
from .exporter import WatchMetrics
from .group_records import READ_BUDGET_S, GroupMetadataLog
from .history import GroupState, History, changes, state_of, unreachable
from .inspection import verdicts
from .reader import GroupFilter, read_cluster
from .transport import Transport, TransportError

__all__ = ["WatchOptions", "watch"]


@dataclass(frozen=True)
class WatchOptions:
    """How to watch: ``interval`` between polls, ``duration`` (None: until stopped),
    ``stuck_after`` seconds unsettled before a ``stuck`` event, ``history`` file, ``timeout``
    of the connection, ``generation_timeout`` (see :class:`GroupMetadataLog`)."""

    interval: float = 10.0
    duration: float | None = None
    stuck_after: float = 300.0
    history: Path | None = None
    timeout: float = 10.0
    #: seconds per poll for reading classic generations (0: not read)
    generation_timeout: float = READ_BUDGET_S


def watch(bootstrap: str, config: ClientConfig, wanted: GroupFilter, options: WatchOptions,
          metrics: WatchMetrics, say: Callable[[str], None],
          on_event: Callable[[str, dict], None] | None = None,
          on_poll: Callable[[int], None] | None = None) -> int:
    """Poll until ``options.duration`` has passed; returns the number of failed polls.

    :param on_poll: called after each poll, good or failed, with the number of polls so far
        (the benchmark samples memory here)

    :raises TransportError: the first connection fails (nothing was ever read)
    """
    history = History(options.history, say)  # refused when another watch holds the file
    group_log = GroupMetadataLog(bootstrap, config, options.timeout,
                                 options.generation_timeout) \
        if options.generation_timeout > 0 else None
    try:
        transport: Transport | None = Transport(bootstrap, config, options.timeout)
    except TransportError:
        history.close()
        raise
    context = AuditContext.create()
    started = time.monotonic()
    failures = 0
    noted = False  # the first poll's notes are said, once a run: the next polls read on
    try:
        while True:
            poll_started = time.monotonic()
            try:
                transport = transport or Transport(bootstrap, config, options.timeout)
                notes = _poll(transport, wanted, options, history, metrics, context, on_event,
                              group_log)
                if notes and not noted:
                    noted = True
                    say("; ".join(notes) + " (the next polls read on from there)")
                failures = 0
                metrics.up, metrics.last_success = True, time.time()
            except TransportError as exc:
                metrics.errors[_failed_api(str(exc))] += 1
                say(config.redact(f"poll failed, reconnecting: {exc}"))
                failures += 1
                if transport is not None:
                    transport.close()
                transport = None
                _outage(history, metrics, config.redact(str(exc)), on_event)
            metrics.polls += 1
            if on_poll is not None:
                on_poll(metrics.polls)
            pause = options.interval if not failures else \
                min(30.0, options.interval * 2 ** failures)
            elapsed = time.monotonic() - started
            if options.duration is not None and elapsed + pause > options.duration:
                break
            time.sleep(max(0.0, pause - (time.monotonic() - poll_started)))
    finally:  # Ctrl-C, or a caller's on_poll stopping it, included
        if transport is not None:
            transport.close()
        if group_log is not None:
            group_log.close()
        history.close()
    return sum(metrics.errors.values())


def _outage(history: History, metrics: WatchMetrics, why: str,
            on_event: Callable[[str, dict], None] | None) -> None:
    """A poll that read nothing: every group known so far is unreadable (one ``unreadable``
    event each when the outage starts; ``readable`` when a poll reads it again), and the
    metrics stop serving the last poll's values as if they were current."""
    now = time.time()
    metrics.up = False
    for group_id, before in sorted(history.last.items()):
        if before.state == "Vanished":
            continue
        after = unreachable(before, why)
        events = changes(group_id, before, after, now, float("inf"))
        _record(history, metrics, group_id, now, events, after, on_event)
    metrics.states, metrics.now = dict(history.last), now


def _record(history: History, metrics: WatchMetrics, group_id: str, now: float,
            events: list[dict], after: GroupState,
            on_event: Callable[[str, dict], None] | None) -> None:
    """One group's events: in the history, the counters and on stdout."""
    history.append(group_id, now, events, after)
    metrics.count(group_id, events)
    for event in events:
        if on_event:
            on_event(group_id, event)


def _poll(transport: Transport, wanted: GroupFilter, options: WatchOptions, history: History,
          metrics: WatchMetrics, context: AuditContext,
          on_event: Callable[[str, dict], None] | None,
          group_log: GroupMetadataLog | None = None) -> list[str]:
    """One poll's events and metrics; the pass's notes (what it left unknown on purpose)."""
    known = {g: s.group_type for g, s in history.last.items() if s.state != "Vanished"}
    read = read_cluster(transport, wanted, group_log, known)
    judged = verdicts(read, context)  # none for an absent group: unlisted, and not known to
    # its coordinator (Dead, or GROUP_ID_NOT_FOUND: a deleted share or Streams group), so gone
    now = read.observed_at
    seen = set()
    for verdict in judged:
        before = history.last.get(verdict.group_id)
        if verdict.state == "Dead" and before is not None:
            continue  # its coordinator says it is gone: vanished below
        seen.add(verdict.group_id)
        after = state_of(verdict)
        events = changes(verdict.group_id, before, after, now, options.stuck_after)
        _record(history, metrics, verdict.group_id, now, events, after, on_event)
    for group_id in sorted(set(history.last) - seen):
        if wanted.wants(group_id, None) and history.last[group_id].state != "Vanished":
            _record(history, metrics, group_id, now, [{"event": "vanished"}],
                    GroupState(state="Vanished"), on_event)
    metrics.verdicts = [v for v in judged if v.group_id in seen]
    metrics.states, metrics.now = dict(history.last), now
    return read.notes


def _failed_api(message: str) -> str:
    """The API a failed poll was sending (``DescribeGroupsRequest v5 to broker 1 failed ...``),
    or ``connect`` when no connection could be made."""
    first = message.split()[0] if message.split() else ""
    return first.removesuffix("Request") if first.endswith("Request") else "connect"
