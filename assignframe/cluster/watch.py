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
from .fleet import verdicts
from .history import GroupState, History, changes, state_of
from .reader import GroupFilter, read_cluster
from .transport import Transport, TransportError

__all__ = ["WatchOptions", "watch"]


@dataclass(frozen=True)
class WatchOptions:
    """How to watch: ``interval`` between polls, ``duration`` (None: until stopped),
    ``stuck_after`` seconds unsettled before a ``stuck`` event, ``history`` file."""

    interval: float = 10.0
    duration: float | None = None
    stuck_after: float = 300.0
    history: Path | None = None
    timeout: float = 10.0


def watch(bootstrap: str, config: ClientConfig, wanted: GroupFilter, options: WatchOptions,
          metrics: WatchMetrics, say: Callable[[str], None],
          on_event: Callable[[str, dict], None] | None = None,
          on_poll: Callable[[int], None] | None = None) -> int:
    """Poll until ``options.duration`` has passed; returns the number of failed polls.

    :param on_poll: called after each poll, good or failed, with the number of polls so far
        (the benchmark samples memory here)

    :raises TransportError: the first connection fails (nothing was ever read)
    """
    history = History(options.history, say)
    transport: Transport | None = Transport(bootstrap, config, options.timeout)
    context = AuditContext.create()
    started = time.monotonic()
    failures = 0
    try:
        while True:
            poll_started = time.monotonic()
            try:
                transport = transport or Transport(bootstrap, config, options.timeout)
                _poll(transport, wanted, options, history, metrics, context, on_event)
                failures = 0
            except TransportError as exc:
                metrics.errors[_failed_api(str(exc))] += 1
                say(config.redact(f"poll failed, reconnecting: {exc}"))
                failures += 1
                if transport is not None:
                    transport.close()
                transport = None
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
    return sum(metrics.errors.values())


def _poll(transport: Transport, wanted: GroupFilter, options: WatchOptions, history: History,
          metrics: WatchMetrics, context: AuditContext,
          on_event: Callable[[str, dict], None] | None) -> None:
    read = read_cluster(transport, wanted)
    judged = verdicts(read, context)
    now = read.observed_at
    seen = set()
    for verdict in judged:
        seen.add(verdict.group_id)
        before = history.last.get(verdict.group_id)
        after = state_of(verdict)
        events = changes(verdict.group_id, before, after, now, options.stuck_after)
        history.append(verdict.group_id, now, events, after)
        metrics.count(verdict.group_id, events)
        for event in events:
            if on_event:
                on_event(verdict.group_id, event)
    for group_id in sorted(set(history.last) - seen):
        if wanted.wants(group_id, None) and history.last[group_id].state != "Vanished":
            history.append(group_id, now, [{"event": "vanished"}], GroupState(state="Vanished"))
    metrics.verdicts, metrics.states, metrics.now = judged, dict(history.last), now


def _failed_api(message: str) -> str:
    """The API a failed poll was sending (``DescribeGroupsRequest v5 to broker 1 failed ...``),
    or ``connect`` when no connection could be made."""
    first = message.split()[0] if message.split() else ""
    return first.removesuffix("Request") if first.endswith("Request") else "connect"
