"""``watch``: a deleted share or Streams group is ``vanished``, never ``unreadable`` for ever
(issue 31 review, finding 4). Kafka answers the describe of a deleted share or Streams group
GROUP_ID_NOT_FOUND, where a deleted classic or consumer group is described ``Dead``; a group
the history knows that ListGroups no longer lists and its coordinator does not know is gone.
Against the loopback responder (tests/cluster/responder.py), whose every body is Java's."""

from __future__ import annotations

from dataclasses import replace

import pytest

from assignframe.cluster.config import ClientConfig
from assignframe.cluster.exporter import WatchMetrics
from assignframe.cluster.reader import GroupFilter
from assignframe.cluster.watch import WatchOptions, watch

from .responder import LoopbackCluster, classic_group, failures, kip848_group


class _Enough(Exception):
    pass


def _events_of_two_polls(loop: LoopbackCluster, tmp_path, between) -> tuple[list, WatchMetrics]:
    """Two polls of ``watch`` on ``loop``, ``between()`` after the first; every event said."""
    events: list[tuple[str, str]] = []
    metrics = WatchMetrics()

    def on_poll(done: int) -> None:
        if done == 1:
            between()
        elif done >= 2:
            raise _Enough

    with pytest.raises(_Enough):
        watch(loop.bootstrap, ClientConfig(), GroupFilter(), WatchOptions(
            interval=0.01, timeout=30, history=tmp_path / "history.jsonl"), metrics,
            say=lambda line: None, on_event=lambda g, e: events.append((g, e["event"])),
            on_poll=on_poll)
    return events, metrics


def test_a_deleted_share_or_streams_group_vanishes(tmp_path):
    share, streams = kip848_group("share", "share-a"), kip848_group("streams", "streams-a")
    with LoopbackCluster() as loop:
        loop.add(classic_group(), share, streams)

        def delete() -> None:
            del loop.groups["share-a"], loop.groups["streams-a"]

        events, metrics = _events_of_two_polls(loop, tmp_path, delete)
        assert failures(loop) == []
    assert ("share-a", "seen") in events and ("streams-a", "seen") in events
    gone = [(g, e) for g, e in events if g in ("share-a", "streams-a") and e != "seen"]
    assert sorted(gone) == [("share-a", "vanished"), ("streams-a", "vanished")], events
    assert metrics.vanished == 2
    # the second poll asked their coordinator for them (known from the history), by their type
    asked = {g for _, ids in loop.requests("ShareGroupDescribe") for g in ids}
    assert "share-a" in asked
    assert [e for g, e in events if g == "orders-processor"] == ["seen"]  # still there


def test_a_known_group_its_coordinator_still_describes_stays(tmp_path):
    """Not listed (a coordinator just moved, Kafka 4.1 after a restart) but described: it is
    neither vanished nor unreadable."""
    with LoopbackCluster() as loop:
        loop.add(kip848_group("share", "share-b"))
        listed = loop._ListGroups

        def unlist() -> None:  # ListGroups answers, listing nothing
            loop._ListGroups = lambda *asked: replace(listed(*asked), groups=())

        events, metrics = _events_of_two_polls(loop, tmp_path, unlist)
    assert events == [("share-b", "seen")], events
    assert metrics.vanished == 0
