"""A consumer-protocol member speaking ConsumerGroupHeartbeat v0 through ``assignframe_codec``,
for what a real client never lets a test choose: its member id (KIP-848 clients make their own,
at random). It reports, in each heartbeat, exactly what the broker last assigned it, so it
reconciles at once; it consumes nothing."""

from __future__ import annotations

from assignframe.cluster.config import read_client_config
from assignframe.cluster.transport import Transport
from assignframe.testing.raw_member import RawMember

__all__ = ["RawConsumerMember", "describe_consumer_group"]


class RawConsumerMember(RawMember):
    """One member of ``group`` with id ``member_id``, subscribed to ``topics`` and asking for the
    broker's ``assignor``; heartbeats every ``interval`` seconds on its own thread."""

    REQUEST = "ConsumerGroupHeartbeatRequest"

    def __init__(self, bootstrap: str, group: str, member_id: str, topics: list[str],
                 assignor: str = "uniform", interval: float = 0.3) -> None:
        super().__init__(bootstrap, group, member_id, interval)
        self.topics, self.assignor = topics, assignor
        self.assigned: list[dict] = []  # the broker's latest assignment, as it sent it
        self.start()

    def _body(self) -> dict:
        joining = self.epoch == 0
        return {"group_id": self.group, "member_id": self.member_id,
                "member_epoch": self.epoch, "instance_id": None, "rack_id": None,
                "rebalance_timeout_ms": 60000,
                "subscribed_topic_names": self.topics if joining else None,
                "server_assignor": self.assignor if joining else None,
                "topic_partitions": [{"topic_id": t["topic_id"], "partitions": t["partitions"]}
                                     for t in self.assigned]}

    _leave_body = _body

    def _beat(self) -> None:
        answer = self.send(self._body())
        if answer.error_code:
            self.errors.append(f"{answer.error_code} {answer.error_message}")
            return
        self.epoch = answer.member_epoch
        if answer.assignment is not None:
            self.assigned = [{"topic_id": t.topic_id, "partitions": list(t.partitions)}
                             for t in answer.assignment.topic_partitions]


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
