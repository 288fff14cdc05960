"""Every simple scenario and round of shared/golden/kip848/assign.jsonl: our result == Java's.

Including the rounds where Java's result breaks the share-group contract (partitions of topics
nobody subscribes to kept, uninitialized partitions kept): reproduced and flagged.
"""

from __future__ import annotations

from assignframe_server_simple import SimpleAssignor, topic_subscribers

from assignframe import HOMOGENEOUS
from assignframe.testing import server_golden
from assignframe.testing.server_golden import GoldenRounds

SCENARIOS = server_golden.scenarios("simple", start=__file__)


class TestSimpleGolden(GoldenRounds):
    assignor_name = "server:simple"
    golden_counts = (63, 221)


def test_javas_invalid_results_are_reproduced_and_flagged():
    flagged = {}
    for scenario in SCENARIOS:
        replay = server_golden.assert_matches_java(SimpleAssignor(), scenario)
        flagged.update(
            {(scenario["id"], r.round.index): r.violations for r in replay.rounds if r.violations}
        )
    assert set(flagged) == {
        ("kip848-0255-simple-crafted", 0),
        ("kip848-0265-simple-edge", 1),
        ("kip848-0265-simple-edge", 2),
        ("kip848-0266-simple-edge", 1),
        ("kip848-0266-simple-edge", 2),
    }
    assert (
        "6 uninitialized partition(s) of t0 assigned" in flagged[("kip848-0255-simple-crafted", 0)]
    )


def _topic_order(spec):
    if spec.subscription_type == HOMOGENEOUS:
        return spec.subscribed_topic_ids(spec.member_ids()[0])
    return tuple(topic_subscribers(spec))


def test_computed_topic_orders_are_javas():
    assert server_golden.assert_topic_orders_are_javas(SCENARIOS, _topic_order) > 150
