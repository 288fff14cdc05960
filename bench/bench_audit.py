"""Benchmark the fleet audit (on demand; never part of CI's pass/fail).

    python bench/bench_audit.py       # 10k and 100k groups: local x1, local x2, spark local[2]
    python bench/bench_audit.py --groups 50000 --engines local1   # 10k vs 50k, one process
    python bench/bench_audit.py --strategies all      # every installed strategy
    python bench/bench_audit.py --profile 200        # where one process spends its time
    python bench/bench_audit.py --breakdown 1000     # CPU per group: reading, strategies, all

The synthetic fleet (assignframe.audit.fleet): 1-50 members and 1-500 partitions per group,
log-uniform (most groups small, as in real fleets). Reports groups/s, groups/s per core, peak
memory of the whole process tree (workers and the Spark JVM included) and the time growth from
the small to the large fleet. Results: printed, and written to OUT/bench_audit.json.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

from assignframe.audit import AuditOptions, run_audit, write_fleet
from assignframe.audit.group import audit_chunk
from assignframe.audit.reader import InputReader
from assignframe.audit.rerun import AuditContext

ENGINES = {
    "local1": ("local", {"processes": 1}, 1),
    "local2": ("local", {"processes": 2}, 2),
    "spark": ("spark", {"master": "local[2]"}, 2),
}


class PeakMemory:
    """Samples the RSS of this process and all its children every 50 ms."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        me = psutil.Process()
        while not self._stop.is_set():
            total = 0
            for process in [me, *me.children(recursive=True)]:
                try:
                    total += process.memory_info().rss
                except psutil.Error:
                    pass
            self.peak = max(self.peak, total)
            time.sleep(0.05)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def fleet(out: Path, groups: int, seed: int) -> Path:
    path = out / f"fleet-{groups}.jsonl"
    if not path.exists():
        started = time.perf_counter()
        write_fleet(path, groups, seed)
        print(f"generated {groups:,} groups in {time.perf_counter() - started:.1f} s -> {path}")
    return path


def measure(engine_key: str, path: Path, out: Path, strategies: str | None) -> dict:
    """One audit in a fresh interpreter, so memory (and a Spark JVM) never leak between runs."""
    command = [sys.executable, __file__, "--one", engine_key, str(path), "--out", str(out)]
    if strategies:
        command += ["--strategies", strategies]
    with PeakMemory() as memory:
        finished = subprocess.run(command, capture_output=True, text=True, check=True)
    result = json.loads(finished.stdout.strip().splitlines()[-1])
    result["peak_rss_mb"] = round(memory.peak / 2**20)
    return result


def run_one(engine_key: str, path: Path, out: Path, strategies: str | None) -> dict:
    engine, options, cores = ENGINES[engine_key]
    names = tuple(strategies.split(",")) if strategies else None
    audit_options = AuditOptions(strategies=names, worst=0, **options)
    started = time.perf_counter()
    summary = run_audit(path, out / f"out-{engine_key}-{path.stem}", audit_options, engine)
    elapsed = time.perf_counter() - started
    groups = summary["groups"] + summary["malformed"]
    return {
        "engine": engine_key,
        "input": path.name,
        "groups": groups,
        "seconds": round(elapsed, 1),
        "groups_per_second": round(groups / elapsed, 1),
        "groups_per_second_per_core": round(groups / elapsed / cores, 1),
    }


def profile(path: Path, groups: int, strategies: tuple[str, ...] | None) -> None:
    context = AuditContext.create(strategies)
    chunk = next(InputReader(path, groups).chunks())
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.runcall(audit_chunk, chunk, context)
    elapsed = time.perf_counter() - started
    print(
        f"profiled {len(chunk)} groups x {len(context.strategies)} strategies: "
        f"{elapsed / len(chunk) * 1000:.1f} ms per group under the profiler"
    )
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(40)


def breakdown(path: Path, groups: int, strategies: tuple[str, ...] | None) -> None:
    """CPU time per group (one process): reading the snapshot, each strategy's own ``assign`` on
    the leader's view (members owning what they own now; no runner, hooks, codec or metrics),
    and the whole audit of the group. The strategies' line is the floor of any replay design."""
    from dataclasses import replace

    from assignframe.audit.group import audit_group
    from assignframe.model import GroupSubscription
    from assignframe.snapshot import MalformedSnapshot, read_snapshot

    context = AuditContext.create(strategies)
    lines = [raw for _, raw in next(InputReader(path, groups).chunks())]

    def cpu(call) -> float:
        started = time.process_time()
        call()
        return (time.process_time() - started) / len(lines) * 1e6

    snapshots = []

    def read() -> None:
        for raw in lines:
            try:
                snapshots.append(read_snapshot(raw))
            except MalformedSnapshot:
                pass

    rows = [("read the snapshot (JSON, hex -> codec -> model)", cpu(read))]
    views = []
    for snapshot in snapshots:
        generation = max(snapshot.generation, 1)
        members = {
            member_id: replace(
                member,
                owned_partitions=snapshot.current.partitions_of(member_id),
                generation=generation,
            )
            for member_id, member in snapshot.members.items()
        }
        views.append(
            GroupSubscription(members, snapshot.cluster, generation + 1, {}, snapshot.lags)
        )
    strategies_total = 0.0
    for name in context.strategies:
        strategy = context.pm.strategy(name)

        def assign_all(strategy=strategy) -> None:
            for view in views:
                try:
                    strategy.assign(view)
                except Exception:  # noqa: BLE001 - a failing group costs what it costs
                    pass

        spent = cpu(assign_all)
        strategies_total += spent
        rows.append((f"  {name}.assign alone", spent))
    rows.append(("strategies' assign alone, all of them", strategies_total))
    rows.append(
        (
            "the whole audit of the group",
            cpu(lambda: [audit_group(i, raw, context) for i, raw in enumerate(lines)]),
        )
    )
    members = sum(len(s.members) for s in snapshots) / max(len(snapshots), 1)
    partitions = sum(sum(s.cluster.partitions_per_topic.values()) for s in snapshots)
    print(
        f"{len(lines)} groups (mean {members:.1f} members, "
        f"{partitions / max(len(snapshots), 1):.0f} partitions), CPU time per group:"
    )
    for label, micros in rows:
        print(f"{label:<52} {micros:>9,.0f} us   (at most {1e6 / micros:>7,.0f} groups/s)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--groups", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=10_000)
    parser.add_argument("--engines", default="local1,local2,spark")
    parser.add_argument(
        "--strategies",
        help="comma-separated, or 'all' (default: the audit's default set, docs/audit.md)",
    )
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    parser.add_argument(
        "--profile", type=int, metavar="N", help="profile N groups in one process and stop"
    )
    parser.add_argument(
        "--breakdown",
        type=int,
        metavar="N",
        help="CPU time per group of N groups: reading, each strategy alone, the whole audit",
    )
    parser.add_argument("--one", nargs=2, metavar=("ENGINE", "INPUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    strategies = args.strategies
    if args.one:  # the child process of one measurement
        print(json.dumps(run_one(args.one[0], Path(args.one[1]), args.out, strategies)))
        return
    if args.breakdown:
        names = tuple(strategies.split(",")) if strategies else None
        breakdown(fleet(args.out, args.small, args.seed), args.breakdown, names)
        return
    if args.profile:
        names = tuple(strategies.split(",")) if strategies else None
        profile(fleet(args.out, args.small, args.seed), args.profile, names)
        return
    results = []
    for size in (args.small, args.groups):
        path = fleet(args.out, size, args.seed)
        for engine_key in args.engines.split(","):
            results.append(measure(engine_key, path, args.out, strategies))
            print(json.dumps(results[-1]))
    for engine_key in args.engines.split(","):
        small, large = (r for r in results if r["engine"] == engine_key)
        print(
            f"{engine_key}: {args.small:,} -> {args.groups:,} groups: "
            f"time x{large['seconds'] / small['seconds']:.2f} "
            f"(groups x{args.groups / args.small:.0f}), "
            f"peak RSS {small['peak_rss_mb']} -> {large['peak_rss_mb']} MB"
        )
    (args.out / "bench_audit.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
