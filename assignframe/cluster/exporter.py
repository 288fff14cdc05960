"""Prometheus metrics of a watch, served through ``prometheus_client`` (``--metrics-port``).

Gauges describe the last poll; counters add up over the watch. Names and labels (docs/cluster.md):

======================================================  ==================================
``assignframe_group_members{group,type}``                members now
``assignframe_group_partitions{group}``                  partitions the group subscribes to
``assignframe_group_assignment_spread{group}``           max - min partitions per member
``assignframe_group_lag_spread{group}``                  max - min lag per member
``assignframe_group_unowned_partitions{group}``          subscribed partitions no member owns
``assignframe_group_reconciling_members{group}``         consumer protocol: members short of target
``assignframe_group_unsettled_seconds{group}``           seconds since the group was last settled
``assignframe_group_readable{group}``                    1 read fully, 0 not (see the history)
``assignframe_group_lag{group}``                         records behind on committed partitions
``assignframe_group_uncommitted_partitions{group}``      partitions of unknown lag: no commit
``assignframe_group_migration_refused{group}``           classic: 1 when the online upgrade fails
``assignframe_member_partitions{group,member,client_id}``  partitions a member owns
``assignframe_member_lag{group,member,client_id}``       lag of what a member owns (committed)
``assignframe_group_backlog{group}``                     share: records past the start offsets
``assignframe_group_behind_members{group}``              share: members short of the epoch
``assignframe_member_tasks{group,member,client_id,kind}``  Streams: tasks by kind
``assignframe_rebalances_total{group}``                  generations / epochs gone by
``assignframe_groups_vanished_total``                    groups that were no longer listed
``assignframe_up``                                       1 when the last poll read the cluster
``assignframe_last_successful_poll_timestamp_seconds``   when a poll last read the cluster
``assignframe_partitions_moved_total{group}``            partitions handed to another member
``assignframe_scrape_errors_total{api}``                 failed polls, by the API that failed
``assignframe_polls_total``                              polls done
======================================================  ==================================

Share groups fill the group gauges with partitions (a partition several members share counts
for each of them in ``member_partitions``) and ``member_lag`` with each member's backlog;
Streams groups with active tasks (``group_partitions`` is their task count, ``member_lag`` the
lag of a member's active tasks' input partitions), ``reconciling_members`` as for the consumer
protocol. A value the broker did not give is left out, never 0.

While the cluster cannot be read (``assignframe_up`` 0), the per-group gauges are not served
(the last poll's values would read as current): only ``assignframe_group_readable`` 0 for each
group known so far.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from ..snapshot.share import ShareSnapshot
from ..snapshot.streams import StreamsSnapshot
from .history import GroupState
from .inspection import GroupVerdict

__all__ = ["WatchMetrics"]


class WatchMetrics:
    """What the collector serves: the last poll's verdicts and the counters so far."""

    def __init__(self) -> None:
        self.verdicts: list[GroupVerdict] = []
        self.states: dict[str, GroupState] = {}
        self.now = 0.0
        self.rebalances: Counter[str] = Counter()
        self.moved: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.polls = 0
        self.vanished = 0
        self.up = False
        self.last_success: float | None = None

    def count(self, group_id: str, events: list[dict[str, Any]]) -> None:
        for event in events:
            if event["event"] == "epoch":
                self.rebalances[group_id] += event.get("rebalances", 1)
            elif event["event"] == "moved":
                self.moved[group_id] += len(event["partitions"])
            elif event["event"] == "vanished":
                self.vanished += 1

    def serve(self, port: int) -> Any:
        """Start the HTTP endpoint on ``port`` (0: any free port); returns the server."""
        from prometheus_client import CollectorRegistry, start_http_server

        registry = CollectorRegistry()
        registry.register(_Collector(self))
        server, _ = start_http_server(port, registry=registry)
        return server

    def families(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        def gauge(name: str, doc: str, labels: list[str]) -> Any:
            return GaugeMetricFamily(f"assignframe_{name}", doc, labels=labels)

        members = gauge("group_members", "members now", ["group", "type"])
        gauges = {name: gauge(f"group_{name}", doc, ["group"]) for name, doc in (
            ("partitions", "partitions the group subscribes to"),
            ("assignment_spread", "max - min partitions per member"),
            ("lag_spread", "max - min lag per member"),
            ("unowned_partitions", "subscribed partitions no member owns"),
            ("reconciling_members", "members whose assignment is short of their target"),
            ("unsettled_seconds", "seconds since the group was last stable and reconciled"),
            ("readable", "1 when the group was read fully"),
            ("lag", "records behind on the partitions with a committed offset"),
            ("uncommitted_partitions", "subscribed partitions holding records with no committed "
             "offset (lag unknown)"),
            ("migration_refused", "classic groups: 1 when the online upgrade would fail"),
            ("backlog", "share groups: records past the share-partition start offsets"),
            ("behind_members", "share groups: members short of the assignment epoch"))}
        per_member = {name: gauge(f"member_{name}", doc, ["group", "member", "client_id"])
                      for name, doc in (("partitions", "partitions the member owns"),
                                        ("lag", "lag of the partitions the member owns"))}
        per_member["tasks"] = gauge("member_tasks", "Streams: tasks the member holds, by kind",
                                    ["group", "member", "client_id", "kind"])
        if self.up:
            for v in self.verdicts:
                self._group(v, members, gauges, per_member)
                if v.share_streams is not None and not v.unreadable:
                    _view(v, v.share_streams, members, gauges, per_member)
        else:  # nothing read now: only that it is not readable
            for group_id, state in sorted(self.states.items()):
                if state.state != "Vanished":
                    gauges["readable"].add_metric([group_id], 0)
        yield members
        yield from gauges.values()
        yield from per_member.values()
        for name, doc, counts, label in (
                ("rebalances", "epoch or generation changes seen", self.rebalances, "group"),
                ("partitions_moved", "partitions handed to another member", self.moved, "group"),
                ("scrape_errors", "failed polls by the API that failed", self.errors, "api")):
            family = CounterMetricFamily(f"assignframe_{name}", doc, labels=[label])
            for key, n in sorted(counts.items()):
                family.add_metric([key], n)
            yield family
        polls = CounterMetricFamily("assignframe_polls", "polls done")
        polls.add_metric([], self.polls)
        yield polls
        vanished = CounterMetricFamily("assignframe_groups_vanished",
                                       "groups that were no longer listed")
        vanished.add_metric([], self.vanished)
        yield vanished
        up = GaugeMetricFamily("assignframe_up", "1 when the last poll read the cluster")
        up.add_metric([], 1 if self.up else 0)
        yield up
        if self.last_success is not None:
            last = GaugeMetricFamily("assignframe_last_successful_poll_timestamp_seconds",
                                     "when a poll last read the cluster (Unix seconds)")
            last.add_metric([], self.last_success)
            yield last

    def _group(self, v: GroupVerdict, members: Any, gauges: dict[str, Any],
               per_member: dict[str, Any]) -> None:
        g = [v.group_id]
        gauges["readable"].add_metric(g, 0 if v.unreadable else 1)
        state = self.states.get(v.group_id)
        if state is not None and state.unsettled_since is not None:
            gauges["unsettled_seconds"].add_metric(g, max(0.0, self.now - state.unsettled_since))
        if v.lag is not None:
            gauges["lag"].add_metric(g, v.lag)  # offsets-only groups too
        snapshot = v.snapshot
        if snapshot is None:
            return
        gauges["uncommitted_partitions"].add_metric(g, len(v.no_commit))
        members.add_metric([v.group_id, snapshot.group_type], len(snapshot.members))
        gauges["partitions"].add_metric(g, v.partitions)
        gauges["assignment_spread"].add_metric(g, v.spread or 0)
        if v.lag_spread is not None:
            gauges["lag_spread"].add_metric(g, v.lag_spread)
        owned = {tp for a in snapshot.current.assignments.values() for tp in a.partitions}
        gauges["unowned_partitions"].add_metric(
            g, len([tp for tp in snapshot.partitions() if tp not in owned]))
        gauges["reconciling_members"].add_metric(g, len(snapshot.reconciling()))
        if v.migration is not None:
            gauges["migration_refused"].add_metric(g, 1 if v.migration.startswith("refused")
                                                   else 0)
        for member, assignment in snapshot.current.assignments.items():
            labels = [v.group_id, member, snapshot.info(member).client_id or ""]
            per_member["partitions"].add_metric(labels, len(assignment.partitions))
            if v.member_lag is not None and member in v.member_lag:  # else: not known
                per_member["lag"].add_metric(labels, v.member_lag[member])


def _view(v: GroupVerdict, view: ShareSnapshot | StreamsSnapshot, members: Any,
          gauges: dict[str, Any], per_member: dict[str, Any]) -> None:
    """A share or Streams group's gauges, from its view."""
    g = [v.group_id]
    members.add_metric([v.group_id, view.group_type], len(view.members))
    if v.partitions is not None:
        gauges["partitions"].add_metric(g, v.partitions)
    if v.spread is not None:
        gauges["assignment_spread"].add_metric(g, v.spread)
    if v.lag_spread is not None:
        gauges["lag_spread"].add_metric(g, v.lag_spread)
    gauges["unowned_partitions"].add_metric(g, len(view.unassigned()))
    gauges["reconciling_members"].add_metric(g, len(view.reconciling()))
    if isinstance(view, ShareSnapshot):
        if view.total_backlog() is not None:
            gauges["backlog"].add_metric(g, view.total_backlog())
        gauges["behind_members"].add_metric(g, len(view.behind()))
        for m in view.members:
            labels = [v.group_id, m.member_id, m.client_id or ""]
            per_member["partitions"].add_metric(labels, len(m.partitions))
            if view.member_backlog(m) is not None:
                per_member["lag"].add_metric(labels, view.member_backlog(m))
        return
    for sm in view.members:
        labels = [v.group_id, sm.member_id, sm.client_id or ""]
        for kind, tasks in sm.tasks.items():
            per_member["tasks"].add_metric([*labels, kind], len(tasks))
        if view.member_lag(sm) is not None:
            per_member["lag"].add_metric(labels, view.member_lag(sm))


class _Collector:
    def __init__(self, metrics: WatchMetrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Any]:
        return self.metrics.families()
