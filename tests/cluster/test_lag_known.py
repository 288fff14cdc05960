"""Lag per member counts only partitions whose lag is known (issue 31 review, finding 2): a
member whose partitions were never committed has no lag (left out of ``member_lag``, no
``assignframe_member_lag`` series), and the lag spread and the lag-imbalance problem are over
the members whose lag is known. No broker: the snapshot is read from the JSON line
``inspect --json`` writes, and the verdict is built by the same functions ``inspect`` uses."""

from __future__ import annotations

from assignframe.audit.rows import current_metrics
from assignframe.cluster.exporter import WatchMetrics
from assignframe.cluster.inspection import GroupVerdict, _lag_problems, _lags
from assignframe.cluster.reader import GroupRead
from assignframe.metrics import lag_per_member
from assignframe.model import TopicPartition
from assignframe.snapshot import read_snapshot
from assignframe.snapshot.schema import SNAPSHOT_SCHEMA


def _member(member_id: str, partitions: list[int]) -> dict:
    return {"member_id": member_id, "client_id": f"client-{member_id}",
            "subscription": {"topics": ["t"]},
            "assignment": {"partitions": [["t", p] for p in partitions]}}


def _verdict(lags: list[int | None], owners: dict[str, list[int]]) -> GroupVerdict:
    """A consumer-protocol group on topic ``t`` whose partition ``p`` has lag ``lags[p]`` (None:
    never committed), owned as ``owners`` says, judged as ``inspect`` judges it."""
    snapshot = read_snapshot({
        "schema": SNAPSHOT_SCHEMA, "group_type": "consumer", "group_id": "g", "generation": 4,
        "group_state": "Stable", "assignor": "uniform", "topic_partitions": {"t": len(lags)},
        "partition_lags": {"t": lags},
        "members": [_member(m, ps) for m, ps in owners.items()]})
    group = GroupRead("g", "consumer", "Stable",
                      committed={TopicPartition("t", p): 0 for p, lag in enumerate(lags)
                                 if lag is not None})
    verdict = GroupVerdict("g", "consumer", "Stable", snapshot=snapshot,
                           lag=sum(lag for lag in lags if lag is not None))
    verdict.members, verdict.partitions = len(owners), len(lags)
    verdict.spread, verdict.lag_spread = (current_metrics(snapshot)[k]
                                          for k in ("spread", "lag_spread"))
    _lags(verdict, snapshot, group)
    verdict.problems = _lag_problems(verdict)
    return verdict


def _member_lag_series(verdict: GroupVerdict) -> dict[str, float]:
    metrics = WatchMetrics()
    metrics.up, metrics.verdicts = True, [verdict]
    family = next(f for f in metrics.families() if f.name == "assignframe_member_lag")
    return {s.labels["member"]: s.value for s in family.samples}


def test_a_member_with_only_uncommitted_partitions_has_no_lag_and_no_false_imbalance():
    """The review's example: A 2,000 behind, B owning only partitions never committed. B's lag
    is not known: no 0 for it, no series, and no "lag imbalance: A ..., B 0"."""
    verdict = _verdict([1500, 500, None, None], {"A": [0, 1], "B": [2, 3]})
    assert verdict.member_lag == {"A": 2000}
    assert verdict.lag == 2000 and verdict.lag_spread == 0
    assert not [p for p in verdict.problems if p.startswith("lag imbalance")], verdict.problems
    assert any(p.startswith("no commit on t-2, t-3") for p in verdict.problems)
    assert _member_lag_series(verdict) == {"A": 2000.0}


def test_imbalance_is_judged_between_members_whose_lag_is_known():
    """With C committed and caught up (0 behind, known), A against C is a real imbalance: the
    problem names C as the least behind, never B (unknown)."""
    verdict = _verdict([1500, 500, None, None, 0], {"A": [0, 1], "B": [2, 3], "C": [4]})
    assert verdict.member_lag == {"A": 2000, "C": 0}
    assert verdict.lag_spread == 2000
    assert "lag imbalance: A is 2000 records behind, C 0 (of 2000)" in verdict.problems
    assert _member_lag_series(verdict) == {"A": 2000.0, "C": 0.0}


def test_known_partitions_of_a_member_are_summed_the_unknown_ones_left_out():
    verdict = _verdict([1200, None, 300, None], {"A": [0, 1], "B": [2, 3]})
    assert verdict.member_lag == {"A": 1200, "B": 300}
    assert verdict.lag_spread == 900
    assert "lag imbalance: A is 1200 records behind, B 300 (of 1500)" in verdict.problems


def test_a_member_owning_nothing_is_zero_behind():
    """Owning nothing, a member is behind on nothing: 0 is known, not a guess."""
    snapshot = read_snapshot({
        "schema": SNAPSHOT_SCHEMA, "group_type": "consumer", "group_id": "g",
        "group_state": "Stable",
        "topic_partitions": {"t": 1}, "partition_lags": {"t": [7]},
        "members": [_member("A", [0]), _member("idle", [])]})
    assert lag_per_member(snapshot.current, snapshot.lags) == {"A": 7, "idle": 0}
