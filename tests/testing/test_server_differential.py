"""The differential kit: generated groups reach Java as they are, a disagreement is shrunk and
saved as a golden line, and saved lines replay."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

from assignframe.replay.server_input import server_rounds
from assignframe.server_assignor import ServerAssignment, ServerAssignor, ServerGroupSpec
from assignframe.testing import server_differential, server_golden
from assignframe.testing.server_differential import (
    DERANDOMIZE_ENV,
    EXAMPLES_ENV,
    check_against_java,
    java_answer,
    java_line,
    replay_saved,
)
from assignframe.testing.server_groups import kip848_scenarios


class EverythingToTheFirst(ServerAssignor):
    """Not Kafka's range: every subscribed partition to the first member in Python's order."""

    name = "range"

    def assign(self, group: ServerGroupSpec) -> ServerAssignment:
        first = min(group.members, default=None)
        if first is None:
            return ServerAssignment({})
        topics = {t: tuple(range(group.num_partitions(t))) for t in group.subscribed_topics(first)}
        return ServerAssignment({m: topics if m == first else {} for m in group.members})


@pytest.mark.parametrize(("assignor", "group_type"), [
    ("uniform", "consumer"), ("range", "consumer"), ("simple", "share")])  # fmt: skip
def test_generated_scenarios_are_rounds_java_accepts(assignframe_java_oracle, assignor, group_type):
    seen = []

    @settings(max_examples=40, deadline=None, database=None)
    @given(kip848_scenarios(assignor, group_type))
    def accepted(scenario):
        (round_,) = server_rounds(scenario)  # our reader takes it
        answer = java_answer(assignframe_java_oracle, assignor, scenario)  # so does Java's
        assert "result" in answer or answer["error"]["class"] != "KafkaGroupOracle$BadRequest"
        if "result" in answer:
            assert set(answer["result"]) == set(round_.spec.members)
        seen.append(len(round_.spec.members))

    accepted()
    assert len(seen) == 40 and max(seen) > 1


def test_a_disagreement_is_shrunk_and_saved_as_a_golden_line(
    assignframe_java_oracle, tmp_path, monkeypatch
):
    monkeypatch.setenv(EXAMPLES_ENV, "200")
    # the same groups every run: once in CI (a loaded run) a random first disagreement of many
    # members shrank only to 13 (hypothesis stops shrinking after 500 successful steps)
    monkeypatch.setenv(DERANDOMIZE_ENV, "1")
    found = tmp_path / server_differential.FOUND_FILE
    with pytest.raises(AssertionError, match=r"(?s)differ.*appended to .*java_differences"):
        check_against_java(EverythingToTheFirst(), assignframe_java_oracle, found)
    (line,) = found.read_text(encoding="utf-8").splitlines()
    case = json.loads(line)
    recorded = case["rounds"][0]
    assert case["assignor"] == "range" and case["id"].startswith("generated-range-")
    assert len(recorded["members"]) == 2, "shrunk to the smallest group that differs"
    # The line is Java's answer, in the golden file's format, and fails the wrong assignor.
    assert java_answer(assignframe_java_oracle, "range", case)["result"] == recorded["result"]
    with pytest.raises(AssertionError, match="!= Java's"):
        replay_saved(EverythingToTheFirst(), assignframe_java_oracle, found)


def test_a_golden_line_notes_the_contract_breaches_of_javas_result(assignframe_java_oracle):
    (scenario,) = [s for s in server_golden.scenarios("simple", start=__file__)
                   if s["id"] == "kip848-0255-simple-crafted"]  # fmt: skip
    one_round = {**scenario, "rounds": [scenario["rounds"][0]]}
    line = java_line(one_round, java_answer(assignframe_java_oracle, "simple", one_round))
    assert line["rounds"][0]["result"] == scenario["rounds"][0]["result"]
    assert "6 uninitialized partition(s) of t0 assigned" in line["rounds"][0]["violations"]
