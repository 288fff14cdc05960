"""Partition lag: the rule that turns offsets into lag, and the static lag source.

The live source, which reads a group's offsets from a broker, is in the kafka-python adapter
(:class:`assignframe.kafka_python.lag.KafkaLagSource`); both implement the ``lag_source`` hook.
"""

from __future__ import annotations

from collections.abc import Mapping

from .hookspecs import hookimpl as _hookimpl
from .model import Cluster, TopicPartition

__all__ = ["StaticLagSource", "committed_lag", "partition_lag"]


def partition_lag(
    end_offset: int, committed: int | None, beginning_offset: int, auto_offset_reset: str
) -> int:
    """One partition's lag, as the lag-aware assignor proposal defines it.

    With a committed offset: end - committed. Without one, the consumer will start where
    ``auto.offset.reset`` says: ``latest`` gives 0, ``earliest`` (or any other value) gives the
    records currently available, end - beginning. Never negative (a committed offset past the end,
    e.g. after a truncation, counts as no lag).
    """
    if committed is not None and committed >= 0:
        return max(0, end_offset - committed)
    if auto_offset_reset == "latest":
        return 0
    return max(0, end_offset - beginning_offset)


def committed_lag(end_offset: int | None, committed: int | None) -> int | None:
    """One partition's lag as the broker can tell it (``inspect``, ``watch``, ``--detail``, a
    Streams task's lag): the records past the group's committed offset, end - committed, never
    negative. None (unknown, never 0) when the end offset was not read, or when nothing was
    committed to a partition that holds records: where its consumer starts is its
    ``auto.offset.reset``, which the broker does not know. A partition nothing was ever written
    to (end offset 0) has no lag either way."""
    if end_offset is None:
        return None
    if committed is None or committed < 0:
        return 0 if end_offset == 0 else None
    return max(0, end_offset - committed)


class StaticLagSource:
    """A lag source that answers with lags given up front (scenarios, snapshots, tests).

    Register it with ``pm.register(StaticLagSource(lags))``; a partition not given has no known
    lag (a lag-based strategy assigns it as 0 behind; the metrics leave it out).
    """

    def __init__(self, lags: Mapping[TopicPartition, int], group_id: str | None = None) -> None:
        self.lags = dict(lags)
        self.group_id = group_id

    @_hookimpl
    def lag_source(
        self, group_id: str | None, cluster: Cluster, topics: tuple[str, ...]
    ) -> dict[TopicPartition, int] | None:
        if self.group_id is not None and group_id != self.group_id:
            return None  # lags of another group: let the next source answer
        wanted = set(topics)
        return {tp: lag for tp, lag in self.lags.items() if tp.topic in wanted}
