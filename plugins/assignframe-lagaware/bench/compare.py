"""Measure lag-aware against range and roundrobin on random groups with skewed lags.

    python plugins/assignframe-lagaware/bench/compare.py [--groups 20000] [--seed 1]

Prints the markdown table of docs/strategies.md ("Lag balance"). Groups: 1-3 topics of 1-8
partitions, 2-4 members with partly unequal subscriptions, Pareto-distributed lags. A comparison
counts only groups where both strategies give the same partition-count balance (the same sorted
partitions-per-member), as the issue asks; the ratio is max/min total lag per member.
"""

from __future__ import annotations

import argparse
import random
import statistics

from assignframe import Cluster, GroupSubscription, Member, TopicPartition, get_plugin_manager


def random_group(rnd: random.Random) -> GroupSubscription:
    topics = [f"t{k}" for k in range(rnd.randint(1, 3))]
    counts = {t: rnd.randint(1, 8) for t in topics}
    members = {}
    for j in range(rnd.randint(2, 4)):
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


def compare(groups: int, seed: int) -> list[str]:
    pm = get_plugin_manager()
    contenders = {
        "lag-aware": pm.strategy("lag-aware"),
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
            group = random_group(rnd)
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
    args = parser.parse_args()
    print("\n".join(compare(args.groups, args.seed)))


if __name__ == "__main__":
    main()
