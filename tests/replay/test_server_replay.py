"""Reading KIP-848 scenarios (golden/kip848/assign.jsonl), their input orders, contract checks."""

from __future__ import annotations

import io
import json
from functools import cache

import pytest

from assignframe import ServerAssignment, Uuid
from assignframe.errors import ScenarioError
from assignframe.replay.server import contract_violations
from assignframe.replay.server_input import (
    is_server_scenario,
    open_scenarios,
    read_server_scenarios,
    server_rounds,
)
from assignframe.testing.paths import shared_path

GOLDEN = shared_path(__file__) / "golden" / "kip848" / "assign.jsonl"
ID_A = "AAECAwQFBgcICQoLDA0ODw"
ID_GONE = "DwAAAAAAAAAAAAAAAAAAAA"


@cache
def golden() -> tuple[dict, ...]:
    with GOLDEN.open(encoding="utf-8") as lines:
        return tuple(json.loads(line) for line in lines)


def scenario(**round0) -> dict:
    base = {
        "id": "s",
        "assignor": "uniform",
        "group_type": "consumer",
        "topics": {"a": {"id": ID_A, "partitions": 3}},
        "rounds": [{"round": 0, "members": {"m": {"topics": ["a"], "current": []}}}],
    }
    base["rounds"][0].update(round0)
    return base


def test_every_golden_round_gets_javas_member_order():
    rounds = 0
    for recorded in golden():
        for round_ in server_rounds(recorded):
            assert list(round_.spec.member_ids()) == round_.java["java_order"]["members"]
            assert round_.spec.subscription_type == round_.java["subscription_type"]
            rounds += 1
    print(f"member order and subscription type equal Java's in {rounds} rounds")
    assert rounds == 912


def test_topic_map_carries_forward_and_deleted_ids_are_kept():
    recorded = next(s for s in golden() if s["id"] == "kip848-0266-simple-edge")
    rounds = list(server_rounds(recorded))
    deleted = Uuid.from_string("vcq3EfxgT4S1vNPya02xMQ")
    assert deleted in rounds[0].spec.topics and deleted not in rounds[1].spec.topics
    assert rounds[2].spec.topics == rounds[1].spec.topics  # round 2 gives no map: unchanged
    held = {t for m in rounds[1].spec.members.values() for t, _ in m.current}
    assert deleted in held and rounds[1].topic_names[deleted] == "t2"


def test_current_keeps_record_order_and_empty_topics():
    value = scenario(
        members={
            "m": {
                "topics": ["a"],
                "current": [["a", 2], ["gone", 1, ID_GONE], ["a", 0]],
                "current_empty_topics": ["a"],
            }
        }
    )
    (round_,) = server_rounds(value)
    current = round_.spec.members["m"].current
    assert current == ((Uuid.from_string(ID_A), (2, 0)), (Uuid.from_string(ID_GONE), (1,)))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"members": []}, r"rounds\[0\]: members: expected an object"),
        ({"members": {"m": {"topics": "a"}}}, r"members\.m: topics: expected a list"),
        ({"members": {"m": {"topics": [], "current": [["zz", 0]]}}}, "'zz' is not in the"),
        ({"members": {"m": {"topics": [], "current": [["a", "0"]]}}}, "current: expected"),
        ({"topics": {"a": {"id": "nope", "partitions": 1}}}, "topics.a.id: a Uuid string"),
        ({"topics": {"a": {"id": ID_A, "partitions": -1}}}, "partitions: expected int >= 0"),
    ],
)
def test_malformed_rounds_name_scenario_round_and_field(change, message):
    with pytest.raises(ScenarioError, match=message):
        list(server_rounds(scenario(**change)))


def test_detection_and_reading(tmp_path):
    assert is_server_scenario(golden()[0])
    assert not is_server_scenario({"id": "x", "rounds": [], "partitions_per_topic": {}})
    path = tmp_path / "one.jsonl"
    path.write_text("\n" + json.dumps(scenario()) + "\n")
    detected, stream = open_scenarios(path)
    with stream:
        assert detected and [s["id"] for s in read_server_scenarios(stream)] == ["s"]
    with pytest.raises(ScenarioError, match="x.jsonl:1: not JSON"):
        list(read_server_scenarios(io.StringIO("{oops\n"), "x.jsonl"))
    with pytest.raises(ScenarioError, match="cannot read"):
        open_scenarios(tmp_path / "missing.jsonl")


def test_contract_violations_name_member_topic_and_count():
    value = scenario(
        members={
            "m": {"topics": ["a"], "current": []},
            "n": {"topics": [], "current": []},
        }
    )
    (round_,) = server_rounds(value)
    a, gone = Uuid.from_string(ID_A), Uuid.from_string(ID_GONE)
    assert contract_violations(round_, ServerAssignment({"m": {a: (0, 1, 2)}})) == ()
    broken = ServerAssignment({"m": {a: (0, 1)}, "n": {a: (1,), gone: (4,)}})
    assert contract_violations(round_, broken) == (
        "n holds 1 partition(s) of a which it does not subscribe to",
        f"n holds 1 partition(s) of deleted topic id {gone} (?)",
        "1 partition(s) of a assigned to nobody",
        "1 partition(s) of a assigned more than once",
    )


def test_a_rounds_member_order_is_the_coordinators_insertion_order():
    members = {m: {"topics": ["a"], "current": []} for m in ("m", "n")}
    (round_,) = server_rounds(scenario(members=members, member_order=["n", "m"]))
    assert round_.spec.member_order == ("n", "m")
    (default,) = server_rounds(scenario(members=members))
    assert default.spec.member_order is None


@pytest.mark.parametrize("order", [["m"], ["m", "m"], ["m", "x"], "m,n"])
def test_a_member_order_that_is_not_the_rounds_members_is_named(order):
    members = {m: {"topics": ["a"], "current": []} for m in ("m", "n")}
    with pytest.raises(ScenarioError, match=r"s: rounds\[0\].*member_order.*every member id"):
        list(server_rounds(scenario(members=members, member_order=order)))
