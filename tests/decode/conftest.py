"""Fixtures for the decoder tests: the shared captures, decoded once per session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assignframe.decode import decode_capture, snapshot_dicts
from assignframe.testing.paths import shared_path

CAPTURES = shared_path(__file__) / "captures"
GOLDEN = shared_path(__file__) / "golden"
KAFKA_PYTHON_CAPTURES = {
    "kafka_group_range.pcap": "range",
    "kafka_group_sticky.pcap": "sticky",
    "kafka_group_cooperative_sticky.pcap": "cooperative-sticky",
}
ALL_CAPTURES = sorted(p.name for p in CAPTURES.glob("*.pcap"))

_decoded: dict[str, Any] = {}


def decoded(name: str) -> Any:
    """The CaptureResult of one shared capture (decoded once per test session)."""
    if name not in _decoded:
        _decoded[name] = decode_capture(CAPTURES / name)
    return _decoded[name]


def snapshots(name: str) -> list[dict[str, Any]]:
    """The JSON snapshots of one shared capture, round-tripped through json."""
    return [json.loads(json.dumps(s)) for s in snapshot_dicts(decoded(name).timelines)]


def complete(name: str) -> list[dict[str, Any]]:
    return [s for s in snapshots(name) if s["complete"]]


def expected(name: str) -> dict[str, Any]:
    return json.loads((CAPTURES / name.replace(".pcap", ".expected.json")).read_text())


def assigned(member: dict[str, Any]) -> list[tuple[str, int]]:
    assignment = member["assignment"] or member["received_assignment"]
    return sorted(tuple(p) for p in assignment["partitions"])


@pytest.fixture
def captures_dir() -> Path:
    return CAPTURES


def golden_lines(*types: str) -> list[dict[str, Any]]:
    lines = (json.loads(line) for line in (GOLDEN / "codec.jsonl").read_text().splitlines())
    return [line for line in lines if line["type"] in types]
