"""Benchmark the fleet audit (on demand; never part of CI's pass/fail).

    python bench/bench_audit.py       # 10k and 100k groups: local x1, local x2, spark local[2]
    python bench/bench_audit.py --groups 50000 --engines local1   # 10k vs 50k, one process
    python bench/bench_audit.py --strategies all      # every installed strategy
    python bench/bench_audit.py --profile 200        # where one process spends its time
    python bench/bench_audit.py --breakdown 1000     # CPU per group: audit / strategies' own work
                                                     # inside the pass (and the old re-run)

The synthetic fleet (assignframe.audit.synthetic): 1-50 members and 1-500 partitions per group,
log-uniform (most groups small, as in real fleets). Reports groups/s, groups/s per core, peak
memory of the whole process tree (workers and the Spark JVM included) and the time growth from
the small to the large fleet. Results: printed, and written to OUT/bench_audit.json.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import inspect
import json
import pstats
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

from assignframe.audit import AuditOptions, run_audit, write_fleet
from assignframe.audit.chunks import InputReader
from assignframe.audit.group import audit_chunk
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
    """CPU time per group (one process): the whole audit, every strategy's own work inside it,
    their ratio, and where the rest goes.

    "Its strategies' own work" is every strategy call the audit makes per group: each client
    strategy's ``assign`` in every round it played (a cooperative rebalance's follow-up rounds
    are the strategy's own work), the user-data hooks a strategy overrides
    (``subscription_user_data``, ``decode_user_data``, ``on_assignment``: sticky's), and the
    server assignors (``assign`` and ``assign_in_java_order``). Two measures of it:

    - the honest floor: timed inside the measured audit pass, on groups the process has not
      seen (:func:`_timed_strategy_work`; the outermost call only, so a method calling another
      timed one counts once). The pass's whole CPU, less the timers' own cost, is the audit.
    - the old (re-run) floor: the same calls recorded in a second pass and called again
      directly on the same objects, caches warm (no runner, hooks, checks or metrics). It is
      smaller than the honest one, so its ratio flatters the audit; printed for comparison."""
    from assignframe.audit.group import audit_group, fewer_collections
    from assignframe.snapshot import MalformedSnapshot, read_snapshot

    context = AuditContext.create(strategies)
    chunks = InputReader(path, groups).chunks()
    lines = [raw for _, raw in next(chunks)]
    # Warmed on other groups: caches keyed by value must not see the measured groups twice.
    warm_up = [raw for _, raw in next(chunks, [])][:20]

    def cpu(call) -> float:
        started = time.process_time()
        call()
        return (time.process_time() - started) / len(lines) * 1e6

    def audit_all(lines=lines) -> None:
        with fewer_collections():  # the collector as the engines set it (audit_chunk)
            for index, raw in enumerate(lines):
                try:
                    audit_group(index, raw, context)
                except MalformedSnapshot:
                    pass

    def read_all() -> None:
        for raw in lines:
            try:
                read_snapshot(raw)
            except MalformedSnapshot:
                pass

    audit_all(warm_up)  # imports and first-call costs
    with _timed_strategy_work(context) as timer, _collector_time() as collector:
        timed_pass = cpu(audit_all)  # the first time these groups are seen
    overhead = timer.calls * _timer_cost() / len(lines) * 1e6
    whole = timed_pass - overhead
    honest = {label: seconds / len(lines) * 1e6 for label, seconds in timer.spent.items()}
    honest_total = sum(honest.values())
    calls = _recorded_strategy_calls(context, audit_all)
    own: dict[str, float] = {}
    for label, call, argument in calls:

        def again(call=call, argument=argument) -> None:
            try:
                call(argument)
            except Exception:  # noqa: BLE001 - a failing group costs what it costs
                pass

        own[label] = own.get(label, 0.0) + _cpu_once(again) / len(lines) * 1e6
    rerun_total = sum(own.values())
    stages = _stage_split(context, audit_all, len(lines))
    print(
        f"{len(lines)} groups of {path.name}, {', '.join(context.strategies)}; "
        f"load average {' '.join(f'{x:.1f}' for x in psutil.getloadavg())}; CPU time per group:"
    )
    rows = [("read the snapshot (JSON, hex -> codec -> model)", cpu(read_all))]
    rows += [(f"  {label} (inside the pass)", micros) for label, micros in sorted(honest.items())]
    rows.append(("the strategies' own work inside the pass (honest floor)", honest_total))
    rows += [(f"  {label} (called again)", micros) for label, micros in own.items()]
    rows.append(("the strategies' assign called again, warm (old floor)", rerun_total))
    rows.append(("the whole audit of the group", whole))
    for label, micros in rows:
        print(f"{label:<60} {micros:>9,.0f} us   (at most {1e6 / micros:>7,.0f} groups/s)")
    print(
        f"(the whole audit is the timed pass, {timed_pass:,.0f} us, less its "
        f"{timer.calls / len(lines):,.1f} timed calls' own cost, {overhead:,.0f} us)"
    )
    print(
        f"of which the garbage collector: {collector[0] / len(lines) * 1e6:,.0f} us "
        f"({collector[1]} collections)"
    )
    print(
        f"ratio: the whole audit / its strategies' own work inside the pass = "
        f"{whole / honest_total:.2f}x (target 2.0x)"
    )
    print(
        f"ratio: the whole audit / their assign called again, warm (the old figure) = "
        f"{whole / rerun_total:.2f}x; the honest floor is {honest_total / rerun_total:.2f}x the old"
    )
    print("where the audit's time goes (a separate pass, each step timed; the timing adds cost):")
    for label, micros in stages:
        print(f"  {label:<54} {micros:>9,.0f} us")


#: A strategy's own methods timed by :func:`_timed_strategy_work` when its class defines them.
_CLIENT_METHODS = ("assign", "subscription_user_data", "decode_user_data", "on_assignment")
_SERVER_METHODS = ("assign", "assign_in_java_order")


class _StrategyTimer:
    """CPU seconds spent inside strategies' own methods, by ``name.method`` (the name of the
    instance's class as installed)."""

    def __init__(self, names: dict[type, str]) -> None:
        self.names = names
        self.spent: dict[str, float] = {}
        self.calls = 0
        self.depth = 0

    def wrap(self, method_name: str, method):
        def timed(instance, *args, **kwargs):
            if self.depth:  # inside another timed call: already counted there
                return method(instance, *args, **kwargs)
            self.calls += 1
            self.depth = 1
            started = time.process_time()
            try:
                return method(instance, *args, **kwargs)
            finally:
                spent = time.process_time() - started
                self.depth = 0
                cls = type(instance)
                label = f"{self.names.get(cls, cls.__name__)}.{method_name}"
                self.spent[label] = self.spent.get(label, 0.0) + spent

        return timed


@contextlib.contextmanager
def _timed_strategy_work(context: AuditContext):
    """Time every installed strategy's and server assignor's own methods while the block runs.

    Each method is wrapped once, on the class that defines it (a shared base's ``assign`` is
    the server assignors' own work too), never on the instance; the base classes' methods
    are not, so the plugin manager's choice to skip a hook whose method is the base
    :class:`Strategy`'s stays what it is."""
    from assignframe.server_assignor import ServerAssignor
    from assignframe.strategy import Strategy

    registry = context.pm.registry
    clients = {entry.cls: entry.name for entry in registry.entries()}
    servers = {
        entry.cls: f"server:{entry.name.removeprefix('server:')}"
        for entry in registry.server_entries()
    }
    timer = _StrategyTimer({**clients, **servers})
    owners = {}
    for classes, methods, base in (
        (clients, _CLIENT_METHODS, Strategy),
        (servers, _SERVER_METHODS, ServerAssignor),
    ):
        for cls in classes:
            for method in methods:
                owner = next((k for k in cls.__mro__ if method in k.__dict__), None)
                if owner is None or owner is base or not issubclass(owner, base):
                    continue
                if inspect.isfunction(owner.__dict__[method]):
                    owners[owner, method] = owner.__dict__[method]
    for (owner, method), original in owners.items():
        setattr(owner, method, timer.wrap(method, original))
    try:
        yield timer
    finally:
        for (owner, method), original in owners.items():
            setattr(owner, method, original)


@contextlib.contextmanager
def _collector_time():
    """[CPU seconds spent in the garbage collector, collections] while the block runs."""
    spent = [0.0, 0]
    started = [0.0]

    def observe(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.process_time()
        else:
            spent[0] += time.process_time() - started[0]
            spent[1] += 1

    gc.callbacks.append(observe)
    try:
        yield spent
    finally:
        gc.callbacks.remove(observe)


def _timer_cost(calls: int = 20_000) -> float:
    """CPU seconds one timed call adds outside what it measures (the wrapper and the clock)."""
    timer = _StrategyTimer({})
    plain = timer.wrap("calibration", lambda instance: None)
    started = time.process_time()
    for _ in range(calls):
        plain(timer)
    wrapped = time.process_time() - started
    bare = lambda instance: None  # noqa: E731
    started = time.process_time()
    for _ in range(calls):
        bare(timer)
    return max(0.0, (wrapped - (time.process_time() - started)) / calls)


def _cpu_once(call) -> float:
    started = time.process_time()
    call()
    return time.process_time() - started


def _recorded_strategy_calls(context: AuditContext, audit_all) -> list[tuple[str, object, object]]:
    """Run the audit once, recording (label, the strategy's own method, its input) for every
    client ``assign`` and every server assignor call; the outermost call only (an assignor's
    method calling another of its own is one call)."""
    calls: list[tuple[str, object, object]] = []
    pm = context.pm
    assign, server_assignor = pm.assign, pm.server_assignor

    def recording_assign(strategy, group):
        calls.append((f"{strategy.name}.assign", strategy.assign, group))
        return assign(strategy, group)

    def recording_server_assignor(name, **options):
        assignor = server_assignor(name, **options)
        fresh = server_assignor(name, **options)  # unwrapped, for calling again
        busy = []
        for method in ("assign", "assign_in_java_order"):
            original = getattr(assignor, method)

            def recorded(spec, original=original, method=method):
                if not busy:
                    label = f"server:{name.removeprefix('server:')}.{method}"
                    calls.append((label, getattr(fresh, method), spec))
                busy.append(1)
                try:
                    return original(spec)
                finally:
                    busy.pop()

            setattr(assignor, method, recorded)
        return assignor

    pm.assign, pm.server_assignor = recording_assign, recording_server_assignor
    try:
        audit_all()
    finally:
        del pm.assign, pm.server_assignor
    return calls


#: Steps of the audit timed by :func:`_stage_split`: (module, owner attribute or None, name).
_STAGES = (
    ("assignframe.audit.group", None, "read_snapshot", "reading the snapshot"),
    ("assignframe.audit.group", None, "current_metrics", "metrics of the current assignment"),
    ("assignframe.rebalance.runner", "GroupRunner", "adopt", "runner: adopt the current"),
    ("assignframe.rebalance.runner", "GroupRunner", "_join_all", "runner: joins"),
    ("assignframe.rebalance.runner", "GroupRunner", "_leader_view", "runner: leader's view"),
    ("assignframe.plugins.manager", "PluginManager", "assign", "runner: assign through the pm"),
    ("assignframe.rebalance.runner", "GroupRunner", "_sync", "runner: sync"),
    ("assignframe.audit.rerun", None, "metrics_record", "metrics of each replay"),
    ("assignframe.audit.group", None, "migration_section", "migration prediction (all of it)"),
    ("assignframe.audit.migration", None, "server_spec", "  of which the server group spec"),
)


def _stage_split(context: AuditContext, audit_all, groups: int) -> list[tuple[str, float]]:
    import importlib

    spent: dict[str, float] = {}
    undo = []
    for module_name, owner_name, name, label in _STAGES:
        module = importlib.import_module(module_name)
        owner = getattr(module, owner_name) if owner_name else module
        original = getattr(owner, name, None)
        if original is None:  # the step is gone from this version of the code
            continue

        def timed(*args, _original=original, _label=label, **kwargs):
            started = time.process_time()
            try:
                return _original(*args, **kwargs)
            finally:
                spent[_label] = spent.get(_label, 0.0) + time.process_time() - started

        setattr(owner, name, timed)
        undo.append((owner, name, original))
    try:
        total = _cpu_once(audit_all)
    finally:
        for owner, name, original in undo:
            setattr(owner, name, original)
    rows = [(label, spent.get(label, 0.0) / groups * 1e6) for *_, label in _STAGES]
    rows.append(("the whole audit (this timed pass)", total / groups * 1e6))
    return rows


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
        help="CPU time per group of N groups: the whole audit, its strategies' own work timed "
        "inside the pass (the honest floor) and called again warm (the old floor), both "
        "ratios, and where the rest goes",
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
