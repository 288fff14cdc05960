"""decode reads each captured subscription once: the typed snapshot of a generation is built
from what the timeline decoded, not from the bytes again (issue 23: two views per generation)."""

from __future__ import annotations

import assignframe_codec
import pytest

from assignframe.decode import analysis, decode_capture, snapshots

from .conftest import ALL_CAPTURES, CAPTURES


@pytest.mark.parametrize("name", ALL_CAPTURES)
def test_the_typed_snapshot_decodes_no_subscription_again(name, monkeypatch):
    decode = assignframe_codec.decode_subscription
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

    monkeypatch.setattr(assignframe_codec, "decode_subscription", counted)
    monkeypatch.setattr(analysis, "group_snapshot", typed)
    timelines = decode_capture(CAPTURES / name).timelines
    members = [
        m for t in timelines for s in t.snapshots if s.typed is not None for m in s.typed.members
    ]
    assert members and calls["timeline"], (name, calls)
    assert calls["typed"] == 0, (name, calls)
