"""decode reads each captured subscription and assignment once: the typed snapshot of a
generation is built from what the timeline decoded, not from the bytes again (issue 23: two views
per generation)."""

from __future__ import annotations

import assignframe_codec
import pytest

from assignframe.decode import decode_capture
from assignframe.decode.classic import analysis, snapshots

from .conftest import ALL_CAPTURES, CAPTURES


def _count_decodes(name, monkeypatch, decoder):
    """How often ``assignframe_codec.<decoder>`` runs while the timeline reads the capture and
    while the typed snapshots are built, and the typed snapshots' members."""
    decode = getattr(assignframe_codec, decoder)
    calls = {"timeline": 0, "typed": 0}
    building = []

    def counted(data):
        calls["typed" if building else "timeline"] += 1
        return decode(data)

    group_snapshot = snapshots.group_snapshot

    def typed(snapshot):
        building.append(1)
        try:
            return group_snapshot(snapshot)
        finally:
            building.pop()

    monkeypatch.setattr(assignframe_codec, decoder, counted)
    monkeypatch.setattr(analysis, "group_snapshot", typed)
    timelines = decode_capture(CAPTURES / name).timelines
    typed_snapshots = [s.typed for t in timelines for s in t.snapshots if s.typed is not None]
    return calls, typed_snapshots


@pytest.mark.parametrize("name", ALL_CAPTURES)
def test_the_typed_snapshot_decodes_no_subscription_again(name, monkeypatch):
    calls, typed = _count_decodes(name, monkeypatch, "decode_subscription")
    members = [m for s in typed for m in s.members]
    assert members and calls["timeline"], (name, calls)
    assert calls["typed"] == 0, (name, calls)


@pytest.mark.parametrize("name", ALL_CAPTURES)
def test_the_typed_snapshot_decodes_no_assignment_again(name, monkeypatch):
    calls, typed = _count_decodes(name, monkeypatch, "decode_assignment")
    held = [tp for s in typed for a in s.current.assignments.values() for tp in a.partitions]
    assert held and calls["timeline"], (name, calls)
    assert calls["typed"] == 0, (name, calls)
