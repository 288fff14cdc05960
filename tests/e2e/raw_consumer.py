"""A consumer-protocol member speaking ConsumerGroupHeartbeat v0 through ``assignframe_codec``,
for what a real client never lets a test choose: its member id (KIP-848 clients make their own,
at random). It reports, in each heartbeat, exactly what the broker last assigned it, so it
reconciles at once; it consumes nothing."""

from __future__ import annotations

import threading
import time

from assignframe.cluster.config import read_client_config
from assignframe.cluster.transport import Transport

__all__ = ["RawConsumerMember", "describe_consumer_group"]


class RawConsumerMember:
    """One member of ``group`` with id ``member_id``, subscribed to ``topics`` and asking for the
    broker's ``assignor``; heartbeats every ``interval`` seconds on its own thread."""

    def __init__(self, bootstrap: str, group: str, member_id: str, topics: list[str],
                 assignor: str = "uniform", interval: float = 0.3) -> None:
        self.group, self.member_id, self.topics, self.assignor = group, member_id, topics, assignor
        self.interval = interval
        self.epoch = 0
        self.assigned: list[dict] = []  # the broker's latest assignment, as it sent it
        self.errors: list[str] = []
        self._transport = Transport(bootstrap, read_client_config(None), 10)
        self._stop = threading.Event()
        self._find_coordinator()
        self._beat()
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f"raw-member-{member_id}")
        self._thread.start()

    def _find_coordinator(self, seconds: float = 60) -> None:
        """FindCoordinator until node 1 says it coordinates the group (a fresh broker creates
        __consumer_offsets on the first lookup and refuses heartbeats until then)."""
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

    def _body(self) -> dict:
        joining = self.epoch == 0
        return {"group_id": self.group, "member_id": self.member_id,
                "member_epoch": self.epoch, "instance_id": None, "rack_id": None,
                "rebalance_timeout_ms": 60000,
                "subscribed_topic_names": self.topics if joining else None,
                "server_assignor": self.assignor if joining else None,
                "topic_partitions": [{"topic_id": t["topic_id"], "partitions": t["partitions"]}
                                     for t in self.assigned]}

    def _beat(self) -> None:
        answer = self._transport.send(1, "ConsumerGroupHeartbeatRequest", self._body(), 0)
        if answer.error_code:
            self.errors.append(f"{answer.error_code} {answer.error_message}")
            return
        self.epoch = answer.member_epoch
        if answer.assignment is not None:
            self.assigned = [{"topic_id": t.topic_id, "partitions": list(t.partitions)}
                             for t in answer.assignment.topic_partitions]

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
            self._transport.send(1, "ConsumerGroupHeartbeatRequest", self._body(), 0)
        finally:
            self._transport.close()


def describe_consumer_group(bootstrap: str, group: str):
    """ConsumerGroupDescribe v0 of ``group`` from node 1, through the codec: members in the
    order the broker lists them."""
    transport = Transport(bootstrap, read_client_config(None), 10)
    try:
        answer = transport.send(1, "ConsumerGroupDescribeRequest",
                                {"group_ids": [group], "include_authorized_operations": False}, 0)
    finally:
        transport.close()
    (described,) = answer.groups
    return described
