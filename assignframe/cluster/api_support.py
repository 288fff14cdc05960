"""Which APIs the reader uses, at which versions, and what each broker answers it supports.

:data:`READ_APIS` is the one list of what the reader may send: every one of them only reads.
A version is the highest both the codec and the broker know (ApiVersions); an API a broker does
not have is said once per (API, broker), and the reading goes on without it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import assignframe_codec as codec

__all__ = ["API_VERSIONS_BOOTSTRAP", "GROUPS_PER_REQUEST", "ApiSupport", "WRITE_APIS", "error_code",
           "CODEC_VERSIONS", "READ_APIS"]  # noqa: F822 - these two: the module's __getattr__

#: What the reader sends, in the order a pass needs them
_READ = ("ApiVersions", "Metadata", "DescribeCluster", "ListGroups", "FindCoordinator",
         "DescribeGroups", "ConsumerGroupDescribe", "ShareGroupDescribe", "StreamsGroupDescribe",
         "OffsetFetch", "ListOffsets", "DescribeShareGroupOffsets", "DescribeConfigs")


def _codec_range(api: str) -> tuple[int, int]:
    """The versions the codec both builds (request) and reads (response) of ``api``."""
    from assignframe_codec.registry import message_codec  # the codec's table: on first use

    request, response = message_codec(f"{api}Request"), message_codec(f"{api}Response")
    if request is None or response is None:
        raise LookupError(f"the codec has no {api} request or response")  # a packaging bug
    return max(request.lowest, response.lowest), min(request.highest, response.highest)


@functools.cache
def _versions() -> dict[str, dict[str, Any]]:
    codec_versions = {api: _codec_range(api) for api in _READ}
    return {"CODEC_VERSIONS": codec_versions,
            "READ_APIS": {api: high for api, (_, high) in codec_versions.items()}}


def __getattr__(name: str) -> Any:
    """``CODEC_VERSIONS`` (API -> (lowest, highest) version the codec speaks: the one truth of
    what the reader can send; with each broker the version is the highest both know,
    :meth:`ApiSupport.version`) and ``READ_APIS`` (API -> the highest version this reader
    builds), made on first use: reading the codec's table is not a cost of start-up."""
    if name in ("CODEC_VERSIONS", "READ_APIS"):
        return _versions()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
#: ApiVersions itself goes out before the broker's versions are known: v3, which every broker
#: since Kafka 2.4 answers (and the first that carries the client's software name)
API_VERSIONS_BOOTSTRAP = 3

#: groups per request of the APIs that take many (DescribeGroups, ConsumerGroupDescribe,
#: ShareGroupDescribe, StreamsGroupDescribe, OffsetFetch v8+, DescribeShareGroupOffsets)
GROUPS_PER_REQUEST = 100
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
        """The version to speak ``api`` at with this broker: the highest both the broker and
        the codec know (Kafka's own rule); None when they share none."""
        low, high = self.ranges.get(codec.api_key(api), (0, -1))
        our_low, our_high = _versions()["CODEC_VERSIONS"][api]
        chosen = min(high, our_high)
        return chosen if chosen >= max(low, our_low) else None
