"""Measure lag-aware against range and roundrobin on random groups with skewed lags.

    python plugins/assignframe-lagaware/bench/compare.py [--groups 20000] [--seed 1] [--shape small]

Prints the markdown tables of docs/strategies.md ("Lag balance"). Groups (``--shape``): small,
1-3 topics of 1-8 partitions and 2-4 members, where lag-aware's exact search nearly always
finishes; medium, 1-4 topics of 8-32 partitions and 2-8 members, where it mostly stops at its
budget. Subscriptions
are partly unequal, lags Pareto-distributed. A comparison counts only groups where both
strategies give the same partition-count balance (the same sorted partitions-per-member), as the
issue asks; the ratio is max/min total lag per member.
"""

from __future__ import annotations

import argparse
import random
import statistics
from typing import NamedTuple

from assignframe import Cluster, GroupSubscription, Member, TopicPartition, get_plugin_manager


class Shape(NamedTuple):
    topics: tuple[int, int]
    partitions_per_topic: tuple[int, int]
    members: tuple[int, int]


SHAPES = {
    "small": Shape(topics=(1, 3), partitions_per_topic=(1, 8), members=(2, 4)),
    "medium": Shape(topics=(1, 4), partitions_per_topic=(8, 32), members=(2, 8)),
}


def random_group(rnd: random.Random, shape: Shape = SHAPES["small"]) -> GroupSubscription:
    topics = [f"t{k}" for k in range(rnd.randint(*shape.topics))]
    counts = {t: rnd.randint(*shape.partitions_per_topic) for t in topics}
    members = {}
    for j in range(rnd.randint(*shape.members)):
        subscribed = (
            tuple(topics)
            if rnd.random() < 0.5
            else (tuple(t for t in topics if rnd.random() < 0.8) or (topics[0],))
        )
        members[f"c{j}"] = Member(f"c{j}", subscribed)
    lags = {
        TopicPartition(t, p): int(rnd.paretovariate(1.2) * 100)
        for t in topics
        for p in range(counts[t])
    }
    return GroupSubscription(members, Cluster(counts), lags=lags)


def balance(group: GroupSubscription, strategy) -> tuple[list[int], float]:
    assignment = strategy.assign(group)
    lags = group.lags or {}
    totals = [sum(lags.get(tp, 0) for tp in assignment.partitions_of(m)) for m in group.members]
    counts = sorted(len(assignment.partitions_of(m)) for m in group.members)
    low, high = min(totals), max(totals)
    return counts, (high / low if low else (1.0 if not high else float("inf")))


def compare(groups: int, seed: int, shape: Shape = SHAPES["small"]) -> list[str]:
    pm = get_plugin_manager()
    contenders = {
        "lag-aware": pm.strategy("lag-aware"),
        "lag-aware search_budget=0 (swaps only)": pm.strategy("lag-aware", search_budget=0),
        "lag-aware refine=False (the proposal verbatim)": pm.strategy("lag-aware", refine=False),
    }
    peers = {"range": pm.strategy("range"), "roundrobin": pm.strategy("roundrobin")}
    rows = [
        "| strategy | vs | comparable groups | better | equal | worse "
        "| median max/min (ours / theirs) |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for name, ours in contenders.items():
        rnd = random.Random(seed)
        tally = {peer: [0, 0, 0, [], []] for peer in peers}
        for _ in range(groups):
            group = random_group(rnd, shape)
            counts, ratio = balance(group, ours)
            for peer, theirs in peers.items():
                their_counts, their_ratio = balance(group, theirs)
                if counts != their_counts:
                    continue
                row = tally[peer]
                row[
                    0 if ratio < their_ratio - 1e-9 else 2 if ratio > their_ratio + 1e-9 else 1
                ] += 1
                row[3].append(ratio)
                row[4].append(their_ratio)
        for peer, (better, equal, worse, mine, theirs) in tally.items():
            rows.append(
                f"| {name} | {peer} | {better + equal + worse} | {better} | {equal} | "
                f"{worse} | {statistics.median(mine):.3f} / {statistics.median(theirs):.3f} |"
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--shape", choices=sorted(SHAPES), default="small")
    args = parser.parse_args()
    print("\n".join(compare(args.groups, args.seed, SHAPES[args.shape])))


if __name__ == "__main__":
    main()
