"""The cluster reader's paths no local broker serves, against a loopback responder answering
with Java's bytes (tests/cluster/responder.py): share and streams groups, a coordinator that
moves during a pass, an API a broker lacks."""

from __future__ import annotations

import json

import assignframe_codec as codec
import pytest

from assignframe.cli import main

from .responder import (
    LoopbackCluster,
    classic_group,
    failures,
    golden_line,
    golden_lines,
    kip848_group,
)

CLASSIC = "orders-processor"  # Java's real_classic_stable group: 3 sticky members, 9 partitions


@pytest.fixture
def cluster():
    made: list[LoopbackCluster] = []

    def make(**settings) -> LoopbackCluster:
        made.append(LoopbackCluster(**settings))
        return made[-1]

    yield make
    for one in made:
        assert failures(one) == []  # every request was one the responder could answer
        one.close()


def _inspect(capsys, cluster: LoopbackCluster, *args: str) -> tuple[int, str, list[str]]:
    code = main(["inspect", "--bootstrap-server", cluster.bootstrap, "--timeout", "30", *args])
    out, err = capsys.readouterr()
    return code, out, err.strip().splitlines()


def test_framing_reproduces_javas_frames():
    """The responder frames bodies with the codec's encode_frame: every golden framed response
    (admin and kip848) comes out byte for byte as Java's SendBuilder wrote it."""
    framed = [line for line in golden_lines().values()
              if line["type"].endswith("Response") and "framed_hex" in line]
    assert len(framed) > 40
    for line in framed:
        body = codec.decode(line["type"], bytes.fromhex(line["hex"]), line["version"])
        made = codec.encode_frame(line["type"], line["framed"]["header"], body, line["version"])
        assert made.hex() == line["framed_hex"], (line["type"], line["version"], line["case"])


def _share_counts(value: dict) -> dict[str, tuple[int, int]]:
    """member -> (partitions held, epoch), from Java's JSON view of the body."""
    return {m["member_id"]: (sum(len(t["partitions"]) for t in m["assignment"]["topic_partitions"]),
                             m["member_epoch"]) for m in value["groups"][0]["members"]}


def _task_sets(assignment: dict | None) -> dict[str, set]:
    return {kind: {(t["subtopology_id"], p) for t in (assignment or {}).get(kind, [])
                   for p in t["partitions"]}
            for kind in ("active_tasks", "standby_tasks", "warmup_tasks")}


NO_SHARE_OFFSETS = "does not support DescribeShareGroupOffsets: what it answers is not read"


def test_share_and_streams_groups_are_judged(cluster, capsys, tmp_path):
    """Share and streams groups are listed, described with their own APIs and judged from what
    was read: members, partitions or tasks per member, members behind the assignment epoch or
    reconciling (Java's golden bodies, counted from Java's JSON view), each a snapshot line. The
    responder has no DescribeShareGroupOffsets: said once (exit 1), the backlog unknown."""
    loop = cluster().add(classic_group(), kip848_group("share", "share-a"),
                         kip848_group("streams", "streams-a"))
    code, out, err = _inspect(capsys, loop, "--out", str(tmp_path))
    share = golden_line("ShareGroupDescribeResponse", 1, "rand_06")["value"]
    streams = golden_line("StreamsGroupDescribeResponse", 1, "rand_06")["value"]
    held = _share_counts(share)
    assignment_epoch = share["groups"][0]["assignment_epoch"]
    behind = [m for m, (_, epoch) in held.items() if epoch < assignment_epoch]
    streams_members = streams["groups"][0]["members"]
    active = [len(_task_sets(m["assignment"])["active_tasks"]) for m in streams_members]
    reconciling = [m for m in streams_members
                   if _task_sets(m["assignment"]) != _task_sets(m["target_assignment"])]
    assert len(held) == 4 and behind and reconciling  # the data has something to judge

    assert code == 1
    assert len(err) == 1 and err[0].endswith(NO_SHARE_OFFSETS)
    # no OffsetFetch for a share group: Kafka answers it GROUP_ID_NOT_FOUND ("not a consumer
    # group"), as the responder does; a share group's progress is not a committed offset
    assert [api for _, api, _, ids in loop.log if "share-a" in ids] == \
        ["FindCoordinator", "ShareGroupDescribe"]
    assert [api for _, api, _, ids in loop.log if "streams-a" in ids] == \
        ["FindCoordinator", "StreamsGroupDescribe", "OffsetFetch"]

    verdicts = {g["group_id"]: g for g in
                json.loads((tmp_path / "verdicts.json").read_text())["groups"]}
    share_v, streams_v = verdicts["share-a"], verdicts["streams-a"]
    counts = [n for n, _ in held.values()]
    assert share_v["unreadable"] is None and share_v["members"] == 4
    assert share_v["spread"] == max(counts) - min(counts)
    assert share_v["detail"]["behind"] == sorted(behind, key=list(held).index)
    assert sorted(share_v["detail"]["idle"]) == sorted(m for m, (n, _) in held.items() if not n)
    assert share_v["detail"]["backlog"] is None  # not read: unknown, never 0
    assert f"{len(behind)} member(s) behind assignment epoch {assignment_epoch}" in \
        "; ".join(share_v["problems"])
    assert streams_v["unreadable"] is None and streams_v["members"] == len(streams_members)
    assert streams_v["spread"] == max(active) - min(active)
    assert len(streams_v["detail"]["reconciling"]) == len(reconciling)
    assert f"{len(reconciling)} member(s) reconciling" in "; ".join(streams_v["problems"])
    assert verdicts[CLASSIC]["unreadable"] is None and verdicts[CLASSIC]["members"] == 3
    assert verdicts[CLASSIC]["partitions"] == 9 and verdicts[CLASSIC]["spread"] == 0
    snapshots = [json.loads(s) for s in (tmp_path / "snapshots.jsonl").read_text().splitlines()]
    # every group with members is a snapshot line the audit reads, whatever its type
    assert sorted((s["group_id"], s.get("group_type")) for s in snapshots) == sorted(
        [(CLASSIC, "classic"), ("share-a", "share"), ("streams-a", "streams")])
    # the table: the judged groups with problems first, never "not judged"
    assert "not judged" not in out
    assert out.index("share-a") < out.index(CLASSIC) and out.index("streams-a") < \
        out.index(CLASSIC)


def test_share_and_streams_type_filter(cluster, capsys):
    """--type share reads the share group only: no other describe API is sent."""
    loop = cluster().add(classic_group(), kip848_group("share", "share-a"),
                         kip848_group("streams", "streams-a"))
    code, out, err = _inspect(capsys, loop, "--type", "share", "--json")
    assert code == 1 and len(err) == 1 and err[0].endswith(NO_SHARE_OFFSETS)
    (line,) = [json.loads(x) for x in out.splitlines()]  # the share group's snapshot line
    assert (line["group_type"], line["group_id"]) == ("share", "share-a")
    sent = {api for _, api, _, _ in loop.log}
    assert "ShareGroupDescribe" in sent
    assert not sent & {"DescribeGroups", "StreamsGroupDescribe", "ConsumerGroupDescribe"}


def test_coordinator_moves_during_a_pass(cluster, capsys):
    """FindCoordinator first has no coordinator, then names node 1; node 1 answers
    NOT_COORDINATOR; FindCoordinator then names node 2, which is still loading the group once
    (COORDINATOR_LOAD_IN_PROGRESS): the reader retries each time and reads the group from 2."""
    loop = cluster(node_ids=(1, 2)).add(classic_group())
    loop.coordinators[CLASSIC] = [1, 2]
    for node in (1, 2):  # whichever node the reader asks first
        loop.errors[(node, "FindCoordinator", CLASSIC)] = ["COORDINATOR_NOT_AVAILABLE"]
    loop.errors[(1, "DescribeGroups", CLASSIC)] = ["NOT_COORDINATOR"]
    loop.errors[(2, "DescribeGroups", CLASSIC)] = ["COORDINATOR_LOAD_IN_PROGRESS"]

    code, out, err = _inspect(capsys, loop, "--json")
    assert code == 0, err
    assert err == []
    snapshot = json.loads(out)
    assert snapshot["group_id"] == CLASSIC and len(snapshot["members"]) == 3
    assert [node for node, _ in loop.requests("DescribeGroups")] == [1, 2, 2]
    assert [node for node, _ in loop.requests("OffsetFetch")] == [2]
    finds = loop.requests("FindCoordinator")
    assert len(finds) >= 4 and all(ids == (CLASSIC,) for _, ids in finds)
    assert loop.errors[(1, "DescribeGroups", CLASSIC)] == [] and \
        loop.errors[(2, "DescribeGroups", CLASSIC)] == []  # every error was answered
    assert [] in (loop.errors[(1, "FindCoordinator", CLASSIC)],
                  loop.errors[(2, "FindCoordinator", CLASSIC)])


def test_coordinator_moves_before_offsets_are_fetched(cluster, capsys):
    """The group moves between its describe and its OffsetFetch: OffsetFetch's group-level
    NOT_COORDINATOR is retried on the new coordinator like the describe's."""
    loop = cluster(node_ids=(1, 2)).add(classic_group())
    loop.coordinators[CLASSIC] = [1, 2]
    loop.errors[(1, "OffsetFetch", CLASSIC)] = ["NOT_COORDINATOR"]

    code, out, err = _inspect(capsys, loop, "--json")
    assert code == 0, err
    assert [node for node, _ in loop.requests("OffsetFetch")] == [1, 2]
    snapshot = json.loads(out)
    assert snapshot["group_id"] == CLASSIC
    # Java's committed offsets (read from node 2) reached the lags: end offset (the responder's
    # ListOffsets: 100000) minus what Java's OffsetFetch body committed; a partition without a
    # committed offset (or with UNSTABLE_OFFSET_COMMIT) has no lag: null, never 0
    fetched = golden_line("OffsetFetchResponse", 8, "real_offset_fetch_two_groups")["value"]
    committed = {(t["name"], p["partition_index"]): p["committed_offset"]
                 for t in fetched["groups"][0]["topics"] for p in t["partitions"]
                 if p["error_code"] == 0}
    assert snapshot["partition_lags"] == {
        topic: [100_000 - committed[(topic, p)] if (topic, p) in committed else None
                for p in range(count)] for topic, count in loop.topics.items()}


def test_an_api_the_broker_lacks_is_said_once(cluster, capsys):
    """A broker whose ApiVersions has no ConsumerGroupDescribe: the notice names the API and
    the broker once, the consumer groups are skipped (never sent to it, never shown healthy),
    the classic group is read, exit 1."""
    loop = cluster(lacks={1: {"ConsumerGroupDescribe"}}).add(
        classic_group(), kip848_group("consumer", "cons-a"),
        kip848_group("consumer", "cons-b", case="rand_07"))
    code, out, err = _inspect(capsys, loop, "--json")
    assert code == 1
    notice = (f"assignframe: skipped: broker 1 ({loop.bootstrap}) does not support "
              "ConsumerGroupDescribe: what it answers is not read")
    assert err.count(notice) == 1
    assert sorted(line for line in err if line != notice) == [
        f"assignframe: skipped: group {g}: broker 1 does not support ConsumerGroupDescribe"
        for g in ("cons-a", "cons-b")]
    assert loop.requests("ConsumerGroupDescribe") == []
    assert [json.loads(line)["group_id"] for line in out.splitlines()] == [CLASSIC]
