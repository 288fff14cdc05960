"""inspect's --limit line counts what it leaves out by kind (the live behaviour is in
tests/cluster/test_inspect_triage.py, on a real broker)."""

from __future__ import annotations

from assignframe.cli.inspect_view import left_out_line, limited
from assignframe.cluster.inspection import GroupVerdict
from assignframe.snapshot.problems import GroupProblem


def _verdicts() -> list[GroupVerdict]:
    broken = GroupVerdict("g-broken", None, None, unreadable="OffsetFetch: NOT_COORDINATOR")
    busy = GroupVerdict("g-busy", "classic", "Stable", members=2,
                        problems=[GroupProblem("1 idle member(s)", "idle")])
    calm = GroupVerdict("g-calm", "consumer", "Stable", members=1)
    offsets = GroupVerdict("g-offsets", "classic", "Empty",
                           problems=[GroupProblem("no members; lag 7 on 1 committed "
                                                  "partition(s)", "no-members")])
    quiet = GroupVerdict("g-quiet", "classic", "Empty")
    return [broken, busy, calm, offsets, quiet]


def test_limited_keeps_the_first_rows_and_returns_the_rest():
    rows = _verdicts()
    assert limited(rows, None) == (rows, [])
    kept, left = limited(rows, 2)
    assert [v.group_id for v in kept] == ["g-broken", "g-busy"]
    assert [v.group_id for v in left] == ["g-calm", "g-offsets", "g-quiet"]


def test_the_line_counts_members_without_unreadable_and_problems_apart():
    assert left_out_line(_verdicts()) == (
        "5 more group(s) not shown (2 with members, 2 without, 1 unreadable; 3 with problems): "
        "--limit 0 shows every row, --state/--problem/--group narrow them")
    assert left_out_line(_verdicts()[3:]) == (
        "2 more group(s) not shown (0 with members, 2 without; 1 with problems): "
        "--limit 0 shows every row, --state/--problem/--group narrow them")


def test_the_lag_column_of_a_share_group_is_its_backlog():
    """A share group commits nothing: its LAG cell is the broker's backlog (the sum of its
    share-partitions' lag), as --detail and the HTML page show it; unknown stays unknown."""
    from assignframe.cli.inspect_view import _cells
    from assignframe.model import TopicPartition
    from assignframe.snapshot.share import PartitionBacklog, ShareMember, ShareSnapshot

    tp = TopicPartition("jobs", 0)
    share = ShareSnapshot("queue", "Stable", 3, 3, "simple",
                          [ShareMember("m", "w", None, 3, ("jobs",), (tp,))], {"jobs": 1},
                          {tp: PartitionBacklog(5, 12, 7)})
    verdict = GroupVerdict("queue", "share", "Stable", members=1, share_streams=share)
    assert verdict.behind() == 7 and _cells(verdict, "-")[7] == "7"
    share.backlog = {tp: PartitionBacklog(None, 12, None)}
    assert verdict.behind() is None and _cells(verdict, "-")[7] == "-"
    assert GroupVerdict("g", "classic", "Stable", lag=4).behind() == 4
