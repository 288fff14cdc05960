"""Every uniform scenario and round of shared/golden/kip848/assign.jsonl: our result == Java's.

Java's tie-breaks follow the JDK 17 iteration order of its hash tables; the orders we compute
from the inputs are checked against the ``java_order`` Java recorded.
"""

from __future__ import annotations

from assignframe_server_uniform import topic_order

from assignframe import HOMOGENEOUS
from assignframe.testing import server_golden
from assignframe.testing.server_golden import GoldenRounds

SCENARIOS = server_golden.scenarios("uniform", start=__file__)


class TestUniformGolden(GoldenRounds):
    assignor_name = "server:uniform"
    golden_counts = (121, 412)


def test_computed_topic_order_is_javas():
    def homogeneous(spec):
        return topic_order(spec) if spec.subscription_type == HOMOGENEOUS else None

    assert server_golden.assert_topic_orders_are_javas(SCENARIOS, homogeneous) > 200


def test_jdk_sensitive_and_doc_example_scenarios_are_covered():
    ids = {s["id"] for s in SCENARIOS}
    assert {"kip848-0033-uniform-homog-medium", "kip848-0104-uniform-crafted"} <= ids
    assert any(s["category"] == "doc-example" for s in SCENARIOS)
