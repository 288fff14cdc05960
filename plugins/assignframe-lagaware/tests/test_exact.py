"""The exact search: its optimum is the brute-force optimum, and its budget only ever stops it."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

from assignframe_lagaware import LagAwareStrategy
from assignframe_lagaware._balance import LagLedger
from assignframe_lagaware._exact import Holdings, is_more_even, most_even
from hypothesis import given, settings
from hypothesis import strategies as st

from assignframe import Cluster, GroupSubscription, Member, TopicPartition


@st.composite
def tiny_groups(draw) -> GroupSubscription:
    """Small enough to enumerate every assignment (at most 3**8)."""
    topics = [f"t{k}" for k in range(draw(st.integers(1, 3)))]
    counts = {t: draw(st.integers(1, 4)) for t in topics}
    while sum(counts.values()) > 8:
        counts[max(counts, key=counts.get)] -= 1
    members = {}
    for j in range(draw(st.integers(2, 3))):
        subscribed = draw(st.lists(st.sampled_from(topics), min_size=1, unique=True))
        members[f"c{j}"] = Member(f"c{j}", tuple(subscribed))
    lag = st.one_of(st.just(0), st.integers(1, 50), st.integers(100, 10_000))
    lags = {TopicPartition(t, p): draw(lag) for t in topics for p in range(counts[t])}
    return GroupSubscription(members, Cluster(counts), lags=lags)


def _proposal_holdings(group: GroupSubscription) -> Holdings:
    ledger = LagLedger(group, dict(group.lags))
    proposal = LagAwareStrategy(refine=False).assign(group)
    for member in group.members:
        for partition in proposal.partitions_of(member):
            ledger.give(member, partition)
    return ledger.holdings()


def _evenness(totals: list[int]) -> tuple[Fraction, int]:
    """(max/min, max), the objective, computed independently of the search's integer tricks."""
    high, low = max(totals), min(totals)
    if low == 0:
        return (Fraction(1) if high == 0 else Fraction(10**30)), high
    return Fraction(high, low), high


def _totals(holdings: Holdings, owner: list[int]) -> list[int]:
    totals = [0] * len(holdings.members)
    for (lag, _, _), member in zip(holdings.items, owner, strict=True):
        totals[member] += lag
    return totals


def _brute_force_best(holdings: Holdings) -> tuple[Fraction, int]:
    """Every owner vector: per-topic floor/ceil among subscribers, the same count multiset."""
    subscribers = [
        [m for m, topics in enumerate(holdings.member_topics) if t in topics]
        for t in range(len(holdings.topics))
    ]
    sizes = Counter(t for _, t, _ in holdings.items)
    counts = sorted(Counter(holdings.owner)[m] for m in range(len(holdings.members)))
    best = None
    for owner in product(*(subscribers[t] for _, t, _ in holdings.items)):
        per_topic = Counter((m, t) for m, (_, t, _) in zip(owner, holdings.items, strict=True))
        if any(
            per_topic[m, t] not in (sizes[t] // len(ms), -(-sizes[t] // len(ms)))
            for t, ms in enumerate(subscribers)
            for m in ms
        ):
            continue
        if sorted(Counter(owner)[m] for m in range(len(holdings.members))) != counts:
            continue
        score = _evenness(_totals(holdings, list(owner)))
        best = score if best is None or score < best else best
    assert best is not None  # the starting assignment itself qualifies
    return best


@settings(max_examples=300, deadline=None)
@given(group=tiny_groups())
def test_finished_search_is_the_brute_force_optimum(group):
    holdings = _proposal_holdings(group)
    outcome = most_even(holdings)
    assert outcome.optimal
    assert _evenness(_totals(holdings, outcome.owner)) == _brute_force_best(holdings)


@settings(max_examples=200, deadline=None)
@given(group=tiny_groups(), budget=st.integers(0, 400))
def test_a_search_cut_short_keeps_the_best_it_saw(group, budget):
    # Whatever the budget, the result is never less even than the start and keeps its counts.
    holdings = _proposal_holdings(group)
    outcome = most_even(holdings, budget)
    assert _evenness(_totals(holdings, outcome.owner)) <= _evenness(
        _totals(holdings, holdings.owner)
    )
    assert sorted(Counter(outcome.owner).values()) == sorted(Counter(holdings.owner).values())


def test_evenness_order():
    assert is_more_even(110, 100, 120, 100)  # lower ratio
    assert is_more_even(220, 200, 230, 200)
    assert not is_more_even(220, 200, 110, 100)  # same ratio, higher maximum
    assert is_more_even(110, 100, 220, 200)
    assert is_more_even(500, 1, 5, 0)  # any positive minimum beats a zero one
    assert is_more_even(4, 0, 5, 0)  # both infinite: the lower maximum wins
    assert is_more_even(0, 0, 5, 0) and not is_more_even(5, 5, 0, 0)  # all zero counts as 1
