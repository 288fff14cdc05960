"""Seeded comparison with Apache Kafka's own sticky assignors on random rack groups (a report,
not a test): ``python tests/compare_with_java.py GROUPS SEED`` (the README quotes 2000 7).

Each group: up to 5 members over up to 4 topics of up to 8 partitions, replica racks on every
partition (none, one or two of up to three racks), member racks or none, each partition owned
before by one of its subscribers or by nobody. Only groups where racks apply (Java's rule) are
counted. Per strategy it prints how often our first round and our settled result equal Java's
exactly, how often ours is worse (balance, then off-rack, then kept: must be 0), and whether a
settled result handed back moves: ours, Java's by Java, Java's by ours.
"""

from __future__ import annotations

import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from java_oracle import JavaMember, JavaStickyOracle  # noqa: E402
from support import _rack_aware, claims_of, kept, rack_mismatches, settled  # noqa: E402
from test_against_java import STRATEGIES, _as_sets, _java_settled, _ours, _squares  # noqa: E402

from assignframe import Cluster, GroupAssignment  # noqa: E402

RACKS = ("r1", "r2", "r3")


def random_group(rng: random.Random) -> tuple[Cluster, dict[str, JavaMember]]:
    topics = {t: rng.randint(0, 8) for t in "abcd"[: rng.randint(1, 4)]}
    racks = RACKS[: rng.randint(1, 3)]
    replicas = {
        t: tuple(
            tuple(sorted(rng.sample(racks, rng.randint(0, min(2, len(racks)))))) for _ in range(n)
        )
        for t, n in topics.items()
    }
    subscriptions = {
        f"m{i}": tuple(sorted(rng.sample(sorted(topics), rng.randint(1, len(topics)))))
        for i in range(rng.randint(1, 5))
    }
    owned: dict[str, list[tuple[str, int]]] = {m: [] for m in subscriptions}
    for topic, count in topics.items():
        subscribers = [m for m, mine in subscriptions.items() if topic in mine]
        for partition in range(count):
            owner = rng.choice([None, *subscribers])
            if owner is not None:
                owned[owner].append((topic, partition))
    members = {
        m: JavaMember(
            subscriptions[m],
            rng.choice([None, *racks]),
            1 if owned[m] else rng.choice([-1, 1]),
            tuple(owned[m]),
        )
        for m in subscriptions
    }
    return Cluster(topics, replicas), members


def _handed_back(members, assignment: GroupAssignment) -> dict[str, JavaMember]:
    return {
        m: JavaMember(x.topics, x.rack, 3, tuple(assignment.partitions_of(m)))
        for m, x in members.items()
    }


def compare(java, cluster: Cluster, members, name: str, counts: Counter) -> None:
    strategy = STRATEGIES[name]
    group = _ours(strategy, cluster, members)
    if not _rack_aware(group):
        return
    counts["groups"] += 1
    java_final = _java_settled(java, name, cluster, members)
    if java_final is None:
        counts["Java still moving after its follow-ups (skipped)"] += 1
        return
    java_first = java.assign(name, cluster, members)
    ours_first, ours = strategy.assign(group), settled(strategy, group)
    counts["first round equal to Java's"] += _as_sets(ours_first) == _as_sets(java_first)
    counts["settled equal to Java's"] += _as_sets(ours) == _as_sets(java_final)
    counts["same off-rack count in the first round"] += rack_mismatches(
        group, ours_first
    ) == rack_mismatches(group, java_first)
    ours_score = (_squares(ours), rack_mismatches(group, ours))
    java_score = (_squares(java_final), rack_mismatches(group, java_final))
    if ours_score == java_score:
        claims = claims_of(group, cooperative=name == "cooperative-sticky")
        ours_score += (-kept(ours, claims),)
        java_score += (-kept(java_final, claims),)
    counts["worse than Java (balance, off-rack, kept)"] += ours_score > java_score
    again = _ours(strategy, cluster, _handed_back(members, ours))
    counts["ours handed back moves"] += _as_sets(strategy.assign(again)) != _as_sets(ours)
    java_again = java.assign(name, cluster, _handed_back(members, java_final))
    counts["Java's handed back to Java moves"] += _as_sets(java_again) != _as_sets(java_final)
    javas = _ours(strategy, cluster, _handed_back(members, java_final))
    counts["Java's handed to ours moves"] += _as_sets(strategy.assign(javas)) != _as_sets(
        java_final
    )


def main(groups: int, seed: int) -> None:
    rng = random.Random(seed)
    java = JavaStickyOracle(Path(tempfile.mkdtemp(prefix="sticky-oracle-")))
    per_strategy = {name: Counter() for name in STRATEGIES}
    try:
        for _ in range(groups):
            cluster, members = random_group(rng)
            for name, counts in per_strategy.items():
                compare(java, cluster, members, name, counts)
    finally:
        java.close()
    for name, counts in per_strategy.items():
        print(name)
        for key in sorted(counts):
            print(f"  {key}: {counts[key]}")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
