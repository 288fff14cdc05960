"""Time lag-aware on large groups: the refinement must stay well under a second.

    python plugins/assignframe-lagaware/bench/large_group.py [--members 50] [--partitions 2000]

Four groups of ``--members`` members and ``--partitions`` partitions (in 1 or 10 topics, equal
or partly unequal subscriptions, Pareto lags); for each, the best of ``--repeat`` runs of the
proposal's pass alone and of the full strategy, and the max/min total lag each reaches.
"""

from __future__ import annotations

import argparse
import random
import time

from assignframe import (
    Cluster,
    GroupSubscription,
    Member,
    Strategy,
    TopicPartition,
    get_plugin_manager,
)


def large_group(
    seed: int, members: int, partitions: int, topics: int, unequal: bool
) -> GroupSubscription:
    rnd = random.Random(seed)
    names = [f"t{k}" for k in range(topics)]
    counts = {t: partitions // topics for t in names}
    subscriptions = {}
    for j in range(members):
        chosen = [t for t in names if not unequal or rnd.random() < 0.7] or names[:1]
        subscriptions[f"c{j:03d}"] = Member(f"c{j:03d}", tuple(chosen))
    lags = {
        TopicPartition(t, p): int(rnd.paretovariate(1.2) * 100)
        for t in names
        for p in range(counts[t])
    }
    return GroupSubscription(subscriptions, Cluster(counts), lags=lags)


def measure(group: GroupSubscription, strategy: Strategy, repeat: int) -> tuple[float, float]:
    """(best wall time in seconds, max/min total lag per member)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        assignment = strategy.assign(group)
        best = min(best, time.perf_counter() - start)
    lags = group.lags or {}
    totals = [sum(lags[tp] for tp in assignment.partitions_of(m)) for m in group.members]
    return best, max(totals) / max(1, min(totals))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=50)
    parser.add_argument("--partitions", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    pm = get_plugin_manager()
    strategies = {
        "proposal": pm.strategy("lag-aware", refine=False),
        "lag-aware": pm.strategy("lag-aware"),
    }
    print("| topics | subscriptions | proposal: ms, max/min | lag-aware: ms, max/min |")
    print("|---:|---|---|---|")
    for topics in (1, 10):
        for unequal in (False, True):
            group = large_group(1, args.members, args.partitions, topics, unequal)
            cells = []
            for strategy in strategies.values():
                seconds, ratio = measure(group, strategy, args.repeat)
                cells.append(f"{seconds * 1000:.0f} ms, {ratio:.3f}")
            kind = "partly unequal" if unequal else "equal"
            print(f"| {topics} | {kind} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
