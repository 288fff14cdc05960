"""Every simple scenario and round of shared/golden/kip848/assign.jsonl: our result == Java's.

Including the rounds where Java's result breaks the share-group contract (partitions of topics
nobody subscribes to kept, uninitialized partitions kept): reproduced and flagged.
"""

from __future__ import annotations

from assignframe_server_simple import SimpleAssignor, topic_subscribers

from assignframe.replay.server import server_rounds
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


def test_computed_topic_orders_are_javas():
    checked = 0
    for scenario in SCENARIOS:
        for round_ in server_rounds(scenario):
            expected = round_.java["java_order"].get("topics")
            if expected is None:
                continue
            spec = round_.spec
            if spec.subscription_type == "homogeneous":
                ours = spec.subscribed_topic_ids(spec.member_ids()[0])
            else:
                ours = tuple(topic_subscribers(spec))
            assert [round_.topic_names[t] for t in ours] == expected
            checked += 1
    assert checked > 150
