"""Groups where swapping two partitions at a time left lag-aware less even than roundrobin or
range; each is taken from ``bench/compare.py``'s dump, and its optimum is worked out by hand."""

from __future__ import annotations

from assignframe_lagaware import LagAwareStrategy

from assignframe import Cluster, GroupSubscription, Member, TopicPartition


def _group(members: dict[str, str], lags: dict[str, list[int]]) -> GroupSubscription:
    """``members``: id -> subscribed topics ("t0 t1"); ``lags``: topic -> lag per partition."""
    return GroupSubscription(
        members={m: Member(m, tuple(topics.split())) for m, topics in members.items()},
        cluster=Cluster({t: len(values) for t, values in lags.items()}),
        lags={TopicPartition(t, p): v for t, values in lags.items() for p, v in enumerate(values)},
    )


def _totals(group: GroupSubscription, strategy: LagAwareStrategy) -> list[int]:
    assignment = strategy.assign(group)
    lags = group.lags or {}
    return sorted(sum(lags[tp] for tp in assignment.partitions_of(m)) for m in group.members)


SWAPS_ONLY = LagAwareStrategy(search_budget=0)


def test_ceil_slots_of_two_topics_change_hands():
    # The pass gives c0 t0p0 + t1p1 + t1p2 (710) and c1 t0p1 + t0p2 + t1p0 (796): c1 holds
    # t0's extra partition, c0 t1's. Within a topic no swap moves less than the 86 gap:
    # t1p0 for t1p1 or t1p2 moves 220 or 264, and c0's only t0 partition is the heaviest.
    # Roundrobin trades the extra slots: t0p2 (160) to c0, t1p2 (119) to c1, i.e. 751 / 755.
    # That is the optimum: one member has two of t0 and one of t1, and of its 9 possible
    # sums (681, 588 or 413, plus 383, 163 or 119) 751 is the closest to half of 1506.
    group = _group({"c0": "t0 t1", "c1": "t0 t1"}, {"t0": [428, 253, 160], "t1": [383, 163, 119]})
    assert _totals(group, SWAPS_ONLY) == [710, 796]
    assert _totals(group, LagAwareStrategy()) == [751, 755]


def test_two_partitions_for_two_within_one_topic():
    # One topic, 7 partitions: the pass gives c0 590 + 224 + 201 (1015) and c1 503 + 365 + 142
    # + 135 (1145). Every single swap or move shifts 135 or more, beyond the 130 gap, so the
    # swaps stop. Roundrobin deals 1068 / 1092. A 3-of-7 sum x splits the 2160 as x / 2160 - x;
    # the sums nearest 1080 are 503 + 365 + 201 = 1069, 590 + 365 + 135 = 1090 and
    # 503 + 365 + 224 = 1092 (none in 1070..1089), so 1070 / 1090 is the optimum.
    group = _group({"c0": "t0", "c1": "t0"}, {"t0": [201, 224, 590, 503, 135, 365, 142]})
    assert _totals(group, SWAPS_ONLY) == [1015, 1145]
    assert _totals(group, LagAwareStrategy()) == [1070, 1090]


def test_three_members_exchange_in_a_chain():
    # c1 takes only t0 and t2; t0 has 2 partitions for 3 subscribers, t1 4 for c0 and c2, t2 3.
    # The counts (4, 2, 3) leave c1 one t0 and one t2 partition. The swaps end at c0 736,
    # c1 572 (t0p0 111 + t2p2 461), c2 764: c1 swapping t0p0 for c0's t0p1 (+225) overshoots,
    # swapping t2p2 for c2's t2p1 (-126) makes it lighter. Doing both gives c1 336 + 335 = 671,
    # and c0 and c2 share the rest as 461 + 137 + 110 = 708 and 153 + 111 + 244 + 185 = 693,
    # range's assignment. It is optimal: c1's other five choices (797, 572, 489, 446, 264)
    # either exceed the mean 690.7 by too much or cap the minimum below 671 / 1.056.
    group = _group(
        {"c0": "t0 t1 t2", "c1": "t0 t2", "c2": "t0 t1 t2"},
        {"t0": [111, 336], "t1": [244, 185, 137, 110], "t2": [153, 335, 461]},
    )
    assert _totals(group, SWAPS_ONLY) == [572, 736, 764]
    assignment = LagAwareStrategy().assign(group)
    assert set(assignment.partitions_of("c1")) == {TopicPartition("t0", 1), TopicPartition("t2", 1)}
    assert _totals(group, LagAwareStrategy()) == [671, 693, 708]


def test_proposal_verbatim_is_untouched_by_the_search():
    group = _group({"c0": "t0 t1", "c1": "t0 t1"}, {"t0": [428, 253, 160], "t1": [383, 163, 119]})
    assert _totals(group, LagAwareStrategy(refine=False)) == [710, 796]
