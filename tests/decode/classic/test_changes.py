"""decode's per-generation ``changes`` come from the typed snapshots and count movement as the
core does (:func:`assignframe.metrics.movement`), partitions with several owners included."""

from __future__ import annotations

from assignframe.classic import wire
from assignframe.decode.classic.analysis import analyse
from assignframe.decode.classic.embedded import assignment_payload, subscription_payload
from assignframe.decode.classic.timeline import GroupTimeline, MemberRound, Snapshot
from assignframe.metrics import movement
from assignframe.model import MemberAssignment, SubscriptionMetadata, TopicPartition


def _member(member_id: str, partitions: list[tuple[str, int]]) -> MemberRound:
    assignment = MemberAssignment(tuple(TopicPartition(t, p) for t, p in partitions))
    return MemberRound(
        member_id,
        subscription=subscription_payload(
            wire.encode_subscription_metadata(SubscriptionMetadata(("t",))), "range", member_id),
        assignment=assignment_payload(wire.encode_member_assignment(assignment)),
    )


def _generation(number: int, owned: dict[str, list[tuple[str, int]]]) -> Snapshot:
    snapshot = Snapshot("g", number, float(number), "consumer", "range", leader=sorted(owned)[0])
    snapshot.partitions_per_topic = {"t": 3}
    snapshot.members = {m: _member(m, partitions) for m, partitions in owned.items()}
    return snapshot


def _changes(before: dict, after: dict) -> tuple[dict, Snapshot, Snapshot]:
    timeline = GroupTimeline("g", [_generation(1, before), _generation(2, after)])
    analyse([timeline])
    first, second = timeline.snapshots
    return second.changes, first, second


def _pairs(entries, *keys):
    return sorted(tuple(entry[k] for k in ("topic", "partition", *keys)) for entry in entries)


def test_a_partition_two_members_owned_that_a_third_takes_moved():
    # t-1 was in a's and b's Assignment (a faulty group); c owns it now.
    changes, first, second = _changes(
        {"a": [("t", 0), ("t", 1)], "b": [("t", 1), ("t", 2)]},
        {"a": [("t", 0)], "b": [("t", 2)], "c": [("t", 1)]},
    )
    assert _pairs(changes["moved"], "to") == [("t", 1, "c")]
    assert changes["moved"][0]["from"] in ("a", "b")
    assert _pairs(changes["kept"], "member_id") == [("t", 0, "a"), ("t", 2, "b")]
    assert changes["added"] == [] and changes["revoked"] == []
    kept, moved = movement(first.typed.current, second.typed.current)
    assert (len(changes["kept"]), len(changes["moved"])) == (kept, moved) == (2, 1)


def test_a_partition_that_gains_a_second_owner():
    changes, first, second = _changes(
        {"a": [("t", 0), ("t", 1), ("t", 2)], "b": []},
        {"a": [("t", 0), ("t", 1), ("t", 2)], "b": [("t", 2)]},
    )
    assert _pairs(changes["moved"], "from", "to") == [("t", 2, "a", "b")]
    kept, moved = movement(first.typed.current, second.typed.current)
    assert (len(changes["kept"]), len(changes["moved"])) == (kept, moved) == (3, 1)


def test_single_owners_keep_their_meaning():
    changes, first, second = _changes(
        {"a": [("t", 0), ("t", 1)], "b": [("t", 2)]},
        {"a": [("t", 0)], "b": [("t", 1)]},
    )
    assert _pairs(changes["kept"], "member_id") == [("t", 0, "a")]
    assert _pairs(changes["moved"], "from", "to") == [("t", 1, "a", "b")]
    assert _pairs(changes["revoked"], "from") == [("t", 2, "b")]
    assert changes["added"] == [] and changes["joined"] == [] and changes["left"] == []
    kept, moved = movement(first.typed.current, second.typed.current)
    assert (len(changes["kept"]), len(changes["moved"])) == (kept, moved)
