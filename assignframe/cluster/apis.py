"""Which APIs the reader uses, at which versions, and what each broker answers it supports.

:data:`READ_APIS` is the one list of what the reader may send: every one of them only reads.
A version is the highest both the codec and the broker know (ApiVersions); an API a broker does
not have is said once per (API, broker), and the reading goes on without it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import assignframe_codec as codec

__all__ = ["ApiSupport", "READ_APIS", "WRITE_APIS", "error_code"]

#: API -> the highest version this reader builds (the codec's own highest for each)
READ_APIS = {
    "ApiVersions": 3,
    "Metadata": 12,
    "DescribeCluster": 1,
    "ListGroups": 5,
    "FindCoordinator": 6,
    "DescribeGroups": 5,
    "ConsumerGroupDescribe": 1,
    "ShareGroupDescribe": 1,
    "StreamsGroupDescribe": 1,
    "OffsetFetch": 9,
    "ListOffsets": 10,
}
#: The group APIs that change a group or its offsets: none is ever sent (tests check the wire)
WRITE_APIS = ("JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup", "OffsetCommit",
              "ConsumerGroupHeartbeat", "ShareGroupHeartbeat", "StreamsGroupHeartbeat",
              "OffsetDelete", "DeleteGroups", "TxnOffsetCommit", "AlterConsumerGroupOffsets",
              "CreateTopics", "Produce")

_CODES = {name: code for code, name in codec.ERROR_NAMES.items()}


def error_code(name: str) -> int:
    """Kafka's code for the error ``name`` (the codec's table)."""
    return _CODES[name]


@dataclass
class ApiSupport:
    """The versions one broker announced: api key -> (min, max)."""

    node: int | str
    address: str
    ranges: dict[int, tuple[int, int]] = field(default_factory=dict)

    def version(self, api: str) -> int | None:
        """The version to speak ``api`` at with this broker, None when none is shared."""
        low, high = self.ranges.get(codec.api_key(api), (0, -1))
        ours = READ_APIS[api]
        chosen = min(high, ours)
        return chosen if chosen >= low else None
