"""Benchmark of the sticky and cooperative-sticky strategies (run on demand; prints a table).

    python bench/bench_sticky.py            # the full cases (a few minutes, ~3 GB RAM at peak)
    python bench/bench_sticky.py --quick    # smaller sizes, for a smoke run

Cases (Java's figures from Java 4.0 / JDK 17 on 2 cores, for comparison):

A. 500 topics x 2,000 partitions (1M), 2,000 consumers, all subscribed to all, fresh
B. A's topics, a balanced prior assignment (generation 1, carried as each protocol carries it:
   StickyAssignor user data for ``sticky``, owned partitions + generation for
   ``cooperative-sticky``), 10% of the consumers gone
C. 100 topics x 200 partitions, 500 consumers; consumer i subscribes to the first half of the
   topics if i % 4 == 0, else to the second half; fresh
D. C's pattern at 200 topics x 200 partitions, 2,000 consumers, fresh
E. 200 topics x 100 partitions, 1,000 consumers, each subscribing to a seeded random 10-60
   topics (nearly every consumer its own topic set, as rolling deployments produce), fresh
E2. E's result as the prior assignment (carried as in B), every 10th consumer gone, 50 new
   consumers with seeded random subscriptions

Each (case, strategy) runs in its own subprocess: the input is built, ``assign`` is called once to
warm up, then timed ``--repeat`` times (median reported); peak memory is the subprocess's
``ru_maxrss`` (input included), next to the RSS just before the first ``assign``.

K. kafka-python's ``StickyPartitionAssignor`` against ours on 50 topics x 800 partitions, 800
   consumers, fresh; kafka-python runs in a subprocess capped by ``--kafka-python-timeout``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from types import SimpleNamespace

JAVA_SECONDS = {
    ("A", "sticky"): 0.26,
    ("B", "sticky"): 2.2,
    ("C", "sticky"): 2.5,
    ("D", "sticky"): 30.0,
    ("A", "cooperative-sticky"): 0.29,
    ("B", "cooperative-sticky"): 1.1,
    ("C", "cooperative-sticky"): 2.4,
    ("D", "cooperative-sticky"): 26.0,
    # Java's StickyAssignor on E's input, warm median (issue 14); not measured for E2
    ("E", "sticky"): 92.0,
}
FULL = {
    "A": (500, 2000, 2000),
    "C": (100, 200, 500),
    "D": (200, 200, 2000),
    "E": (200, 100, 1000),
    "K": (50, 800, 800),
}
QUICK = {
    "A": (50, 2000, 200),
    "C": (20, 100, 100),
    "D": (40, 100, 400),
    "E": (200, 100, 100),
    "K": (10, 200, 200),
}
CASES = ("A", "B", "C", "D", "E", "E2")
#: E's random subscriptions: each consumer a seeded 10-60 of the topics
MIXED_SEED, MIXED_LOW, MIXED_HIGH = 14, 10, 60
STRATEGIES = ("sticky", "cooperative-sticky")


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# -- building inputs --------------------------------------------------------------------------


def _topics(count: int) -> list[str]:
    return [f"topic-{i:04d}" for i in range(count)]


def _fresh_group(topics, partitions, consumers, split: bool):
    from assignframe import Cluster, GroupSubscription, Member

    half = len(topics) // 2
    members = {}
    for i in range(consumers):
        mine = (topics[:half] if i % 4 == 0 else topics[half:]) if split else topics
        members[f"consumer-{i:05d}"] = Member(f"consumer-{i:05d}", tuple(mine))
    return GroupSubscription(members, Cluster(dict.fromkeys(topics, partitions)), 1)


def _mixed_group(topics, partitions, consumers, seed=MIXED_SEED):
    """Case E: every consumer subscribes a seeded random 10-60 of the topics."""
    import random

    from assignframe import Cluster, GroupSubscription, Member

    chooser = random.Random(seed)
    members = {}
    for i in range(consumers):
        mine = chooser.sample(topics, chooser.randint(MIXED_LOW, min(MIXED_HIGH, len(topics))))
        members[f"consumer-{i:05d}"] = Member(f"consumer-{i:05d}", tuple(sorted(mine)))
    return GroupSubscription(members, Cluster(dict.fromkeys(topics, partitions)), 1)


def _with_joiners(strategy, group, joiners: int):
    """Case E2: E's result as prior ownership, every 10th consumer gone, ``joiners`` new
    consumers with random subscriptions (their own seed)."""
    from assignframe import GroupSubscription, Member

    survivors = _with_prior(strategy, group)
    topics = sorted(group.cluster.partitions_per_topic)
    partitions = group.cluster.partitions_per_topic[topics[0]]
    new = _mixed_group(topics, partitions, joiners, seed=MIXED_SEED + 1).members.values()
    members = dict(survivors.members)
    for i, member in enumerate(new):
        members[f"joiner-{i:05d}"] = Member(f"joiner-{i:05d}", member.topics)
    return GroupSubscription(members, group.cluster, survivors.generation)


def _with_prior(strategy, group):
    """Case B: a balanced generation-1 assignment carried as the protocol carries it, then 10%
    of the consumers gone."""
    from assignframe import GroupSubscription, Member, MemberState

    prior = strategy.assign(group)
    members = {}
    for i, (member_id, member) in enumerate(sorted(group.members.items())):
        if i % 10 == 9:
            continue
        state = strategy.on_assignment(prior.assignments[member_id], 1, MemberState())
        user_data = strategy.subscription_user_data(member.topics, state)
        cooperative = strategy.name == "cooperative-sticky"
        members[member_id] = Member(
            member_id,
            member.topics,
            owned_partitions=state.owned_partitions if cooperative else (),
            generation=1,
            user_data=user_data,
            decoded_user_data=strategy.decode_user_data(user_data, 3),
        )
    return GroupSubscription(members, group.cluster, 2)


def build_case(case: str, strategy, quick: bool, members: int | None = None):
    sizes = QUICK if quick else FULL
    if case in ("E", "E2"):
        topics, partitions, consumers = sizes["E"]
        group = _mixed_group(_topics(topics), partitions, members or consumers)
        return _with_joiners(strategy, group, 50) if case == "E2" else group
    if case in ("A", "B"):
        topics, partitions, consumers = sizes["A"]
        group = _fresh_group(_topics(topics), partitions, consumers, split=False)
        return _with_prior(strategy, group) if case == "B" else group
    topics, partitions, consumers = sizes[case]
    return _fresh_group(_topics(topics), partitions, consumers, split=True)


# -- one measurement (subprocess) ------------------------------------------------------------


def worker(
    case: str, strategy_name: str, quick: bool, repeat: int, members: int | None = None
) -> dict:
    from assignframe_sticky import CooperativeStickyStrategy, StickyStrategy

    strategy = {"sticky": StickyStrategy, "cooperative-sticky": CooperativeStickyStrategy}[
        strategy_name
    ]()
    group = build_case(case, strategy, quick, members)
    gc.collect()
    rss_before = _rss_mb()
    assignment = strategy.assign(group)  # warm-up (fills the TopicPartition cache)
    partitions = sum(len(a.partitions) for a in assignment.assignments.values())
    del assignment
    timings = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        assignment = strategy.assign(group)
        timings.append(time.perf_counter() - start)
        del assignment
    return {
        "case": case,
        "strategy": strategy_name,
        "partitions": partitions,
        "members": len(group.members),
        "median_s": statistics.median(timings),
        "min_s": min(timings),
        "rss_before_mb": rss_before,
        "peak_rss_mb": _rss_mb(),
    }


def kafka_python_worker(quick: bool) -> dict:
    """kafka-python 3.x StickyPartitionAssignor, fresh, on case K."""
    from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor

    topics, partitions, consumers = (QUICK if quick else FULL)["K"]
    names = _topics(topics)

    class Cluster:
        def topics(self):
            return set(names)

        def partitions_for_topic(self, topic):
            return set(range(partitions)) if topic in names else None

    members = [
        SimpleNamespace(
            member_id=f"consumer-{i:05d}",
            metadata=SimpleNamespace(topics=list(names), user_data=None),
        )
        for i in range(consumers)
    ]
    start = time.perf_counter()
    StickyPartitionAssignor().assign(Cluster(), members)
    return {"seconds": time.perf_counter() - start}


def ours_on_k(quick: bool) -> dict:
    from assignframe_sticky import StickyStrategy

    topics, partitions, consumers = (QUICK if quick else FULL)["K"]
    strategy = StickyStrategy()
    group = _fresh_group(_topics(topics), partitions, consumers, split=False)
    strategy.assign(group)
    timings = []
    for _ in range(5):
        start = time.perf_counter()
        strategy.assign(group)
        timings.append(time.perf_counter() - start)
    return {"seconds": statistics.median(timings)}


# -- driver -----------------------------------------------------------------------------------


def _run(args: list[str], timeout: float | None = None) -> dict | None:
    command = [sys.executable, os.path.abspath(__file__), *args]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None
    except subprocess.CalledProcessError as error:
        raise SystemExit(f"{' '.join(args)} failed:\n{error.stderr}") from None
    return json.loads(done.stdout.strip().splitlines()[-1])


def _print_row(case: str, name: str, row: dict, java: float | None) -> None:
    nan = float("nan")
    print(
        f"{case:4} {name:20} {row['partitions']:>10,} {row['members']:>7,} "
        f"{row['median_s']:>9.3f} {row['min_s']:>7.3f} "
        f"{1e6 * row['median_s'] / max(1, row['partitions']):>7.2f} "
        f"{java or nan:>7.2f} {java / row['median_s'] if java else nan:>7.1f} "
        f"{row['rss_before_mb']:>10.0f} {row['peak_rss_mb']:>8.0f}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (smoke run)")
    parser.add_argument(
        "--cases", default="A,B,C,D,E,E2", help="comma-separated cases (default A,B,C,D,E,E2)"
    )
    parser.add_argument(
        "--members", type=int, nargs="*", help="E/E2 only: consumer counts for a scaling table"
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed calls per case")
    parser.add_argument("--kafka-python-timeout", type=float, default=180.0)
    parser.add_argument("--skip-kafka-python", action="store_true")
    parser.add_argument("--worker", nargs=2, metavar=("CASE", "STRATEGY"), help=argparse.SUPPRESS)
    parser.add_argument("--worker-members", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--kafka-python-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--ours-on-k", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(*args.worker, args.quick, args.repeat, args.worker_members)))
        return
    if args.kafka_python_worker:
        print(json.dumps(kafka_python_worker(args.quick)))
        return
    if args.ours_on_k:
        print(json.dumps(ours_on_k(args.quick)))
        return
    quick = ["--quick"] if args.quick else []
    print(f"load average before: {os.getloadavg()[0]:.2f} (cpus: {os.cpu_count()})")
    header = (
        f"{'case':4} {'strategy':20} {'partitions':>10} {'members':>7} {'median s':>9} "
        f"{'min s':>7} {'us/part':>7} {'Java s':>7} {'x Java':>7} {'RSS pre MB':>10} {'peak MB':>8}"
    )
    print(header)
    print("-" * len(header))
    for case in args.cases.split(","):
        if case not in CASES:
            raise SystemExit(f"unknown case {case!r}: choose from {', '.join(CASES)}")
        for members in args.members or [None]:
            for name in STRATEGIES:
                extra = ["--worker-members", str(members)] if members else []
                row = _run(["--worker", case, name, "--repeat", str(args.repeat), *quick, *extra])
                java = None if quick or members else JAVA_SECONDS.get((case, name))
                _print_row(case, name, row, java)
    if not args.skip_kafka_python:
        ours = _run(["--ours-on-k", *quick])
        theirs = _run(["--kafka-python-worker", *quick], timeout=args.kafka_python_timeout)
        topics, partitions, consumers = (QUICK if args.quick else FULL)["K"]
        label = f"K: {topics}x{partitions} partitions, {consumers} consumers, fresh"
        if theirs is None:
            cap = args.kafka_python_timeout
            print(
                f"{label}: ours {ours['seconds']:.4f} s; kafka-python did not finish within "
                f"{cap:.0f} s: >= {cap / ours['seconds']:,.0f}x"
            )
        else:
            print(
                f"{label}: ours {ours['seconds']:.4f} s; kafka-python {theirs['seconds']:.1f} s: "
                f"{theirs['seconds'] / ours['seconds']:,.0f}x"
            )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
