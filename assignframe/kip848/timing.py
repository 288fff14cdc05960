"""How often a consumer-protocol group's members heartbeat and how long its coordinator waits
for a silent one, as the broker configures them.

Kafka's coordinator tells every member of a consumer-protocol group its heartbeat interval in
each ConsumerGroupHeartbeat response: the group's own ``consumer.heartbeat.interval.ms`` (a
KIP-848 group config) when one is set, else the broker's ``group.consumer.heartbeat.interval.ms``
(5 s by default). A member it has not heard from for the group's ``consumer.session.timeout.ms``,
else the broker's ``group.consumer.session.timeout.ms`` (45 s by default), is removed and its
partitions are assigned to the others. :class:`GroupTiming` carries the two values a prediction
assumed and where they came from (:data:`KAFKA_DEFAULT` when nothing was read).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "BROKER_CONFIG",
    "DEFAULT_HEARTBEAT_INTERVAL_MS",
    "DEFAULT_SESSION_TIMEOUT_MS",
    "GROUP_CONFIG",
    "GroupTiming",
    "KAFKA_DEFAULT",
]

#: Kafka's defaults of ``group.consumer.heartbeat.interval.ms`` and
#: ``group.consumer.session.timeout.ms``
DEFAULT_HEARTBEAT_INTERVAL_MS = 5000
DEFAULT_SESSION_TIMEOUT_MS = 45000

#: Where a value came from: the group's own config, the broker's, or neither
GROUP_CONFIG = "group config (DescribeConfigs)"
BROKER_CONFIG = "broker config (DescribeConfigs)"
KAFKA_DEFAULT = "Kafka default"


@dataclass(frozen=True)
class GroupTiming:
    """A consumer-protocol group's heartbeat interval and session timeout, each with its source
    (:data:`GROUP_CONFIG`, :data:`BROKER_CONFIG`, or :data:`KAFKA_DEFAULT` with why nothing
    was read)."""

    heartbeat_interval_ms: int = DEFAULT_HEARTBEAT_INTERVAL_MS
    session_timeout_ms: int = DEFAULT_SESSION_TIMEOUT_MS
    heartbeat_source: str = KAFKA_DEFAULT
    session_source: str = KAFKA_DEFAULT

    @classmethod
    def default(cls, reason: str | None = None) -> GroupTiming:
        """Kafka's defaults, saying why the broker's configs were not read (``reason``)."""
        source = f"{KAFKA_DEFAULT} (configs not readable: {reason})" if reason else KAFKA_DEFAULT
        return cls(heartbeat_source=source, session_source=source)

    @property
    def source(self) -> str:
        """One phrase for both values' sources."""
        if self.heartbeat_source == self.session_source:
            return self.heartbeat_source
        return (f"heartbeat interval: {self.heartbeat_source}; "
                f"session timeout: {self.session_source}")

    def as_dict(self) -> dict[str, Any]:
        return {"heartbeat_interval_ms": self.heartbeat_interval_ms,
                "session_timeout_ms": self.session_timeout_ms,
                "timing_source": self.source}
