"""The coordinator's record round trip between server-assignor calls (server_chain)."""

from __future__ import annotations

from assignframe import Uuid
from assignframe.kip848.chain import from_record, target_after

A, B = Uuid(0, 1), Uuid(0, 17)  # hashCodes 1 and 17: the same bucket of a 16-slot table


def test_an_unchanged_target_keeps_the_current_object_and_order():
    current = ((B, (3, 1)), (A, (2,)))
    assert target_after(current, {A: (2,), B: (1, 3)}) is current


def test_a_changed_target_is_read_back_like_a_record():
    # Record order B then A: both land in bucket 1 and keep that order. Partitions come back
    # in HashSet order: by bucket (5 after 1), and in list order within one (17 and 1 share
    # bucket 1 of the 16-slot set).
    assert target_after((), {B: (5, 1), A: (2,)}) == ((B, (1, 5)), (A, (2,)))
    assert from_record([(A, (17, 1)), (B, ())]) == ((A, (17, 1)), (B, ()))


def test_an_emptied_member_gets_an_empty_map():
    assert target_after(((A, (0,)),), {}) == ()


def test_chaining_needs_an_assignor_that_models_javas_result_order():
    import pytest

    from assignframe import ServerAssignment, ServerAssignor
    from assignframe.replay.server import chained_rounds

    class Unordered(ServerAssignor):
        name = "unordered"

        def assign(self, group):
            return ServerAssignment({})

    scenario = {
        "id": "s",
        "group_type": "consumer",
        "topics": {"a": {"id": "AAECAwQFBgcICQoLDA0ODw", "partitions": 1}},
        "rounds": [{"members": {"m": {"topics": ["a"], "current": []}}}],
    }
    with pytest.raises(ValueError, match="server:unordered does not model Java's result order"):
        list(chained_rounds(scenario, Unordered()))
