"""Benchmark of the sticky and cooperative-sticky strategies (run on demand; prints a table).

    python bench/bench_sticky.py            # the full cases (a few minutes, ~3 GB RAM at peak)
    python bench/bench_sticky.py --quick    # smaller sizes, for a smoke run

Cases (each also run through Apache Kafka's own ``StickyAssignor`` / ``CooperativeStickyAssignor``
from ``shared/java/clients``, in the same run: see below):

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

Java: ``bench/java/StickyAssignorPerf.java`` is compiled with ``javac`` against the kafka-clients
jar in ``shared/java/clients/lib`` and run (one JVM) right before each Python measurement of the
same (case, strategy), on the same input (written to a file: topics, subscriptions; for B and E2
Java computes the generation-1 assignment with its own assignor, which the golden tests show equal
to ours). Same warm-up and ``--repeat``; its log is set to warn (the assignor's INFO line prints the
whole assignment). ``x Java`` is Python's median over Java's. ``--no-java`` skips it.

K. kafka-python's ``StickyPartitionAssignor`` against ours on 50 topics x 800 partitions, 800
   consumers, fresh; kafka-python runs in a subprocess capped by ``--kafka-python-timeout``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from types import SimpleNamespace

JAVA_SOURCE = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "java", "StickyAssignorPerf.java"
)
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


# -- Java's side ------------------------------------------------------------------------------


def _spec(indexes: list[int]) -> str:
    """Topic indexes as ranges: ``0-499`` (the Java harness expands them)."""
    parts, start = [], None
    for i, index in enumerate(indexes):
        if start is None:
            start = index
        if i + 1 == len(indexes) or indexes[i + 1] != index + 1:
            parts.append(str(start) if start == index else f"{start}-{index}")
            start = None
    return ",".join(parts)


def java_case_file(case: str, quick: bool, path: str, members: int | None = None) -> None:
    """The input of ``case`` for StickyAssignorPerf (see its header), as build_case makes it."""
    sizes = QUICK if quick else FULL
    topics, partitions, consumers = sizes["E" if case == "E2" else "A" if case == "B" else case]
    names = _topics(topics)
    index = {name: i for i, name in enumerate(names)}
    if case in ("E", "E2"):
        group = _mixed_group(names, partitions, members or consumers)
    else:
        group = _fresh_group(names, partitions, consumers, split=case in ("C", "D"))
    lines = [f"topics {topics} {partitions}"]
    if case in ("B", "E2"):
        lines.append("prior")
    lines += [f"member {m} {_spec(sorted(index[t] for t in group.members[m].topics))}"
              for m in sorted(group.members)]
    if case == "E2":
        new = _mixed_group(names, partitions, 50, seed=MIXED_SEED + 1).members.values()
        lines += [f"joiner joiner-{i:05d} {_spec(sorted(index[t] for t in m.topics))}"
                  for i, m in enumerate(new)]
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")


def compile_java(build_dir: str) -> list[str]:
    """javac StickyAssignorPerf; returns the command that runs it (arguments follow)."""
    from assignframe.testing import shared_path

    lib = shared_path(__file__) / "java" / "clients" / "lib"
    if not any(lib.glob("kafka-clients-*.jar")):
        raise SystemExit(f"no kafka-clients jar in {lib} (see shared/java/README.md)")
    home = os.environ.get("JAVA_HOME")
    tools = {t: os.path.join(home, "bin", t) if home else shutil.which(t)
             for t in ("javac", "java")}
    missing = [t for t, found in tools.items() if not found or not os.path.exists(found)]
    if missing:
        raise SystemExit(f"{', '.join(missing)} not found (JAVA_HOME or PATH); --no-java: no Java")
    classpath = f"{lib}{os.sep}*"
    subprocess.run([tools["javac"], "-nowarn", "-cp", classpath, "-d", build_dir, JAVA_SOURCE],
                   check=True)
    return [tools["java"], "-Xss4m", "-Xmx6g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            "-cp", f"{build_dir}{os.pathsep}{classpath}", "StickyAssignorPerf"]


def time_java(java: list[str], case: str, name: str, quick: bool, repeat: int,
              build_dir: str, members: int | None, timeout: float) -> dict:
    """Java's median and min (``{"timed_out": timeout}`` when the JVM did not finish)."""
    path = os.path.join(build_dir, f"{case}-{members or 0}.txt")
    java_case_file(case, quick, path, members)
    try:
        done = subprocess.run([*java, name, path, str(repeat)], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"timed_out": timeout}
    if done.returncode != 0:
        raise SystemExit(f"StickyAssignorPerf {case} {name} failed: {done.stderr[-2000:]}")
    last = done.stdout.strip().splitlines()[-1]
    return {k: float(v) for k, v in (field.split("=") for field in last.split())}


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


def _print_row(case: str, name: str, row: dict, java: dict | None) -> None:
    nan = float("nan")
    if java and "timed_out" in java:  # Java did not finish: its time is a lower bound
        java_s, ratio = f">{java['timed_out']:.0f}", f"<{row['median_s'] / java['timed_out']:.2g}"
    elif java:
        java_s, ratio = f"{java['median_s']:.3f}", f"{row['median_s'] / java['median_s']:.2g}"
    else:
        java_s, ratio = f"{nan}", f"{nan}"
    print(
        f"{case:4} {name:20} {row['partitions']:>10,} {row['members']:>7,} "
        f"{row['median_s']:>9.3f} {row['min_s']:>7.3f} "
        f"{1e6 * row['median_s'] / max(1, row['partitions']):>7.2f} "
        f"{java_s:>7} {ratio:>7} "
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
    parser.add_argument("--no-java", action="store_true", help="skip Java's sticky assignors")
    parser.add_argument(
        "--java-timeout",
        type=float,
        default=600.0,
        help="seconds one Java (case, strategy) may take, warm-up and repeats (default 600)",
    )
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
        f"{'min s':>7} {'us/part':>7} {'Java s':>7} {'py/Java':>7} {'RSS pre MB':>10} "
        f"{'peak MB':>8}"
    )
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory(prefix="bench-sticky-java-") as build_dir:
        java = None if args.no_java else compile_java(build_dir)
        for case in args.cases.split(","):
            if case not in CASES:
                raise SystemExit(f"unknown case {case!r}: choose from {', '.join(CASES)}")
            for members in args.members or [None]:
                for name in STRATEGIES:
                    java_row = None
                    if java is not None:  # Java first, then Python: alternating per row
                        java_row = time_java(
                            java, case, name, args.quick, args.repeat, build_dir, members,
                            args.java_timeout,
                        )
                    extra = ["--worker-members", str(members)] if members else []
                    row = _run(
                        ["--worker", case, name, "--repeat", str(args.repeat), *quick, *extra]
                    )
                    _print_row(case, name, row, java_row)
                    assigned = (java_row or {}).get("partitions", row["partitions"])
                    if assigned != row["partitions"]:  # a different input: the row means nothing
                        raise SystemExit(f"{case} {name}: Java assigned {assigned:.0f} partitions")
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
