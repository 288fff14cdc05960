"""server:simple against Apache Kafka 4.3.1's own ``SimpleAssignor`` (group type share), run by
``assignframe.testing.java43_oracle`` from the 4.3.1 broker's group-coordinator jar.

The golden file was made with trunk (4.5.0-SNAPSHOT): every simple round of it, fed to 4.3.1 on
its own, gives the recorded result, so trunk's golden data is 4.3.1's too; and generated share
groups give 4.3.1's result through the plugin. Shrunk differences go to
``java43_differences.jsonl`` beside this file (replayed first).
"""

from __future__ import annotations

from pathlib import Path

from assignframe_server_simple import SimpleAssignor

from assignframe.testing import server_golden
from assignframe.testing.server_differential import (
    check_against_java,
    differential_settings,
    recheck_case,
    saved_cases,
)

FOUND = Path(__file__).with_name("java43_differences.jsonl")
SCENARIOS = server_golden.scenarios("simple", start=__file__)


def golden_requests():
    """Each recorded simple round with the complete topic map it saw."""
    for scenario in SCENARIOS:
        topics = scenario["topics"]
        for round_ in scenario["rounds"]:
            topics = round_.get("topics", topics)
            yield scenario["id"], round_, {**round_, "topics": topics}


def test_every_golden_simple_round_is_kafka_4_3s(assignframe_java43_oracle):
    compared = 0
    for scenario_id, round_, request in golden_requests():
        fields = ("members", "topics", "unassignable", "subscription_type", "java_order")
        answer = assignframe_java43_oracle.assign(
            "simple", {k: request[k] for k in fields if k in request}
        )
        where = f"{scenario_id} round {round_['round']}"
        assert answer["result"] == round_["result"], where
        assert answer.get("result_missing", []) == round_.get("result_missing", []), where
        compared += 1
    assert compared == 221


def test_generated_share_groups_match_kafka_4_3(assignframe_java43_oracle):
    for case in saved_cases(FOUND) if FOUND.exists() else ():
        recheck_case(SimpleAssignor(), assignframe_java43_oracle, case)
    # 1,000 (not 2,000): 4.3.1's Simple* sources are trunk's, which test_differential.py runs
    # 2,000 groups against; this env stays within its time on a loaded machine
    compared = check_against_java(SimpleAssignor(), assignframe_java43_oracle, FOUND, "share", 1000)
    assert compared >= differential_settings(1000).max_examples
