"""A Streams-group member speaking StreamsGroupHeartbeat v0 through ``assignframe_codec``, for
what a real Kafka Streams member never does on purpose: keep tasks the broker asked it to give
up. Its heartbeat thread reports the tasks it holds; until :meth:`give_up` it keeps every task it
ever held (as a member stuck in a long commit or a blocked thread would)."""

from __future__ import annotations

import threading
import time
import uuid

from assignframe.cluster.config import read_client_config
from assignframe.cluster.transport import Transport

__all__ = ["RawStreamsMember"]


class RawStreamsMember:
    def __init__(self, bootstrap: str, group: str, topic: str, interval: float = 0.5) -> None:
        self.group, self.topic, self.interval = group, topic, interval
        self.member_id = str(uuid.uuid4())
        self.epoch = 0
        self.assigned: list[int] = []  # the broker's latest assignment (partitions of 0_*)
        self.held: list[int] = []  # what it reports holding
        self.errors: list[str] = []
        self.keep = True
        self._transport = Transport(bootstrap, read_client_config(None), 10)
        self._stop = threading.Event()
        self.joined = False  # the topology goes with every heartbeat until one is answered
        self._find_coordinator()
        self._beat()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _find_coordinator(self, seconds: float = 60) -> None:
        """FindCoordinator until node 1 says it coordinates the group (the first lookup on a
        fresh broker creates __consumer_offsets; before that every heartbeat is refused
        NOT_COORDINATOR)."""
        import assignframe_codec as codec

        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            answer = self._transport.send(
                1, "FindCoordinatorRequest", codec.find_coordinator_request([self.group], 4), 4)
            found = codec.coordinators(answer, [self.group])
            if found and found[0].error_code == 0:
                return
            time.sleep(0.5)
        raise AssertionError(f"no coordinator for {self.group} within {seconds} s")

    def give_up(self) -> None:
        """From the next heartbeat on, hold exactly what the broker assigned."""
        self.keep = False

    def _body(self, join: bool) -> dict:
        subtopology = {"subtopology_id": "0", "source_topics": [self.topic],
                       "source_topic_regex": [], "state_changelog_topics": [],
                       "repartition_sink_topics": [], "repartition_source_topics": [],
                       "copartition_groups": []}
        held = [{"subtopology_id": "0", "partitions": sorted(self.held)}] if self.held else []
        return {"group_id": self.group, "member_id": self.member_id,
                "member_epoch": self.epoch, "endpoint_information_epoch": 0,
                "instance_id": None, "rack_id": None, "rebalance_timeout_ms": 60000,
                "topology": {"epoch": 0, "subtopologies": [subtopology]} if join else None,
                "active_tasks": held, "standby_tasks": [], "warmup_tasks": [],
                "process_id": "raw-process", "user_endpoint": None, "client_tags": [],
                "task_offsets": None, "task_end_offsets": None, "shutdown_application": False}

    def _beat(self) -> None:
        answer = self._transport.send(1, "StreamsGroupHeartbeatRequest",
                                      self._body(not self.joined), 0)
        if answer.error_code:
            self.errors.append(f"{answer.error_code} {answer.error_message}")
            return
        self.joined = True
        self.epoch = answer.member_epoch
        if answer.active_tasks is not None:
            self.assigned = sorted(p for t in answer.active_tasks for p in t.partitions)
        self.held = sorted(set(self.held) | set(self.assigned)) if self.keep else self.assigned

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self._beat()
            except Exception as exc:  # the test reads it
                self.errors.append(repr(exc))

    def leave(self, seconds: float = 30) -> None:
        """Stop heartbeating and leave the group (epoch -1)."""
        self._stop.set()
        self._thread.join(seconds)
        try:
            self.epoch = -1
            self._transport.send(1, "StreamsGroupHeartbeatRequest", self._body(False), 0)
        finally:
            self._transport.close()
