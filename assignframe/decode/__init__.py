"""Decode consumer-group traffic: captures, standalone payloads and ``__consumer_offsets`` records.

Library first (the ``assignframe decode`` command is a thin layer over it)::

    from assignframe.decode import decode_capture, snapshot_dicts
    result = decode_capture("group.pcap")          # timelines + every skipped piece, with offsets
    for snapshot in snapshot_dicts(result.timelines):
        print(snapshot["group_id"], snapshot["generation"], snapshot["leader"])

Packages by input and protocol: :mod:`.traffic` (pcap files, TCP reassembly, Kafka framing and
message bodies), :mod:`.classic` (the classic protocol's embedded ConsumerProtocol payloads,
generations, changes, metrics and ``--replay``), :mod:`.kip848` (consumer-protocol and share-group
epochs, hand-overs), :mod:`.offsets` (``__consumer_offsets`` records, rebuilt group states and their
snapshots) and :mod:`.views` (everything a person sees, and the JSON lines). Beside them:
:mod:`.capture` (a capture through both protocols), :mod:`.payload` (standalone payloads, kind
detection), :mod:`.problems` (what was skipped, and where) and :mod:`.commands` (the CLI's
actions). decode imports the codec and the core (model, snapshot, plugin manager, the KIP-848
reconciliation); of the other tools only the audit's name of a group's server assignor.
"""

from __future__ import annotations

from .capture import CaptureOptions, CaptureResult, decode_capture, iter_messages
from .classic.timeline import GroupTimeline, MemberRound, Snapshot
from .offsets.records import OffsetsRecord, decode_offsets_record
from .payload import DETECTION_ORDER, PayloadResult, decode_payload, parse_payload_text
from .problems import Problem, Problems
from .views.jsonl import SNAPSHOT_SCHEMA, generation_line, snapshot_dicts

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
