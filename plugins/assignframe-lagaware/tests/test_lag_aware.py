"""lag-aware follows the proposal exactly; its tie-breaks are deterministic and unbiased."""

from __future__ import annotations

from assignframe_lagaware import LagAwareStrategy

from assignframe import Cluster, GroupSubscription, Member, TopicPartition


def _group(
    members: dict[str, list[str]], partitions: dict[str, int], lags=None
) -> GroupSubscription:
    return GroupSubscription(
        members={m: Member(m, tuple(topics)) for m, topics in members.items()},
        cluster=Cluster(partitions),
        lags=lags,
    )


def _lags(topic: str, values: list[int]) -> dict[TopicPartition, int]:
    return {TopicPartition(topic, p): lag for p, lag in enumerate(values)}


def test_proposal_example():
    # Two consumers on t0 with lags 100,000 / 60,000 / 50,000: range and roundrobin give one
    # consumer 160,000; the proposal gives C0 t0p0 (100,000) and C1 t0p1 + t0p2 (110,000).
    group = _group({"C0": ["t0"], "C1": ["t0"]}, {"t0": 3}, _lags("t0", [100_000, 60_000, 50_000]))
    result = LagAwareStrategy().assign(group)
    assert result.partitions_of("C0") == (TopicPartition("t0", 0),)
    assert result.partitions_of("C1") == (TopicPartition("t0", 1), TopicPartition("t0", 2))


def test_count_balance_comes_before_lag():
    # One huge partition: lag balance would give it a member alone, but counts come first.
    group = _group({"a": ["t"], "b": ["t"]}, {"t": 4}, _lags("t", [1_000_000, 1, 1, 1]))
    result = LagAwareStrategy().assign(group)
    assert sorted(len(result.partitions_of(m)) for m in "ab") == [2, 2]


def test_zero_lag_partitions_spread_across_topics():
    # The prototype piled every zero-lag partition onto the first member; counts overall break ties.
    group = _group(
        {"a": ["t1", "t2", "t3"], "b": ["t1", "t2", "t3"]}, {"t1": 1, "t2": 1, "t3": 1}, {}
    )
    result = LagAwareStrategy().assign(group)
    assert sorted(len(result.partitions_of(m)) for m in "ab") == [1, 2]


def test_without_lags_degrades_to_count_balance_and_says_so(caplog):
    group = _group({"a": ["t"], "b": ["t"], "c": ["t"]}, {"t": 7})
    result = LagAwareStrategy().assign(group)
    assert sorted(len(result.partitions_of(m)) for m in "abc") == [2, 2, 3]
    assert "no partition lags known" in caplog.text


def test_only_subscribers_get_a_topic():
    group = _group({"a": ["t1"], "b": ["t2"]}, {"t1": 2, "t2": 2}, _lags("t1", [5, 3]))
    result = LagAwareStrategy().assign(group)
    assert {tp.topic for tp in result.partitions_of("a")} == {"t1"}
    assert {tp.topic for tp in result.partitions_of("b")} == {"t2"}
