"""Apache Kafka's own sticky assignor tests, reproduced (AbstractStickyAssignorTest and
CooperativeStickyAssignorTest in clients/src/test/java/org/apache/kafka/clients/consumer/
internals/): topic balance after reassignment, and rack-aware assignment with uniform and
non-equal subscriptions, fresh and with owned partitions.

Java's expected assignments come from its own tie-breaking; what the tests assert, and what we
assert, is the property: per-topic counts, full balance, and how many partitions end up on a
member whose rack holds no replica (where Java expects 0, we must reach 0 too). Cooperative
results are checked once settled: the round, then the follow-up once revocations are done.
"""

from __future__ import annotations

import pytest
from assignframe_codec import encode_sticky_user_data
from assignframe_sticky import CooperativeStickyStrategy, StickyStrategy
from support import check_assignment, rack_mismatches

from assignframe import Cluster, GroupSubscription, Member, TopicPartition

STRATEGIES = [StickyStrategy(), CooperativeStickyStrategy()]
IDS = [s.name for s in STRATEGIES]
ALL_RACKS = "abcdefg"  # AbstractPartitionAssignorTest.ALL_RACKS


def _member(strategy, member_id, topics, owned, generation, rack=None) -> Member:
    if isinstance(strategy, CooperativeStickyStrategy):
        return Member(member_id, topics, owned_partitions=owned, generation=generation, rack=rack)
    user_data = encode_sticky_user_data([(tp.topic, tp.partition) for tp in owned], generation)
    return Member(
        member_id,
        topics,
        user_data=user_data,
        decoded_user_data=strategy.decode_user_data(user_data, 3),
        rack=rack,
    )


def settled(strategy, group: GroupSubscription):
    """Eager: the assignment. Cooperative: this round, then the follow-up round in which every
    member owns what it was given (revoked partitions released)."""
    first = strategy.assign(group)
    assert check_assignment(group, first, isinstance(strategy, CooperativeStickyStrategy)) == []
    if not isinstance(strategy, CooperativeStickyStrategy):
        return first
    members = {
        m: Member(
            m,
            x.topics,
            owned_partitions=first.partitions_of(m),
            generation=group.generation,
            rack=x.rack,
        )
        for m, x in group.members.items()
    }
    final = strategy.assign(GroupSubscription(members, group.cluster, group.generation + 1))
    assert final == strategy.assign(GroupSubscription(members, group.cluster, group.generation + 1))
    return final


def _topic_counts(assignment, topic: str) -> list[int]:
    return [
        sum(tp.topic == topic for tp in a.partitions)
        for _, a in sorted(assignment.assignments.items())
    ]


def _fully_balanced(assignment) -> bool:
    loads = [len(a.partitions) for a in assignment.assignments.values()]
    return max(loads) - min(loads) <= 1


@pytest.mark.parametrize("strategy", STRATEGIES, ids=IDS)
def test_topic_balance_after_reassignment(strategy):
    """testTopicBalanceAfterReassignment: two topics of 12; 1, then 2, then 4, then 2
    consumers; every consumer always holds equal shares of both topics."""
    cluster = Cluster({"topic1": 12, "topic2": 12})
    topics = ("topic1", "topic2")
    previous: dict[str, tuple[TopicPartition, ...]] = {}
    generation = 1
    for consumers, per_topic in (
        (["consumer1"], 12),
        (["consumer1", "consumer2"], 6),
        (["consumer1", "consumer2", "consumer3", "consumer4"], 3),
        (["consumer3", "consumer4"], 6),
    ):
        members = {
            c: _member(strategy, c, topics, previous.get(c, ()), generation) for c in consumers
        }
        assignment = settled(strategy, GroupSubscription(members, cluster, generation + 1))
        assert _topic_counts(assignment, "topic1") == [per_topic] * len(consumers)
        assert _topic_counts(assignment, "topic2") == [per_topic] * len(consumers)
        assert _fully_balanced(assignment)
        previous = {c: assignment.partitions_of(c) for c in consumers}
        generation += 2


# -- rack-aware assignment (KIP-881) ----------------------------------------------------------

TOPICS = {"t1": 6, "t2": 7, "t3": 2}
ALL_TOPICS = ("t1", "t2", "t3")
UNIFORM = [ALL_TOPICS, ALL_TOPICS, ALL_TOPICS]
NON_EQUAL = [ALL_TOPICS, ALL_TOPICS, ("t1", "t3")]
OWNED = [
    "t1-0, t1-1, t1-2, t1-3, t1-4",
    "t1-5, t2-0, t2-1, t2-2, t2-3",
    "t2-4, t2-5, t2-6, t3-0, t3-1",
]


def _racks(count: int) -> list[str]:
    return [ALL_RACKS[i % len(ALL_RACKS)] for i in range(count)]


def _replica_racks(replication: int, broker_racks: list[str | None]):
    """AbstractPartitionAssignorTest.partitionInfos: partition ``i`` of a topic whose first
    broker index is ``k`` has replicas on brokers ``(i + j + k) % brokers``, ``j`` below the
    replication factor; ``k`` runs on over the topics in order."""
    racks, first = {}, 0
    for topic, count in TOPICS.items():
        racks[topic] = tuple(
            tuple(
                sorted(
                    {broker_racks[(i + j + first) % len(broker_racks)] for j in range(replication)}
                    - {None}
                )
            )
            for i in range(count)
        )
        first += count
    return racks


def _parse(partitions: str) -> list[TopicPartition]:
    return [
        TopicPartition(p.rsplit("-", 1)[0], int(p.rsplit("-", 1)[1]))
        for p in partitions.split(", ")
        if p
    ]


def _rack_group(strategy, replication, broker_racks, consumer_racks, subscriptions, owned):
    members = {}
    for i, rack in enumerate(consumer_racks):
        mine = _parse(owned[i]) if owned else []
        members[f"consumer{i}"] = _member(
            strategy, f"consumer{i}", subscriptions[i], mine, 1 if mine else -1, rack
        )
    cluster = Cluster(dict(TOPICS), _replica_racks(replication, broker_racks))
    return GroupSubscription(members, cluster, 2)


# (replication factor, broker racks, consumer racks, Java's count of off-rack partitions);
# -1: racks do not apply (Java does not count)
FRESH_UNIFORM = [
    (3, [None] * 3, _racks(3), -1),
    (3, _racks(3), [None] * 3, -1),
    (3, _racks(3), _racks(3), 0),
    (3, _racks(4), _racks(3), 0),
    (3, _racks(3), ["d", "e", "f"], -1),
    (3, _racks(3), [None, "e", "f"], -1),
    (1, _racks(3), _racks(3), 0),
    (2, _racks(3), _racks(3), 0),
    (3, _racks(2), _racks(3), 5),  # a consumer on a rack without replicas: balance first
]
# testRackAwareAssignmentWithNonEqualSubscription: same cases, replication 1 leaves 4 off-rack
FRESH_NON_EQUAL = [case if case[0] != 1 else (1, _racks(3), _racks(3), 4) for case in FRESH_UNIFORM]


@pytest.mark.parametrize("strategy", STRATEGIES, ids=IDS)
@pytest.mark.parametrize(
    ("subscriptions", "cases"),
    [(UNIFORM, FRESH_UNIFORM), (NON_EQUAL, FRESH_NON_EQUAL)],
    ids=["uniform", "non-equal"],
)
def test_rack_aware_fresh_and_with_its_own_result_owned(strategy, subscriptions, cases):
    """verifyUniformSubscription / verifyNonEqualSubscription: fresh, then again with the
    result owned: balanced, no more off-rack than Java, and the owned result kept as is."""
    for replication, brokers, consumers, java_off_rack in cases:
        group = _rack_group(strategy, replication, brokers, consumers, subscriptions, None)
        fresh = settled(strategy, group)
        assert _fully_balanced(fresh)
        if java_off_rack >= 0:
            assert rack_mismatches(group, fresh) <= java_off_rack, (replication, brokers)
        owned = [
            ", ".join(f"{tp.topic}-{tp.partition}" for tp in fresh.partitions_of(f"consumer{i}"))
            for i in range(len(consumers))
        ]
        again = _rack_group(strategy, replication, brokers, consumers, subscriptions, owned)
        assert settled(strategy, again) == fresh, "a balanced, rack-aligned result must stay"


@pytest.mark.parametrize("strategy", STRATEGIES, ids=IDS)
@pytest.mark.parametrize(
    ("subscriptions", "java_off_rack"), [(UNIFORM, 0), (NON_EQUAL, 4)], ids=["uniform", "non-equal"]
)
def test_rack_awareness_improves_misaligned_ownership(strategy, subscriptions, java_off_rack):
    """ "Verify that rack-awareness is improved if already owned partitions are misaligned"
    (replication 1, three racks): owned partitions without a local replica move when a
    rack-local member can take them at the same balance (cooperative: revoked, then given);
    Java ends with 0 off-rack (uniform) and 4 (non-equal)."""
    group = _rack_group(strategy, 1, _racks(3), _racks(3), subscriptions, OWNED)
    assert rack_mismatches(group, _owned_as_assignment(group)) > java_off_rack
    assignment = settled(strategy, group)
    assert _fully_balanced(assignment)
    assert rack_mismatches(group, assignment) <= java_off_rack


@pytest.mark.parametrize("strategy", STRATEGIES, ids=IDS)
def test_stickiness_is_kept_when_racks_match(strategy):
    """ "Verify that stickiness is retained when racks match": replication 3 over three racks,
    every partition has a replica on every rack, so owned partitions all stay."""
    group = _rack_group(strategy, 3, _racks(3), _racks(3), UNIFORM, OWNED)
    assignment = settled(strategy, group)
    for i, owned in enumerate(OWNED):
        assert set(assignment.partitions_of(f"consumer{i}")) == set(_parse(owned))


def _owned_as_assignment(group):
    from assignframe import GroupAssignment

    return GroupAssignment.from_partitions(
        {
            m: [
                (tp.topic, tp.partition)
                for g in (x.decoded_user_data.previous_assignment if x.decoded_user_data else ())
                for tp in (TopicPartition(g.topic, p) for p in g.partitions)
            ]
            or [(tp.topic, tp.partition) for tp in x.owned_partitions]
            for m, x in group.members.items()
        }
    )
