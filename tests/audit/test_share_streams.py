"""The audit of share and Streams groups (assignframe.audit.share_streams): their snapshot lines
read back, measured, and the broker's assignor replayed on them.

The replay is checked against Kafka's own results: every share-group round of
``shared/golden/kip848/assign.jsonl`` (Kafka's ``SimpleAssignor``) and every round of the
Streams golden file made by Kafka 4.3.1's ``StickyTaskAssignor``
(``plugins/assignframe-server-streams/tests/golden_kafka43.jsonl``), each turned into the
snapshot of a group whose members hold that round's input: the audit's prediction must be Java's
result, member for member.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from assignframe_codec.strings import java_string_key

from assignframe.audit import AuditOptions, run_audit
from assignframe.audit.group import audit_group, snapshot_view
from assignframe.audit.rerun import AuditContext
from assignframe.audit.rows import COLUMN_NAMES
from assignframe.errors import MalformedSnapshot
from assignframe.model import TopicPartition
from assignframe.snapshot import read_snapshot, snapshot_to_dict
from assignframe.snapshot.share import PartitionBacklog, ShareMember, ShareSnapshot
from assignframe.snapshot.streams import StreamsGroupMember, StreamsSnapshot

ROOT = Path(__file__).resolve().parents[2]
SHARE_GOLDEN = ROOT.parent / "shared" / "golden" / "kip848" / "assign.jsonl"
STREAMS_GOLDEN = (ROOT / "plugins" / "assignframe-server-streams" / "tests"
                  / "golden_kafka43.jsonl")


@pytest.fixture(scope="module")
def context():
    return AuditContext.create(("range",))


# --------------------------------------------------------------------------- Java's share rounds
def _share_rounds():
    assert SHARE_GOLDEN.is_file(), f"{SHARE_GOLDEN} is missing (shared/golden)"
    for line in SHARE_GOLDEN.read_text().splitlines():
        scenario = json.loads(line)
        if scenario["assignor"] != "simple":
            continue
        topics = scenario["topics"]
        for round_ in scenario["rounds"]:
            topics = round_.get("topics", topics)
            held = [entry for m in round_["members"].values() for entry in m["current"]]
            if round_.get("unassignable") or any(e[0] not in topics for e in held):
                continue  # uninitialized partitions, a deleted topic's: not in a describe
            yield f"{scenario['id']}-r{round_['round']}", topics, round_


def _share_snapshot(topics, round_) -> ShareSnapshot:
    """A share group whose members hold the round's input (``current``)."""
    members = [ShareMember(
        member_id, None, None, 5, tuple(spec["topics"]),
        tuple(TopicPartition(t, p) for t, p in spec["current"]))
        for member_id, spec in sorted(round_["members"].items(),
                                      key=lambda item: java_string_key(item[0]))]
    return ShareSnapshot("golden", "Stable", 5, 5, "simple", members,
                         {t: v["partitions"] for t, v in topics.items()},
                         topic_ids={t: v["id"] for t, v in topics.items()})


SHARE_ROUNDS = list(_share_rounds())


def test_share_golden_rounds_are_there():
    assert len(SHARE_ROUNDS) >= 60


@pytest.mark.parametrize("name,topics,round_", SHARE_ROUNDS, ids=[r[0] for r in SHARE_ROUNDS])
def test_the_share_replay_is_kafkas_simple_assignor(context, name, topics, round_):
    snapshot = _share_snapshot(topics, round_)
    rows, detail = audit_group(0, snapshot_to_dict(snapshot), context, detail=True)
    (strategy,) = detail["strategies"]
    assert strategy["strategy"] == "server:simple" and strategy["error"] is None
    expected = {m: sorted(map(list, pairs)) for m, pairs in round_["result"].items()}
    predicted = {m: sorted(pairs) for m, pairs in strategy["assignment"].items() if pairs}
    assert predicted == {m: p for m, p in expected.items() if p}, name
    assert rows[0]["recommendation"] == "server:simple"


# --------------------------------------------------------------------------- Java's Streams rounds
def _streams_rounds():
    assert STREAMS_GOLDEN.is_file(), f"{STREAMS_GOLDEN} is missing"
    return [json.loads(line) for line in STREAMS_GOLDEN.read_text().splitlines()]


STREAMS_ROUNDS = [r for r in _streams_rounds() if r["request"]["members"]]


def _labels(by_subtopology) -> tuple[str, ...]:
    return tuple(f"{s}_{p}" for s, ps in (by_subtopology or {}).items() for p in ps)


def _streams_snapshot(request) -> StreamsSnapshot:
    """A Streams group whose members' target (and held tasks) are the round's input; each
    sub-topology reads one topic of its task count."""
    subtopologies = request["subtopologies"]
    members = []
    for m in request["members"]:
        tasks = {kind: tuple(sorted(_labels(m.get(kind)))) for kind in
                 ("active", "standby", "warmup")}
        members.append(StreamsGroupMember(m["member_id"], None, None, m["process_id"], 3,
                                          tasks, dict(tasks)))
    return StreamsSnapshot(
        "golden", "Stable", 3, 3, 1, "sticky", members,
        {s: (f"input-{s}",) for s in subtopologies},
        partitions={f"input-{s}": v["partitions"] for s, v in subtopologies.items()},
        stateful=tuple(s for s, v in subtopologies.items() if v.get("stateful")),
        num_standby_replicas=int(request["configs"]["num.standby.replicas"]))


@pytest.mark.parametrize("golden", STREAMS_ROUNDS, ids=[r["id"] for r in STREAMS_ROUNDS])
def test_the_streams_replay_is_kafkas_sticky_task_assignor(context, golden):
    snapshot = _streams_snapshot(golden["request"])
    _, detail = audit_group(0, snapshot_to_dict(snapshot), context, detail=True)
    (strategy,) = detail["strategies"]
    assert strategy["strategy"] == "streams:sticky" and strategy["error"] is None
    expected = {m: sorted([f"subtopology {s}", p] for s, p in tasks["active"])
                for m, tasks in golden["result"].items()}
    predicted = {m: sorted(pairs) for m, pairs in strategy["assignment"].items()}
    assert predicted == expected, golden["id"]


# --------------------------------------------------------------------------- measuring, lines
def _share() -> ShareSnapshot:
    a = TopicPartition("jobs", 0), TopicPartition("jobs", 1)
    b = TopicPartition("jobs", 2), TopicPartition("jobs", 3)
    return ShareSnapshot(
        "queue", "Stable", 7, 7, "simple",
        [ShareMember("m-a", "worker-a", "/10.0.0.1", 7, ("jobs",), a),
         ShareMember("m-b", "worker-b", "/10.0.0.2", 6, ("jobs",), b),
         ShareMember("m-c", "worker-c", "/10.0.0.3", 7, ("jobs",), ())],
        {"jobs": 4},
        {tp: PartitionBacklog(10, 20 + i, i) for i, tp in enumerate(a + b)},
        ["a note"], {"jobs": "YRLHTDSGR8qwBRtNOefNvQ"}, 1795951316.5)


def _streams() -> StreamsSnapshot:
    return StreamsSnapshot(
        "app", "Reconciling", 4, 4, 4, "sticky",
        [StreamsGroupMember("t-1", "app-1", None, "p1", 4,
                            {"active": ("0_0", "0_1"), "standby": (), "warmup": ()},
                            {"active": ("0_0",), "standby": (), "warmup": ()}),
         StreamsGroupMember("t-2", "app-2", None, "p2", 3,
                            {"active": (), "standby": ("0_0",), "warmup": ()},
                            {"active": ("0_1",), "standby": ("0_0",), "warmup": ()})],
        {"0": ("words",)}, {"0_0": 5, "0_1": None}, [], {"words": 2}, ("0",), 1)


def test_share_and_streams_snapshots_read_back_as_written():
    for snapshot in (_share(), _streams()):
        line = json.dumps(snapshot_to_dict(snapshot))
        assert read_snapshot(line) == snapshot


@pytest.mark.parametrize("change,where", [
    ({"group_id": None}, "missing group_id"),
    ({"group_epoch": "7"}, "group_epoch is not an integer"),
    ({"members": {"m-a": 1}}, "members is not a list"),
    ({"subscribed": {"jobs": -1}}, "subscribed['jobs']: a partition count is 0 .. 2,147,483,648"),
    ({"subscribed": {"jobs": 2**31 + 1}}, "subscribed['jobs']: a partition count is 0 .. "),
    ({"subscribed": {"jobs": 4_000_000, "more": 4_000_000}},
     "subscribed: its topics total 8,000,000 partitions; the tools replay groups of at most"),
    ({"partitions": [{"topic": "jobs", "partition": 0, "lag": "x"}]}, "lag is not an integer"),
])
def test_a_malformed_share_line_says_what_is_wrong(change, where):
    with pytest.raises(MalformedSnapshot, match=where.replace("[", r"\[").replace("]", r"\]")):
        read_snapshot(snapshot_to_dict(_share()) | change)


def test_a_streams_line_larger_than_a_replay_holds_is_refused():
    line = snapshot_to_dict(_streams()) | {"topic_partitions": {"in": 6_000_000}}
    with pytest.raises(MalformedSnapshot, match=r"topic_partitions: its topics total 6,000,000"):
        read_snapshot(line)


def test_a_streams_member_with_a_bad_task_says_which():
    line = snapshot_to_dict(_streams())
    line["members"][0]["tasks"]["active"] = ["zero"]
    with pytest.raises(MalformedSnapshot, match=r"member 't-1' tasks: not a task label"):
        read_snapshot(line)


def test_a_share_groups_row(context):
    (row,), _ = audit_group(3, snapshot_to_dict(_share()), context)
    assert set(row) == set(COLUMN_NAMES)
    assert (row["group_type"], row["members"], row["topics"], row["partitions"]) == (
        "share", 3, 1, 4)
    # 2, 2 and 0 partitions: one idle member, balance sum |a - b| over pairs = 0 + 2 + 2
    assert (row["current_spread"], row["current_idle_members"],
            row["current_balance_score"]) == (2, 1, 4)
    # backlog per member: 0 + 1 and 2 + 3; the idle member holds nothing (0)
    assert row["current_lag_spread"] == 5
    assert row["current_valid"] and row["reconciling_members"] == 1  # m-b at epoch 6
    assert row["attention"] == "reconciling"
    assert row["strategy"] == row["recommendation"] == "server:simple"
    assert row["valid"] and row["idle_members"] == 0  # simple gives the idle member a share


def test_a_streams_groups_row_and_its_problems(context):
    (row,), detail = audit_group(0, snapshot_to_dict(_streams()), context, detail=True)
    assert (row["group_type"], row["members"], row["partitions"]) == ("streams", 2, 2)
    # both tasks held once, the standby of 0_0 on the other process: valid
    assert row["current_valid"] and row["current_problems"] == ""
    assert (row["current_spread"], row["current_idle_members"]) == (2, 1)
    assert row["current_lag_spread"] is None  # 0_1's lag is not known
    # t-1 holds 0_1 its target gave t-2; t-2 is at epoch 3 of 4
    assert row["reconciling_members"] == 2 and row["attention"] == "reconciling"
    assert detail["target"] == {"t-1": [["subtopology 0", 0]], "t-2": [["subtopology 0", 1]]}
    assert detail["current"]["assignment"] == {
        "t-1": [["subtopology 0", 0], ["subtopology 0", 1]], "t-2": []}


def test_the_report_section_of_a_captured_snapshot_covers_share_groups():
    view = snapshot_view(snapshot_to_dict(_share()), "a.pcap")
    assert view["group_type"] == "share" and view["members"] == ["m-a", "m-b", "m-c"]
    assert view["assignment"]["m-a"] == [["jobs", 0], ["jobs", 1]]
    assert view["metrics"]["idle_members"] == 1 and view["reconciling"] == ["m-b"]


def test_the_audit_reads_a_fleet_of_every_group_type(tmp_path):
    lines = [snapshot_to_dict(_share()), snapshot_to_dict(_streams()),
             snapshot_to_dict(_share()) | {"group_id": None}]
    source = tmp_path / "fleet.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    summary = run_audit(source, tmp_path / "out", AuditOptions(("range",), processes=1,
                                                               progress=False))
    assert (summary["groups"], summary["share_groups"], summary["streams_groups"],
            summary["malformed"]) == (2, 1, 1, 1)
    assert summary["group_types"] == {"classic": 0, "consumer": 0, "share": 1, "streams": 1}


def test_a_streams_groups_lag_is_known_only_when_every_tasks_is():
    streams = _streams()
    assert streams.total_lag() is None  # 0_1's lag is not known
    streams.task_lags["0_1"] = 3
    assert streams.total_lag() == 8 and streams.subtopology_lags() == {"0": 8}
