"""Every uniform scenario and round of shared/golden/kip848/assign.jsonl: our result == Java's.

Java's tie-breaks follow the JDK 17 iteration order of its hash tables; the orders we compute
from the inputs are checked against the ``java_order`` Java recorded.
"""

from __future__ import annotations

from assignframe_server_uniform import topic_order

from assignframe.replay.server import server_rounds
from assignframe.testing import server_golden
from assignframe.testing.server_golden import GoldenRounds

SCENARIOS = server_golden.scenarios("uniform", start=__file__)


class TestUniformGolden(GoldenRounds):
    assignor_name = "server:uniform"
    golden_counts = (121, 412)


def test_computed_topic_order_is_javas():
    checked = 0
    for scenario in SCENARIOS:
        for round_ in server_rounds(scenario):
            expected = round_.java["java_order"].get("topics")
            if round_.spec.subscription_type != "homogeneous" or expected is None:
                continue
            names = [round_.topic_names[t] for t in topic_order(round_.spec)]
            assert names == expected, f"{scenario['id']} round {round_.index}"
            checked += 1
    assert checked > 200


def test_jdk_sensitive_and_doc_example_scenarios_are_covered():
    ids = {s["id"] for s in SCENARIOS}
    assert {"kip848-0033-uniform-homog-medium", "kip848-0104-uniform-crafted"} <= ids
    assert any(s["category"] == "doc-example" for s in SCENARIOS)
