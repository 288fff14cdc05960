"""The live lag source: a group's committed offsets and the partitions' beginning and end
offsets, read through kafka-python by the leader at assign time.

Pass one to the adapter: ``assignors("lag-aware", lag_source=KafkaLagSource.from_config(config))``
where ``config`` is the consumer's own configuration dict. Reading is bounded by ``timeout_s``;
when offsets cannot be read (broker down, ACLs, timeout) the source logs a warning and answers
None, so lag-based strategies fall back to partition-count balance: a rebalance never fails for
want of lag.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from kafka import KafkaConsumer
from kafka import TopicPartition as KafkaTopicPartition

from ..hookspecs import hookimpl as _hookimpl
from ..lag import partition_lag
from ..model import Cluster, TopicPartition

__all__ = ["KafkaLagSource"]

log = logging.getLogger("assignframe.kafka_python.lag")

# Connection settings worth passing on from a consumer's configuration to the clients used here.
_SHARED_CONFIG = (
    "bootstrap_servers",
    "security_protocol",
    "ssl_context",
    "ssl_cafile",
    "ssl_certfile",
    "ssl_keyfile",
    "ssl_password",
    "sasl_mechanism",
    "sasl_plain_username",
    "sasl_plain_password",
    "sasl_kerberos_service_name",
    "api_version",
    "client_id",
)


class KafkaLagSource:
    """Lag of every partition the group subscribes to, read live (implements ``lag_source``).

    :param bootstrap_servers: the cluster to read offsets from
    :param group_id: the consumer group whose committed offsets count
    :param auto_offset_reset: the group's ``auto.offset.reset`` (decides uncommitted partitions)
    :param timeout_s: upper bound for each offsets request
    :param client_config: more kafka-python settings for the admin and consumer clients (TLS, SASL)
    """

    def __init__(
        self,
        bootstrap_servers: str | list[str],
        group_id: str,
        auto_offset_reset: str = "latest",
        timeout_s: float = 5.0,
        **client_config: Any,
    ) -> None:
        self.group_id = group_id
        self.auto_offset_reset = auto_offset_reset
        self.timeout_s = timeout_s
        self.client_config = {"bootstrap_servers": bootstrap_servers, **client_config}

    @classmethod
    def from_config(cls, config: Mapping[str, Any], timeout_s: float = 5.0) -> KafkaLagSource:
        """Build from a KafkaConsumer configuration dict (uses its group and reset policy)."""
        shared = {key: config[key] for key in _SHARED_CONFIG if key in config}
        return cls(
            group_id=config["group_id"],
            auto_offset_reset=config.get("auto_offset_reset", "latest"),
            timeout_s=timeout_s,
            **shared,
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(group_id={self.group_id!r}, "
            f"auto_offset_reset={self.auto_offset_reset!r})"
        )

    @_hookimpl
    def lag_source(
        self, group_id: str | None, cluster: Cluster, topics: tuple[str, ...]
    ) -> dict[TopicPartition, int] | None:
        if group_id is not None and group_id != self.group_id:
            return None
        partitions = [tp for topic in topics for tp in cluster.partitions(topic)]
        try:
            return self.read_lags(partitions)
        except Exception as error:  # noqa: BLE001 - any failure degrades to count balance
            log.warning(
                "lag source for group %s could not read offsets (%s: %s); lag-based strategies "
                "fall back to partition-count balance for this rebalance",
                self.group_id,
                type(error).__name__,
                error,
            )
            return None

    def read_lags(self, partitions: list[TopicPartition]) -> dict[TopicPartition, int]:
        """Read committed, beginning and end offsets and turn them into lags (may raise).

        One consumer that never subscribes (so it never joins the group) reads all three; the
        same calls exist in kafka-python 2.x and 3.x.
        """
        if not partitions:
            return {}
        timeout_ms = int(self.timeout_s * 1000)
        wanted = [KafkaTopicPartition(tp.topic, tp.partition) for tp in partitions]
        request_timeout_ms = timeout_ms + 1000
        reader = KafkaConsumer(
            group_id=self.group_id,
            enable_auto_commit=False,
            request_timeout_ms=request_timeout_ms,
            # The reader never joins the group, but kafka-python 2.x refuses a session timeout
            # that is not below the request timeout (and a heartbeat not below the session).
            session_timeout_ms=request_timeout_ms - 500,
            heartbeat_interval_ms=(request_timeout_ms - 500) // 3,
            **_bootstrap_bound(timeout_ms),
            **self.client_config,
        )
        try:
            beginning = reader.beginning_offsets(wanted)
            end = reader.end_offsets(wanted)
            committed = {tp: reader.committed(tp) for tp in wanted}
        finally:
            reader.close(autocommit=False)
        return {
            TopicPartition(tp.topic, tp.partition): partition_lag(
                end[tp], committed[tp], beginning[tp], self.auto_offset_reset
            )
            for tp in wanted
        }


def _bootstrap_bound(timeout_ms: int) -> dict[str, int]:
    """The setting that bounds the wait for a first broker. Without it an unreachable cluster
    held the leader's assign for kafka-python 3's 30 s ``bootstrap_timeout_ms``, whatever
    ``timeout_s`` said; kafka-python 2.x names it ``api_version_auto_timeout_ms``."""
    if "bootstrap_timeout_ms" in KafkaConsumer.DEFAULT_CONFIG:
        return {"bootstrap_timeout_ms": timeout_ms}
    return {"api_version_auto_timeout_ms": timeout_ms}
