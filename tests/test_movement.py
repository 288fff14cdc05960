"""The one movement definition (:mod:`assignframe.movement`): the listing and the count-only fast
path agree on any two assignments (several owners per partition, members coming and going), and
each partition is accounted for once per holder."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assignframe.model import GroupAssignment, MemberAssignment, TopicPartition
from assignframe.movement import holder_changes, movement, ownership_changes

MEMBERS = ("a", "b", "c", "d")
PARTITIONS = tuple(TopicPartition(t, p) for t in ("t", "u") for p in range(4))

assignments = st.dictionaries(
    st.sampled_from(MEMBERS),
    st.lists(st.sampled_from(PARTITIONS), max_size=6),
    max_size=4,
).map(lambda held: GroupAssignment({m: MemberAssignment(tuple(ps)) for m, ps in held.items()}))


@settings(max_examples=300, deadline=None)
@given(assignments, assignments)
def test_the_count_is_the_listing(previous, current):
    changes = ownership_changes(previous, current)
    assert movement(previous, current) == (len(changes.kept), len(changes.moved))
    for tp, before, after in changes.moved:
        assert tp in previous.assignments[before].partitions
        assert tp in current.assignments[after].partitions
        assert tp not in previous.assignments.get(after, MemberAssignment(())).partitions


@settings(max_examples=300, deadline=None)
@given(assignments, assignments)
def test_every_holder_of_now_is_kept_moved_or_added(previous, current):
    changes = ownership_changes(previous, current)
    holders_now = {(tp, m) for m, a in current.assignments.items() for tp in a.partitions}
    said = ({(tp, m) for tp, m in changes.kept} | {(tp, m) for tp, _, m in changes.moved}
            | {(tp, m) for tp, m in changes.added})
    assert said == holders_now
    assert len(changes.kept) + len(changes.moved) + len(changes.added) == len(holders_now)
    held_before = {tp for a in previous.assignments.values() for tp in a.partitions}
    held_now = {tp for a in current.assignments.values() for tp in a.partitions}
    assert {tp for tp, _ in changes.revoked} == held_before - held_now
    assert {tp for tp, _ in changes.added} == held_now - held_before


def test_nothing_held_before_is_added_not_moved():
    now = {"a": ["t-0", "t-1"], "b": ["t-2"]}
    changes = holder_changes(None, now)
    assert (changes.kept, changes.moved, changes.revoked) == ((), (), ())
    assert changes.added == (("t-0", "a"), ("t-1", "a"), ("t-2", "b"))
    assert holder_changes({}, now) == changes


def test_a_member_leaving_hands_over_and_a_deleted_topic_is_revoked():
    before = {"a": ["t-0", "u-0"], "b": ["t-1"]}
    after = {"b": ["t-0", "t-1"]}
    changes = holder_changes(before, after)
    assert changes.kept == (("t-1", "b"),)
    assert changes.moved == (("t-0", "a", "b"),)
    assert changes.revoked == (("u-0", "a"),)
    counts = [len(changes.kept), len(changes.moved), len(changes.added), len(changes.revoked)]
    assert counts == [1, 1, 0, 1]


def test_a_shared_partition_gaining_a_holder_is_moved_to_it_from_a_holder():
    changes = holder_changes({"a": ["p"], "b": ["p"]}, {"a": ["p"], "b": ["p"], "c": ["p"]})
    assert changes.kept == (("p", "a"), ("p", "b"))
    assert changes.moved == (("p", "a", "c"),)  # nobody lost it: from its first holder
