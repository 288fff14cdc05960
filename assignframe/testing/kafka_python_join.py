"""Driving a real kafka-python consumer to an assignment in a test, past a kafka-python race.

kafka-python 3.0.12 can lose a finished join (issue 35):

1. a leader's first JoinGroup goes out before its topic's metadata came, so it assigns nothing;
2. the metadata comes: its metadata snapshot changed, so ``need_rejoin()`` is True (the base
   ``rejoin_needed`` flag stays False) and a second join starts;
3. that JoinGroup/SyncGroup outlasts what is left of ``poll(200)``: ``ensure_active_group``
   returns with the join task in flight;
4. the leader's assignment sets its assignment snapshot to the metadata snapshot, so
   ``need_rejoin()`` turns False and no later poll awaits the finished task;
5. the SyncGroup's assignment is never applied, heartbeats stay off (the broker removes the
   member after its session, the member never hears of it) and ``poll`` busy-loops.

Java sets its rejoin flag in that case (KAFKA-9815). The two halves of the workaround are here,
once, for every test and test member that drives a kafka-python consumer:
:func:`await_topic_metadata` keeps the first join from going out before the metadata, and
:func:`rejoin_if_join_abandoned` recovers a member that got there anyway (a metadata refresh can
still change the snapshot later). :func:`poll_until_assigned` does both.
"""

from __future__ import annotations

import time
from typing import Any


def await_topic_metadata(consumer: Any, topics: list[str], timeout: float = 60.0) -> None:
    """Return once a subscribed kafka-python consumer's metadata holds every topic; call it after
    ``subscribe`` (or the constructor's topics) and before the first ``poll``.

    Raises ``TimeoutError`` naming the topics when the metadata has not come in ``timeout`` s.
    """
    deadline = time.monotonic() + timeout
    while not all(consumer.partitions_for_topic(topic) for topic in topics):
        if time.monotonic() > deadline:
            raise TimeoutError(f"no metadata for topics {topics} after {timeout:.0f} s")
        time.sleep(0.1)


def rejoin_if_join_abandoned(consumer: Any) -> bool:
    """Ask for a rejoin when the consumer's join task finished and nobody will await it (the
    race above); True when it did. Reads kafka-python's private coordinator defensively: a
    kafka-python without these attributes is left alone."""
    coordinator: Any = getattr(consumer, "_coordinator", None)
    task = getattr(coordinator, "_join_task", None)
    if task is None or not getattr(task, "is_done", False) or coordinator.need_rejoin():
        return False
    coordinator.request_rejoin()
    return True


def poll_until_assigned(consumer: Any, partitions: int, timeout: float) -> set:
    """Poll a subscribed kafka-python consumer until it owns at least ``partitions`` partitions
    or ``timeout`` seconds passed; returns what it owns then (the caller asserts on it).

    The topics' metadata is awaited first and an abandoned join is rejoined."""
    deadline = time.monotonic() + timeout
    topics = sorted(consumer.subscription() or ())
    await_topic_metadata(consumer, topics, max(deadline - time.monotonic(), 0.1))
    while len(consumer.assignment()) < partitions and time.monotonic() < deadline:
        consumer.poll(200)
        rejoin_if_join_abandoned(consumer)
    return set(consumer.assignment())
