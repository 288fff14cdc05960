"""decode reads each captured subscription and assignment once: the typed snapshot of a
generation is built from what the timeline decoded, not from the bytes again (issue 23: two views
per generation)."""

from __future__ import annotations

import assignframe_codec
import pytest

from assignframe.decode import decode_capture
from assignframe.decode.classic import analysis, snapshots

from ..conftest import ALL_CAPTURES, CAPTURES


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


@pytest.mark.parametrize("name", ALL_CAPTURES)
def test_each_payload_is_held_once_and_its_view_is_made_from_it(name):
    """A member's subscription, leader-sent and received assignments are one object each: the
    captured bytes and what they decode to; the JSON view shows those bytes and is not a second
    copy kept beside them (issue 33: the dict twin)."""
    from dataclasses import fields

    from assignframe.decode.classic.embedded import Payload
    from assignframe.decode.classic.timeline import MemberRound

    assert {f.name for f in fields(MemberRound)} >= {"subscription", "assignment", "received"}
    assert not [f.name for f in fields(MemberRound) if f.name.endswith(("_bytes", "_decoded"))]
    seen = 0
    for timeline in decode_capture(CAPTURES / name).timelines:
        for generation in timeline.snapshots:
            for member in generation.members.values():
                for payload in (member.subscription, member.assignment, member.received):
                    if payload is None:
                        continue
                    assert isinstance(payload, Payload)
                    assert payload.view["hex"] == (None if payload.raw is None
                                                   else payload.raw.hex())
                    assert (payload.decoded is None) == (payload.error is not None
                                                         or not payload.raw)
                    seen += 1
    assert seen
