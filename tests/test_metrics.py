"""Metrics: KIP-54 balance score and balance, movement, lag, validity."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from assignframe import Cluster, GroupAssignment, GroupSubscription, Member, TopicPartition
from assignframe.metrics import (
    Validity,
    balance_score,
    is_balanced,
    metrics_record,
    movement,
    round_metrics,
    validate_assignment,
)


def tp(name: str) -> TopicPartition:
    """``"t1p0"`` -> TopicPartition("t1", 0) (the KIP's notation)."""
    topic, partition = name.split("p")
    return TopicPartition(topic, int(partition))


def assignment(**members: str) -> GroupAssignment:
    return GroupAssignment.from_partitions(
        {m: [tp(p) for p in ps.split()] for m, ps in members.items()}
    )


# KIP-54 example 2: C0 subscribes t0; C1 t0, t1; C2 t0, t1, t2 (t0: 1, t1: 2, t2: 3 partitions).
EXAMPLE2 = GroupSubscription(
    {
        "C0": Member("C0", ("t0",)),
        "C1": Member("C1", ("t0", "t1")),
        "C2": Member("C2", ("t0", "t1", "t2")),
    },
    Cluster({"t0": 1, "t1": 2, "t2": 3}),
)


@given(st.lists(st.integers(0, 50), max_size=12))
def test_balance_score_is_the_sum_over_pairs(counts):
    assert balance_score(counts) == sum(abs(a - b) for a, b in itertools.combinations(counts, 2))


def test_kip54_example2():
    round_robin = assignment(C0="t0p0", C1="t1p0", C2="t1p1 t2p0 t2p1 t2p2")
    sticky = assignment(C0="t0p0", C1="t1p0 t1p1", C2="t2p0 t2p1 t2p2")
    assert round_metrics(EXAMPLE2, round_robin).balance_score == 0 + 3 + 3
    assert round_metrics(EXAMPLE2, sticky).balance_score == 1 + 2 + 1
    # C2 could hand t1p1 to C1 (4 - 1 >= 2): not balanced. Sticky's C2 holds only t2, which
    # nobody else can take, and C1's t1 cannot go to C0: balanced although counts differ by 2.
    assert not is_balanced(EXAMPLE2, round_robin)
    assert is_balanced(EXAMPLE2, sticky)


def test_shape_metrics():
    metrics = round_metrics(EXAMPLE2, assignment(C0="", C1="t0p0 t1p0", C2="t1p1 t2p0 t2p1 t2p2"))
    assert (metrics.min_partitions, metrics.max_partitions, metrics.spread) == (0, 4, 4)
    assert metrics.idle_members == ("C0",)
    assert metrics.partitions_assigned == 6 and metrics.members == 3
    assert metrics.partitions_kept is None and metrics.lag_per_member is None


def test_movement():
    before = assignment(C0="t0p0 t1p1", C1="t1p0 t2p0")
    after = assignment(C0="t0p0 t2p0", C1="t1p0", C2="t1p1 t2p1")
    kept, moved = movement(before, after)
    assert kept == 2  # t0p0 stays with C0, t1p0 with C1
    assert moved == 2  # t2p0 C1->C0, t1p1 C0->C2; t2p1 is new, not moved


def test_lag_metrics():
    lags = {tp("t0p0"): 10, tp("t1p0"): 5, tp("t1p1"): 1}
    group = GroupSubscription(EXAMPLE2.members, EXAMPLE2.cluster, lags=lags)
    metrics = round_metrics(group, assignment(C0="t0p0", C1="t1p0 t1p1", C2="t2p0"))
    # t2p0's lag is not known: C2 has no lag (never 0), and the spread is over C0 and C1
    assert metrics.lag_per_member == {"C0": 10, "C1": 6}
    assert metrics.lag_spread == 4 and metrics.lag_ratio == 10 / 6
    metrics = round_metrics(group, assignment(C0="t0p0 t2p0", C1="t1p0 t1p1", C2=""))
    # known partitions are summed, unknown ones left out; owning nothing is 0 behind
    assert metrics.lag_per_member == {"C0": 10, "C1": 6, "C2": 0}
    assert metrics.lag_spread == 10 and metrics.lag_ratio is None
    metrics = round_metrics(group, assignment(C0="t0p0", C1="t1p0", C2="t1p1"))
    assert metrics.lag_ratio == 10.0


def test_valid_assignment_takes_the_fast_path():
    validity = validate_assignment(
        EXAMPLE2, assignment(C0="t0p0", C1="t1p0 t1p1", C2="t2p0 t2p1 t2p2")
    )
    assert validity.is_valid and validity.describe() == "valid"


def test_every_kind_of_invalidity_is_listed():
    group = GroupSubscription(
        {"a": Member("a", ("t0", "ghost")), "b": Member("b", ("t1",))},
        Cluster({"t0": 2, "t1": 2, "t9": 1}),
    )
    broken = assignment(a="t0p0 t1p0 ghostp0 t0p7", b="t0p0 t1p0 t9p0")
    validity = validate_assignment(group, broken)
    assert validity.double_owned == (tp("t0p0"), tp("t1p0"))
    assert validity.unowned == (tp("t0p1"), tp("t1p1"))
    assert validity.non_subscriber == (("a", tp("t1p0")), ("b", tp("t0p0")), ("b", tp("t9p0")))
    assert validity.unknown == (("a", tp("ghostp0")), ("a", tp("t0p7")))
    assert "double-owned: t0-0, t1-0" in validity.describe()
    assert validity.as_dict()["unowned"] == [["t0", 1], ["t1", 1]]


def test_same_member_twice_is_double_owned():
    group = GroupSubscription({"a": Member("a", ("t0",))}, Cluster({"t0": 1}))
    assert validate_assignment(group, assignment(a="t0p0 t0p0")).double_owned == (tp("t0p0"),)


def test_redundant_owners():
    group = GroupSubscription(
        {m: Member(m, ("t0",)) for m in "abc"} | {"d": Member("d", ("t1",))},
        Cluster({"t0": 2, "t1": 1}),
    )
    # Two owners each for t0 partitions; t1 has a single subscriber, so one owner is enough.
    good = assignment(a="t0p0 t0p1", b="t0p0", c="t0p1", d="t1p0")
    assert validate_assignment(group, good, owners_per_partition=2).is_valid
    assert not validate_assignment(group, good).is_valid  # the default check is not weakened
    short = validate_assignment(group, assignment(a="t0p0 t0p1", b="t0p0", c="", d="t1p0"), 2)
    assert short.unowned == (tp("t0p1"),)
    too_many = validate_assignment(
        group, assignment(a="t0p0 t0p1", b="t0p0 t0p1", c="t0p0", d="t1p0"), 2
    )
    assert too_many.double_owned == (tp("t0p0"),)


def test_cooperative_validity_tells_withheld_from_unowned():
    """A partition its owner must release first is withheld, not unowned (KIP-429)."""
    group = GroupSubscription(
        {
            "a": Member("a", ("t0",), owned_partitions=[tp("t0p0"), tp("t0p1")]),
            "b": Member("b", ("t0",)),
        },
        Cluster({"t0": 3}),
    )
    revoking = assignment(a="t0p0", b="t0p2")  # t0p1 leaves a; t0p2 was nobody's
    cooperative = validate_assignment(group, revoking, cooperative=True)
    assert cooperative.withheld == (tp("t0p1"),) and cooperative.unowned == ()
    assert cooperative.is_valid and not cooperative.is_complete
    assert "withheld (revocation pending): t0-1" in cooperative.describe()
    assert cooperative.as_dict()["withheld"] == [["t0", 1]]
    eager = validate_assignment(group, revoking)
    assert eager.unowned == (tp("t0p1"),) and eager.withheld == () and not eager.is_valid
    # Nobody claims t0p2: unowned under either protocol.
    lost = validate_assignment(group, assignment(a="t0p0 t0p1", b=""), cooperative=True)
    assert lost.unowned == (tp("t0p2"),) and lost.withheld == () and not lost.is_valid
    complete = validate_assignment(group, assignment(a="t0p0 t0p1", b="t0p2"), cooperative=True)
    assert complete.is_complete
    assert round_metrics(group, revoking, cooperative=True).validity == cooperative


def test_movement_reuses_nothing_stale():
    before = assignment(a="t0p0 t0p1", b="t0p2")
    now = assignment(a="t0p0", b="t0p1 t0p2")
    assert movement(before, now) == movement(before, now) == (2, 1)
    changed = assignment(a="t0p2", b="t0p0 t0p1")  # an equal-looking but distinct previous
    assert movement(changed, now) == (1, 2)
    assert movement(before, now) == (2, 1)


def test_a_record_measured_again_is_what_measuring_gives():
    """metrics_record keeps what it measured against the same previous assignment: an equal
    assignment of a group it reads the same gets the same record, and anything it reads that
    differs (lags, owned partitions, member order, owners) is measured."""
    previous = assignment(a="t0p0 t0p1", b="t0p2")
    group = GroupSubscription(
        {"a": Member("a", ("t0",)), "b": Member("b", ("t0",))},
        Cluster({"t0": 3}),
        lags={tp("t0p0"): 5, tp("t0p1"): 1, tp("t0p2"): 7},
    )
    now = assignment(a="t0p0", b="t0p1 t0p2")

    def fresh(group, now, owners=1):
        return round_metrics(group, now, previous, owners, cooperative=True).as_dict(2)

    first = metrics_record(group, now, previous, 1, 2)
    first["lag_per_member"]["a"] = -1  # the caller's own copy
    assert metrics_record(group, assignment(a="t0p0", b="t0p1 t0p2"), previous, 1, 2) == fresh(
        group, now
    )
    assert metrics_record(group, now, previous, 1, 3)["rounds"] == 3
    other_lags = GroupSubscription(group.members, group.cluster, lags={tp("t0p0"): 9})
    assert metrics_record(other_lags, now, previous, 1, 2) == fresh(other_lags, now)
    assert fresh(other_lags, now) != fresh(group, now)
    revoking = GroupSubscription(
        {"a": Member("a", ("t0",), owned_partitions=[tp("t0p0"), tp("t0p1")]),
         "b": Member("b", ("t0",))},
        group.cluster,
        lags=group.lags,
    )
    withholding = assignment(a="t0p0", b="t0p2")
    assert metrics_record(group, withholding, previous, 1, 2) == fresh(group, withholding)
    assert metrics_record(revoking, withholding, previous, 1, 2) == fresh(revoking, withholding)
    assert fresh(revoking, withholding) != fresh(group, withholding)
    reordered = assignment(b="t0p1 t0p2", a="t0p0")
    assert list(metrics_record(group, reordered, previous, 1, 2)["lag_per_member"]) == ["b", "a"]
    assert metrics_record(group, now, previous, 2, 2) == fresh(group, now, 2)
    assert fresh(group, now, 2) != fresh(group, now)


def test_clean_validity_record_is_the_general_record():
    """A valid assignment with nothing withheld takes a shortcut in ``as_dict``: the record is
    the one the general path writes for empty lists (the keys in the same order)."""
    clean = Validity(2)
    assert clean.is_clean
    assert list(clean.as_dict().items()) == [
        ("valid", True),
        ("expected_owners", 2),
        ("double_owned", []),
        ("unowned", []),
        ("non_subscriber", []),
        ("unknown", []),
        ("withheld", []),
    ]
    withheld = Validity(1, withheld=(TopicPartition("t", 0),))
    assert not withheld.is_clean and withheld.as_dict()["withheld"] == [["t", 0]]
    group = GroupSubscription(
        {"a": Member("a", ("t",)), "b": Member("b", ("t",))}, Cluster({"t": 2})
    )
    assignment = GroupAssignment.from_partitions(
        {"a": [TopicPartition("t", 0)], "b": [TopicPartition("t", 1)]}
    )
    record = round_metrics(group, assignment).as_dict()
    assert (record["valid"], record["complete"], record["problems"], record["problem_count"]) == (
        True, True, "", 0
    )
    broken = round_metrics(group, GroupAssignment.from_partitions(
        {"a": [TopicPartition("t", 0)], "b": []}
    )).as_dict()
    assert (broken["valid"], broken["complete"], broken["problem_count"]) == (False, False, 1)
    assert broken["problems"] == "unowned: t-1"
