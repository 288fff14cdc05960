"""A Streams-group member speaking StreamsGroupHeartbeat v0 through ``assignframe_codec``, for
what a real Kafka Streams member never does on purpose: keep tasks the broker asked it to give
up. Its heartbeat thread reports the tasks it holds; until :meth:`give_up` it keeps every task it
ever held (as a member stuck in a long commit or a blocked thread would)."""

from __future__ import annotations

import uuid

from assignframe.testing.raw_member import RawMember

__all__ = ["RawStreamsMember"]


class RawStreamsMember(RawMember):
    REQUEST = "StreamsGroupHeartbeatRequest"

    def __init__(self, bootstrap: str, group: str, topic: str, interval: float = 0.5) -> None:
        super().__init__(bootstrap, group, str(uuid.uuid4()), interval)
        self.topic = topic
        self.assigned: list[int] = []  # the broker's latest assignment (partitions of 0_*)
        self.held: list[int] = []  # what it reports holding
        self.keep = True
        self.joined = False  # the topology goes with every heartbeat until one is answered
        self.start()

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
        answer = self.send(self._body(not self.joined))
        if answer.error_code:
            self.errors.append(f"{answer.error_code} {answer.error_message}")
            return
        self.joined = True
        self.epoch = answer.member_epoch
        if answer.active_tasks is not None:
            self.assigned = sorted(p for t in answer.active_tasks for p in t.partitions)
        self.held = sorted(set(self.held) | set(self.assigned)) if self.keep else self.assigned

    def _leave_body(self) -> dict:
        return self._body(False)
