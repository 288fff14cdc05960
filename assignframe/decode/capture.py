"""Capture file -> Kafka messages -> per-group timelines: the pipeline the CLI calls."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..plugins.manager import PluginManager
from .classic.analysis import analyse
from .classic.timeline import GroupTimeline, TimelineBuilder
from .kip848.timeline import (
    ConsumerGroupTimeline,
    ConsumerTimelineBuilder,
    merge_classic_members,
)
from .problems import Problems
from .traffic.frames import DEFAULT_MAX_FRAME_BYTES, KafkaFrame, KafkaStreams
from .traffic.messages import Message, read_message
from .traffic.pcap import read_segments
from .traffic.tcp import DEFAULT_MAX_PENDING_BYTES, Reassembler

__all__ = ["CaptureOptions", "CaptureResult", "decode_capture", "iter_messages"]


@dataclass(frozen=True)
class CaptureOptions:
    """How to find Kafka in a capture.

    :param ports: broker ports (``--port``); connections to them are Kafka
    :param sniff: also recognise Kafka on other ports by a valid first request header
    :param max_frame_bytes: a frame announcing more than this is corrupt
    :param max_pending_bytes: out-of-order bytes held per TCP direction before giving up a hole
    """

    ports: frozenset[int] = frozenset({9092})
    sniff: bool = True
    max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES
    max_pending_bytes: int = DEFAULT_MAX_PENDING_BYTES


@dataclass
class CaptureResult:
    timelines: list[GroupTimeline]
    problems: Problems
    frames: int = 0
    messages: int = 0
    consumer_groups: list[ConsumerGroupTimeline] = field(default_factory=list)  # KIP-848
    share_groups: list[ConsumerGroupTimeline] = field(default_factory=list)  # KIP-932
    streams_groups: list[ConsumerGroupTimeline] = field(default_factory=list)  # KIP-1071


def iter_messages(
    capture: str | Path | bytes,
    problems: Problems,
    options: CaptureOptions = CaptureOptions(),
    stats: dict[str, int] | None = None,
) -> Iterator[Message]:
    """Every decoded message of the capture, in the order its last byte arrived.

    Undecodable bodies are reported to ``problems`` (stream and byte offset) and not yielded.
    """
    frames: list[KafkaFrame] = []
    streams = KafkaStreams(
        frames.append, problems, options.ports, options.sniff, options.max_frame_bytes
    )
    reassembler = Reassembler(streams.sink_for, options.max_pending_bytes)
    counters = stats if stats is not None else {}

    def drain() -> Iterator[Message]:
        for frame in frames:
            counters["frames"] = counters.get("frames", 0) + 1
            message = read_message(frame)
            if message is None:
                continue
            if message.error:
                problems.add(
                    frame.stream,
                    frame.offset,
                    f"{message.kind} v{frame.api_version} (correlation id {frame.correlation_id}) "
                    f"undecodable: {message.error}; skipped",
                )
                continue
            counters["messages"] = counters.get("messages", 0) + 1
            yield message
        frames.clear()

    for segment in read_segments(capture, problems):
        reassembler.feed(segment)
        yield from drain()
    reassembler.finish()
    yield from drain()


def decode_capture(
    capture: str | Path | bytes,
    options: CaptureOptions = CaptureOptions(),
    problems: Problems | None = None,
    replay: str | None = None,
    manager: PluginManager | None = None,
) -> CaptureResult:
    """Decode a pcap/pcapng capture into rebalance timelines (analysed; replayed when asked)."""
    problems = problems if problems is not None else Problems()
    builder = TimelineBuilder()
    stats: dict[str, int] = {}
    consumer = ConsumerTimelineBuilder()
    for message in iter_messages(capture, problems, options, stats):
        builder.add(message)
        consumer.add(message)
    timelines = builder.timelines()
    analyse(timelines, replay, manager)
    heartbeat_groups = consumer.finish()
    consumer_groups = [g for g in heartbeat_groups if g.group_type == "consumer"]
    merge_classic_members(consumer_groups, timelines)
    return CaptureResult(timelines, problems, stats.get("frames", 0), stats.get("messages", 0),
                         consumer_groups, [g for g in heartbeat_groups if g.group_type == "share"],
                         [g for g in heartbeat_groups if g.group_type == "streams"])
