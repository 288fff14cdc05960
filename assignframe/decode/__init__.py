"""Decode consumer-group traffic: captures, standalone payloads and ``__consumer_offsets`` records.

Library first (the ``assignframe decode`` command is a thin layer over it)::

    from assignframe.decode import decode_capture, snapshot_dicts
    result = decode_capture("group.pcap")          # timelines + every skipped piece, with offsets
    for snapshot in snapshot_dicts(result.timelines):
        print(snapshot["group_id"], snapshot["generation"], snapshot["leader"])

Modules: :mod:`.pcap` (files, link/IP/TCP via dpkt), :mod:`.tcp` (reassembly), :mod:`.kafka`
(framing, correlation), :mod:`.apis` (message bodies), :mod:`.timeline` / :mod:`.analysis`
(classic generations, changes, metrics), :mod:`.consumer_protocol` (KIP-848 epochs),
:mod:`.snapshots` (the core's typed snapshot), :mod:`.replay`, :mod:`.payload` (kind
detection), :mod:`.offsets` / :mod:`.group_state` (``__consumer_offsets``), :mod:`.jsonl` (JSON
lines), :mod:`.console` (everything a person sees), :mod:`.commands`.
"""

from __future__ import annotations

from .capture import CaptureOptions, CaptureResult, decode_capture, iter_messages
from .jsonl import SNAPSHOT_SCHEMA, generation_line, snapshot_dicts
from .offsets import OffsetsRecord, decode_offsets_record
from .payload import DETECTION_ORDER, PayloadResult, decode_payload, parse_payload_text
from .problems import Problem, Problems
from .timeline import GroupTimeline, MemberRound, Snapshot

__all__ = [
    "DETECTION_ORDER",
    "SNAPSHOT_SCHEMA",
    "CaptureOptions",
    "CaptureResult",
    "GroupTimeline",
    "MemberRound",
    "OffsetsRecord",
    "PayloadResult",
    "Problem",
    "Problems",
    "Snapshot",
    "decode_capture",
    "decode_offsets_record",
    "decode_payload",
    "generation_line",
    "iter_messages",
    "parse_payload_text",
    "snapshot_dicts",
]
