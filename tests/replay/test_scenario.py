"""Reading scenario files: JSON lines, one JSON object, YAML; errors name file, line, field."""

from __future__ import annotations

import io
import json
import re

import pytest

from assignframe.errors import ScenarioError
from assignframe.replay.scenario import cluster_of, lags_of, read_scenarios, validate_scenario

SCENARIO = {
    "id": "s1",
    "assignor": "modulo",
    "partitions_per_topic": {"t": 2},
    "rounds": [{"round": 0, "generation": 1, "members": {"a": {"topics": ["t"]}}}],
}


def test_json_lines(tmp_path):
    path = tmp_path / "s.jsonl"
    second = dict(SCENARIO, id="s2")
    path.write_text(json.dumps(SCENARIO) + "\n\n" + json.dumps(second) + "\n")
    assert [s["id"] for s in read_scenarios(path)] == ["s1", "s2"]


def test_single_pretty_printed_object(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCENARIO, indent=2))
    assert list(read_scenarios(path)) == [SCENARIO]


def test_yaml_documents(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "id: y1\npartitions_per_topic: {t: 1}\nrounds:\n- members: {a: {topics: [t]}}\n"
        "---\nid: y2\npartitions_per_topic: {t: 1}\nrounds:\n- members: {a: {topics: [t]}}\n"
    )
    assert [s["id"] for s in read_scenarios(path)] == ["y1", "y2"]


def test_stream():
    assert [s["id"] for s in read_scenarios(io.StringIO(json.dumps(SCENARIO)))] == ["s1"]


def test_error_names_file_line_and_field(tmp_path):
    path = tmp_path / "bad.jsonl"
    broken = json.loads(json.dumps(SCENARIO))
    broken["rounds"][0]["members"]["a"]["topics"] = "t"
    path.write_text(json.dumps(SCENARIO) + "\n" + json.dumps(broken) + "\n")
    with pytest.raises(ScenarioError) as caught:
        list(read_scenarios(path))
    assert (
        str(caught.value) == f"{path}:2: rounds[0].members.a.topics: expected a list of topic names"
    )


def test_bad_json_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(SCENARIO) + "\n{oops\n")
    with pytest.raises(ScenarioError, match=r"bad.jsonl:2: not JSON"):
        list(read_scenarios(path))


def test_missing_file():
    with pytest.raises(ScenarioError, match="nope.jsonl: cannot read"):
        list(read_scenarios("nope.jsonl"))


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"partitions_per_topic": {"t": -1}}, "partitions_per_topic['t']"),
        ({"partitions_per_topic": [3]}, "partitions_per_topic"),
        ({"partitions_per_topic": {"t": 3_000_000, "u": 3_000_000}}, "partitions_per_topic"),
        ({"rounds": []}, "rounds"),
        ({"id": 7}, "id"),
        ({"partition_racks": {"t": "r0"}}, "partition_racks"),
        ({"rounds": [{"members": {}}]}, "rounds[0].members"),
        (
            {"rounds": [{"members": {"a": {"topics": ["t"]}}, "generation": "1"}]},
            "rounds[0].generation",
        ),
        (
            {"rounds": [{"members": {"a": {"topics": ["t"]}}, "followup": True}]},
            "rounds[0].followup",
        ),
        (
            {"rounds": [{"members": {"a": {"topics": ["t"], "rack": 1}}}]},
            "rounds[0].members.a.rack",
        ),
        ({"crafted": True}, "rounds[0].subscriptions.a.hex"),
        (
            {"rounds": [{"members": {"a": {"topics": ["t"]}}, "lags": {"t": ["x"]}}]},
            "rounds[0].lags",
        ),
    ],
)
def test_validation_names_the_field(change, field):
    with pytest.raises(ScenarioError, match=f"^here: {re.escape(field)}: "):
        validate_scenario({**SCENARIO, **change}, "here")


def test_conversions():
    cluster = cluster_of({"t": 2}, {"t": [["r0"], ["r0", "r1"]]})
    assert cluster.partition_racks == {"t": (("r0",), ("r0", "r1"))}
    assert lags_of({"t": [3, 4]}) == {cluster.partitions("t")[0]: 3, cluster.partitions("t")[1]: 4}
