"""Scenario files: the shipped ones load; broken ones fail naming the file and the field."""

from __future__ import annotations

import json

import pytest

from assignframe.errors import ScenarioError
from assignframe.simulate import load_scenario, parse_scenario, shipped_scenarios

SHIPPED = {p.stem for p in shipped_scenarios()}


def test_every_promised_scenario_is_shipped():
    assert {
        "kip49-fair",
        "kip54-example-1",
        "kip54-example-2",
        "kip54-example-3",
        "lag-aware",
        "unbalanced-group",
        "rolling-restart",
        "rolling-migration",
    } <= SHIPPED


@pytest.mark.parametrize("path", shipped_scenarios(), ids=lambda p: p.stem)
def test_shipped_scenario_loads(path):
    scenario = load_scenario(path)
    assert scenario.name == path.stem
    assert scenario.steps and scenario.topics
    assert all(step.events for step in scenario.steps)


def test_json_is_accepted(tmp_path):
    path = tmp_path / "tiny.json"
    path.write_text(
        json.dumps({"topics": {"t": 2}, "steps": [{"events": [{"join": "a", "topics": ["t"]}]}]})
    )
    scenario = load_scenario(path)
    assert scenario.name == "tiny"
    assert scenario.steps[0].events[0].describe() == "a joins (t)"


def _write(tmp_path, text):
    path = tmp_path / "broken.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("topics: {t: 2}\nsteps: []\n", "steps"),
        ("topics: {t: -1}\nsteps: [{events: [{join: a, topics: [t]}]}]\n", "topics.t.partitions"),
        ("topics: {t: 2}\nsteps: [{events: [{leave: a}]}]\n", "steps[0].events[0].leave"),
        ("topics: {t: 2}\nsteps: [{events: [{join: a}]}]\n", "steps[0].events[0].join.topics"),
        (
            "topics: {t: 2}\nsteps: [{events: [{join: a, topics: [t], colour: red}]}]\n",
            "steps[0].events[0].join",
        ),
        (
            "topics: {t: 2}\nsteps: [{events: [{join: a, topics: [t]}, {lag: t, values: [1]}]}]\n",
            "steps[0].events[1].lag",
        ),
        (
            "topics: {t: {partitions: 2, racks: [[r1]]}}\n"
            "steps: [{events: [{join: a, topics: [t]}]}]\n",
            "topics.t.racks",
        ),
        (
            "topics: {t: 2}\nsteps: [{events: [{join: a, topics: [t]}]},\n"
            " {events: [{add_partitions: t, partitions: 1}]}]\n",
            "steps[1].events[0].add_partitions",
        ),
        (
            "topics: {t: 2}\nsteps: [{events: [{join: a, topics: [t], leave: a}]}]\n",
            "steps[0].events[0]",
        ),
        ("topics: {t: 2}\nstepz: []\n", "(top level)"),
    ],
)
def test_errors_name_file_and_field(tmp_path, text, field):
    path = _write(tmp_path, text)
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert str(caught.value).startswith(f"{path}: {field}:")


def test_unparsable_yaml_names_the_file(tmp_path):
    path = _write(tmp_path, "topics: {t: [\n")
    with pytest.raises(ScenarioError, match="broken.yaml: not valid YAML"):
        load_scenario(path)


def test_missing_file_is_a_scenario_error(tmp_path):
    with pytest.raises(ScenarioError, match="cannot read"):
        load_scenario(tmp_path / "nope.yaml")


def test_pinned_when_every_join_names_strategies():
    document = {
        "topics": {"t": 1},
        "steps": [
            {
                "events": [
                    {"join": "a", "topics": ["t"], "strategies": ["range"]},
                    {"join": "b", "topics": ["t"], "strategies": ["range"]},
                ]
            }
        ],
    }
    assert parse_scenario(document).pinned
    document["steps"][0]["events"][1].pop("strategies")
    assert not parse_scenario(document).pinned
