"""Group files read as the leader reads a JoinGroup: the one user-data rule (issue 23)."""

from __future__ import annotations

import logging

import pytest

from assignframe import Strategy
from assignframe.classic.protocol import UserDataReader, leader_member
from assignframe.classic.wire import encode_subscription_metadata
from assignframe.errors import UserDataError
from assignframe.model import GroupAssignment, GroupSubscription, SubscriptionMetadata
from assignframe.replay.groupfile import GroupFile, group_subscription


class Picky(Strategy):
    """Reads user data only when it is the single byte 0x01 (anything else is refused)."""

    name = "picky"

    def decode_user_data(self, user_data: bytes | None, subscription_version: int) -> object:
        if user_data not in (None, b"\x01"):
            raise UserDataError(f"picky: cannot read {user_data.hex()}")
        return "one" if user_data else "none"

    def assign(self, group: GroupSubscription) -> GroupAssignment:
        raise NotImplementedError


def _group_file(user_data_hex: str | None) -> GroupFile:
    member = {"topics": ["t"], "user_data_hex": user_data_hex}
    document = {"partitions_per_topic": {"t": 2}, "members": {"c0": member}}
    return GroupFile(document=document, source="g.yaml")


def test_unreadable_user_data_counts_as_none_with_one_warning(pm, caplog):
    caplog.set_level(logging.WARNING)
    group = group_subscription(_group_file("ff"), Picky(), pm)
    member = group.members["c0"]
    assert member.user_data is None and member.decoded_user_data == "none"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "g.yaml" in warnings[0] and "'c0'" in warnings[0]


@pytest.mark.parametrize("user_data", [b"\x01", b"\xff", None])
def test_a_group_file_member_is_the_member_a_leader_reads(pm, user_data):
    """The same member, from a group file and from the JoinGroup bytes it would send."""
    from_file = group_subscription(
        _group_file(None if user_data is None else user_data.hex()), Picky(), pm
    ).members["c0"]
    joined = encode_subscription_metadata(SubscriptionMetadata(("t",), user_data))
    from_wire = leader_member("c0", joined, None, UserDataReader(pm, Picky(), None))
    assert from_file.user_data == from_wire.user_data
    assert from_file.decoded_user_data == from_wire.decoded_user_data
