"""Hypothesis strategies for server-assignor inputs (``ServerGroupSpec``), for property tests."""

from __future__ import annotations

from hypothesis import strategies as st

from ..javaorder import Uuid
from ..server_assignor import CONSUMER_GROUP, ServerGroupSpec, ServerMember, ServerTopic

__all__ = ["server_groups"]


@st.composite
def server_groups(
    draw: st.DrawFn, group_type: str = CONSUMER_GROUP, max_members: int = 12, max_topics: int = 5
) -> ServerGroupSpec:
    """Fresh groups: 1..max_members members over 1..max_topics topics (0-20 partitions each),
    each member subscribed to a random subset of the topic names plus, sometimes, a missing one."""
    names = [f"t{i}" for i in range(draw(st.integers(1, max_topics)))]
    ids = draw(
        st.lists(
            st.tuples(st.integers(-(2**63), 2**63 - 1), st.integers(-(2**63), 2**63 - 1)),
            min_size=len(names),
            max_size=len(names),
            unique=True,
        )
    )
    topics = {
        Uuid(*raw): ServerTopic(Uuid(*raw), name, draw(st.integers(0, 20)))
        for name, raw in zip(names, ids, strict=True)
    }
    member_ids = draw(
        st.lists(
            st.text("abcdefghij0123456789-", min_size=1, max_size=8),
            min_size=1,
            max_size=max_members,
            unique=True,
        )
    )
    subscribable = [*names, "missing"]
    members = {
        m: ServerMember(m, tuple(draw(st.lists(st.sampled_from(subscribable), max_size=4))))
        for m in member_ids
    }
    return ServerGroupSpec(members, topics, group_type=group_type)
