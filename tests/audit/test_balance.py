"""The least balance score a group allows, and `assign` saying when a score is it (issue 22)."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest

from assignframe.audit.balance import least_balance_score
from assignframe.cli import main
from assignframe.metrics import balance_score
from assignframe.model import Cluster, GroupSubscription, Member

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "unbalanced.json"


def _every_split(group: GroupSubscription) -> int:
    """The least score by trying every owner of every partition (small groups only)."""
    partitions = [(t, p) for t, n in group.cluster.partitions_per_topic.items() for p in range(n)]
    choices = [
        [m for m, member in group.members.items() if topic in member.topics] or [None]
        for topic, _ in partitions
    ]
    best = None
    for owners in itertools.product(*choices):
        counts = dict.fromkeys(group.members, 0)
        for owner in owners:
            if owner is not None:
                counts[owner] += 1
        score = balance_score(counts.values())
        best = score if best is None else min(best, score)
    return best or 0


@pytest.mark.parametrize("seed", range(8))
def test_the_least_score_is_what_trying_every_split_finds(seed):
    rng = random.Random(seed)
    for _ in range(40):
        topics = {f"t{i}": rng.randint(0, 3) for i in range(rng.randint(1, 3))}
        members = {
            f"m{i}": Member(f"m{i}", tuple(rng.sample(sorted(topics), rng.randint(0, len(topics)))))
            for i in range(rng.randint(1, 4))
        }
        group = GroupSubscription(members, Cluster(topics), 1, {}, None)
        assert least_balance_score(group) == _every_split(group), (topics, members)


def test_assign_says_when_the_balance_score_is_the_least_possible(capsys):
    """`assign --strategy fair docs/examples/unbalanced.json` printed "balance score 16" for
    the best split of 8 partitions over 10 members, without saying it is the best."""
    assert main(["assign", "--strategy", "fair", str(EXAMPLE)]) == 0
    assert "balance score 16 (the least possible for this group)," in capsys.readouterr().out
    assert main(["assign", "--strategy", "range", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "balance score 46 (the least possible for this group is 16)," in out


def test_assign_runs_a_broker_assignor_on_a_consumer_protocol_group(tmp_path, capsys):
    group = tmp_path / "consumer.yaml"
    group.write_text(
        "group_type: consumer\npartitions_per_topic: {t: 4}\nmembers:\n"
        "  a: {topics: [t], owned_partitions: [[t, 0], [t, 1], [t, 2], [t, 3]]}\n"
        "  b: {topics: [t]}\n"
    )
    assert main(["assign", str(group), "--strategy", "server:uniform", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["assignment"] == {"a": [["t", 0], ["t", 1]], "b": [["t", 2], ["t", 3]]}
    assert result["metrics"]["partitions_moved"] == 2  # from what a owned: b takes two
    assert result["least_balance_score"] == result["metrics"]["balance_score"] == 0
