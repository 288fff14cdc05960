"""Hypothesis strategies for random clusters, members, groups and multi-round histories.

Sizes stay small by default (a handful of topics, partitions and members) so properties shrink
fast; every generator takes its bounds as arguments for larger runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from hypothesis import strategies as st

from ..model import Cluster, GroupSubscription, Member, TopicPartition
from ..rebalance.runner import Consumer

__all__ = [
    "HistoryRound",
    "TOPIC_NAMES",
    "clusters",
    "group_subscriptions",
    "groups_with_claims",
    "histories",
    "member_ids",
    "members",
]

#: Topic names drawn from: short, numbered, and ones whose Java (UTF-16) order differs from
#: Python's code-point order, so sorting bugs show up.
TOPIC_NAMES = ("t0", "t1", "t2", "t10", "topic-a", "Topic-B", "\uff41", "\U0001f600")
#: A topic no cluster has: members may subscribe to it (an unknown topic).
UNKNOWN_TOPIC = "no-such-topic"


def member_ids() -> st.SearchStrategy[str]:
    """Member ids like the coordinator makes, plus a few whose string order is surprising."""
    return st.one_of(
        st.integers(0, 30).map(lambda n: f"consumer-{n}"),
        st.sampled_from(["C0", "C1", "C10", "c2", "m", "zzz", "aaa-\u00e9"]),
    )


@st.composite
def clusters(
    draw: st.DrawFn, max_topics: int = 4, max_partitions: int = 8, racks: bool = False
) -> Cluster:
    """A cluster with 1..max_topics topics of 0..max_partitions partitions (optionally racks)."""
    topics = draw(
        st.lists(st.sampled_from(TOPIC_NAMES), min_size=1, max_size=max_topics, unique=True)
    )
    counts = {t: draw(st.integers(0, max_partitions)) for t in topics}
    partition_racks = None
    if racks:
        rack_names = st.lists(
            st.sampled_from(["r0", "r1", "r2"]), min_size=1, max_size=2, unique=True
        )
        partition_racks = {
            t: tuple(tuple(draw(rack_names)) for _ in range(n)) for t, n in counts.items()
        }
    return Cluster(counts, partition_racks)


@st.composite
def members(
    draw: st.DrawFn, cluster: Cluster, member_id: str | None = None, unknown_topics: bool = True
) -> Member:
    """A fresh member (no owned partitions) subscribed to some of ``cluster``'s topics, possibly
    none, possibly one the cluster lacks."""
    choices = sorted(cluster.partitions_per_topic) + ([UNKNOWN_TOPIC] if unknown_topics else [])
    topics = draw(st.lists(st.sampled_from(choices), max_size=len(choices), unique=True))
    return Member(
        member_id=member_id if member_id is not None else draw(member_ids()),
        topics=tuple(sorted(topics)),
        rack=draw(st.sampled_from([None, "r0", "r1"])),
        group_instance_id=draw(st.sampled_from([None, None, f"static-{member_id}"])),
    )


@st.composite
def group_subscriptions(
    draw: st.DrawFn,
    max_members: int = 6,
    max_topics: int = 4,
    max_partitions: int = 8,
    min_members: int = 0,
    racks: bool = False,
    unknown_topics: bool = True,
) -> GroupSubscription:
    """A first-generation group: a cluster and members with fresh subscriptions."""
    cluster = draw(clusters(max_topics, max_partitions, racks))
    ids = draw(st.lists(member_ids(), min_size=min_members, max_size=max_members, unique=True))
    group_members = {m: draw(members(cluster, m, unknown_topics)) for m in ids}
    return GroupSubscription(group_members, cluster, generation=1)


@st.composite
def groups_with_claims(draw: st.DrawFn, max_members: int = 5) -> GroupSubscription:
    """A later-generation group whose members claim previous ownership, some of it corrupt:
    partitions claimed twice by one member, by two members of one generation, by stale
    generations, partitions and topics the cluster does not have, topics no longer subscribed."""
    group = draw(group_subscriptions(max_members=max_members, min_members=1))
    known = [
        tp
        for topic in sorted(group.cluster.partitions_per_topic)
        for tp in group.cluster.partitions(topic)
    ]
    bogus = [TopicPartition(UNKNOWN_TOPIC, 0)] + [
        TopicPartition(topic, count) for topic, count in group.cluster.partitions_per_topic.items()
    ]
    claimable = st.sampled_from(known + bogus)
    claimed = {}
    for member_id, member in group.members.items():
        owned = draw(st.lists(claimable, max_size=8))
        generation = draw(st.integers(-1, 3))
        claimed[member_id] = replace(member, owned_partitions=tuple(owned), generation=generation)
    return GroupSubscription(claimed, group.cluster, generation=4)


@dataclass(frozen=True)
class HistoryRound:
    """One rebalance of a history: who joins, and the cluster it runs against."""

    cluster: Cluster
    consumers: tuple[Consumer, ...]


@st.composite
def histories(
    draw: st.DrawFn,
    max_rounds: int = 4,
    max_members: int = 5,
    max_topics: int = 3,
    max_partitions: int = 6,
) -> list[HistoryRound]:
    """A sequence of rebalances over one group: members join and leave, subscriptions change,
    and topics may gain partitions. Every round has at least one member."""
    cluster = draw(clusters(max_topics, max_partitions))
    present: dict[str, Consumer] = {}
    rounds: list[HistoryRound] = []
    for _ in range(draw(st.integers(1, max_rounds))):
        cluster = draw(_maybe_grown(cluster))
        present = draw(_next_membership(cluster, present, max_members))
        rounds.append(HistoryRound(cluster, tuple(present.values())))
    return rounds


@st.composite
def _maybe_grown(draw: st.DrawFn, cluster: Cluster) -> Cluster:
    if not draw(st.booleans()):
        return cluster
    counts = dict(cluster.partitions_per_topic)
    topic = draw(st.sampled_from(sorted(counts)))
    counts[topic] += draw(st.integers(1, 3))
    return Cluster(counts)


@st.composite
def _next_membership(
    draw: st.DrawFn, cluster: Cluster, present: dict[str, Consumer], max_members: int
) -> dict[str, Consumer]:
    staying = {m: c for m, c in present.items() if draw(st.integers(0, 4)) > 0}
    joining = draw(st.lists(member_ids(), max_size=max_members, unique=True))
    for member_id in joining:
        if len(staying) >= max_members:
            break
        if member_id not in staying:
            staying[member_id] = _consumer(draw(members(cluster, member_id)))
    if not staying:
        member_id = draw(member_ids())
        staying[member_id] = _consumer(draw(members(cluster, member_id)))
    return staying


def _consumer(member: Member, strategies: Sequence[str] = ()) -> Consumer:
    return Consumer(
        member.member_id, member.topics, tuple(strategies), member.rack, member.group_instance_id
    )
