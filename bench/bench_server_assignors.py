"""KIP-848 server assignors against Java's own: alternating calls, idle and under load.

    python bench/bench_server_assignors.py            # the issue's sizes, idle then --load 4
    python bench/bench_server_assignors.py --quick    # a tenth of the sizes, for a smoke run
    python bench/bench_server_assignors.py --load 6 U3 U4   # some cases, 6 busy processes
    python bench/bench_server_assignors.py --no-java U4 R2   # Python only

Cases (ServerAssignorPerf's, shared/java/coordinator: Apache Kafka's own group-coordinator
``UniformAssignor`` / ``RangeAssignor``, JDK 17):

U1. uniform, homogeneous, 1,000 members, 100 topics, 50,000 partitions, fresh
U2. U1's result as current target assignment, one member added
U3. uniform, homogeneous, 10,000 members, 1,000 topics, 100,000 partitions, fresh
U4. uniform, heterogeneous: 1,000 members each on a random half of 1,000 topics, 50,000 partitions
R1. range, homogeneous, 10,000 members, 1,000 topics, 100,000 partitions
R2. range, heterogeneous: 1,000 members each on a random half of 1,000 topics, 50,000 partitions

Two phases in one run: "no load" (only what else runs on the machine), then "load N": the bench
starts N busy-loop processes itself (``--load``, default 4; 0 skips the phase) and stops them after.
Each phase reports the 1-minute load average at its end and the share of a core the busy processes
got (their CPU seconds over the phase's wall seconds, per process).

Java: ``bench/java/ServerAssignorStep.java`` is compiled with ``javac`` against the oracle jar and
runs in one JVM for the whole run; it builds each case with ServerAssignorPerf's own builder (a real
``MetadataImage``, a fresh ``GroupSpecImpl`` per call) and times one call per request. Per case and
phase: ``--warmup`` calls each, then ``--repeat`` rounds of one Java call and one Python call (who
goes first alternates), so both sides see the same moments of load. Printed per case: median and
minimum wall time of each side and their ratios (Python / Java: below 1.0 Python is faster), and
the CPU medians' ratio. Java's CPU is the calling thread's (its GC and JIT threads excluded), ours
the process's (``time.process_time``: one thread). Below each row, per side: the CPU of all the
side's threads from "go" to its answer, read by the bench from ``/proc/PID/task/*/schedstat`` (so
Java's GC and JIT threads count there; that is the fair pairing when they run beside the call), its
garbage collections, and the CPU the *other* side's threads used meanwhile (both children share the
bench's session, hence its scheduling group: a JVM compiling or collecting in the background during
Python's call would take from Python's share).

The boundary of the timed call is the same on both sides: Java's ``GroupSpecImpl`` arrives with
its ``HashMap`` of members built and its subscription type given (``TargetAssignmentBuilder`` does
both before it calls the assignor), so the Python worker has its spec make the member order (that
map's iteration order) and the subscription type before "go", and times them on their own. A line
below each case shows Python's figures with them counted in (the bench before issue 34's last
round counted them in; both are printed so neither is hidden).

Python side: member ids are 22-character random ids (the Java client's
``Uuid.randomUuid().toString()``), topic ids random ``Uuid``s; the random generator is seeded (Java
draws its own ids and halves, same shapes). The members (immutable ``ServerMember`` objects) are
made once per case, as Java's case keeps each member's subscription set and current assignment;
each call gets a freshly built ``ServerGroupSpec`` over them (outside the timing: the spec caches
its member order); before each call the garbage of the
previous one is collected (as Java's side runs ``System.gc()``) and the inputs are frozen out of the
cyclic collector's reach (``gc.freeze``: long-lived data, like the broker's group state). The String
hash cache stays warm across calls, as Java's ``String`` keeps its hash in the object.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import gc
import os
import queue
import random
import resource
import select
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

from assignframe import ServerAssignor, ServerGroupSpec, ServerMember, ServerTopic, Uuid
from assignframe.plugins import get_plugin_manager
from assignframe.testing.java_oracle import find_java, oracle_script

#: Seconds one answer of the Java side (a case built, or one call) may take on a loaded machine.
JAVA_TIMEOUT = 600
JAVA_SOURCE = Path(__file__).resolve().parent / "java" / "ServerAssignorStep.java"
#: case -> (assignor, members, topics, partitions in all, heterogeneous)
CASES = {
    "U1": ("uniform", 1_000, 100, 50_000, False),
    "U2": ("uniform", 1_000, 100, 50_000, False),
    "U3": ("uniform", 10_000, 1_000, 100_000, False),
    "U4": ("uniform", 1_000, 1_000, 50_000, True),
    "R1": ("range", 10_000, 1_000, 100_000, False),
    "R2": ("range", 1_000, 1_000, 50_000, True),
}


def _random_id(rng: random.Random) -> str:
    return base64.urlsafe_b64encode(rng.randbytes(16)).rstrip(b"=").decode()


def _topics(rng: random.Random, count: int, partitions: int) -> dict[Uuid, ServerTopic]:
    topics = {}
    for index in range(count):
        topic_id = Uuid.from_bytes(rng.randbytes(16))
        topics[topic_id] = ServerTopic(topic_id, f"topic-{index:04d}", partitions // count)
    return topics


def _subscriptions(
    rng: random.Random, members: list[str], names: list[str], heterogeneous: bool
) -> dict[str, tuple[str, ...]]:
    if not heterogeneous:
        return dict.fromkeys(members, tuple(names))
    return {m: tuple(rng.sample(names, len(names) // 2)) for m in members}


def build_case(case: str, scale: float) -> tuple[Callable[[], ServerGroupSpec], ServerAssignor]:
    """A spec factory (a fresh spec per call) and the assignor of ``case``."""
    name, members, topics, partitions, heterogeneous = CASES[case]
    members, topics = max(2, int(members * scale)), max(2, int(topics * scale))
    partitions = max(topics, int(partitions * scale))
    rng = random.Random(f"kip848-bench-{case}")
    topic_map = _topics(rng, topics, partitions)
    member_ids = [_random_id(rng) for _ in range(members)]
    subscriptions = _subscriptions(
        rng, member_ids, [t.name for t in topic_map.values()], heterogeneous
    )
    assignor = get_plugin_manager().server_assignor(name)
    current: dict[str, tuple] = {}
    if case == "U2":  # U1's result as the current target assignment, plus one new member
        first = assignor.assign(
            ServerGroupSpec({m: ServerMember(m, subscriptions[m]) for m in member_ids}, topic_map)
        )
        current = {m: tuple(first.members.get(m, {}).items()) for m in member_ids}
        newcomer = _random_id(rng)
        member_ids.append(newcomer)
        subscriptions[newcomer] = subscriptions[member_ids[0]]

    # The members (immutable) live as long as the group, as Java's case keeps each member's
    # subscription set and current assignment; each call gets a fresh spec over them (its member
    # order, subscription type and lookups are made anew), as Java's gets a fresh GroupSpecImpl.
    group = {m: ServerMember(m, subscriptions[m], current.get(m, ())) for m in member_ids}

    def spec() -> ServerGroupSpec:
        return ServerGroupSpec(group, topic_map)

    return spec, assignor


class Call(NamedTuple):
    """One timed call as a side reports it (seconds)."""

    wall: float
    #: the calling thread's CPU time (for Python, single-threaded, also the process's)
    cpu: float
    #: garbage collections during the call
    gcs: int
    #: the calling thread's involuntary context switches during it (-1: unknown)
    preempted: int
    #: CPU time of every thread of the side's process from "go" to its answer, read by the
    #: bench from ``/proc`` (Java: its GC and JIT threads included)
    process_cpu: float
    #: the same of the other side's process meanwhile (None: no other side)
    other_cpu: float | None
    #: Python: wall and CPU of the spec's member order and subscription type, made before the
    #: call as Java's GroupSpecImpl gets them (None: Java)
    spec_wall: float | None = None
    spec_cpu: float | None = None


class Child:
    """A side in a child process, driven line by line: ``build CASE SCALE``, ``prepare`` (a fresh
    spec, the previous garbage collected: outside the timing), ``go`` (the timed call; the answer is
    ``call WALL_NS CPU_NS ...``). Both sides start their timed call on waking from that read."""

    def __init__(self, name: str, command: list[str]) -> None:
        self.name = name
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def ask(self, command: str) -> list[str]:
        """Send one command; its answer's words (a deadline: JAVA_TIMEOUT seconds)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], JAVA_TIMEOUT)
        line = self.process.stdout.readline() if ready else ""
        if not line:
            raise SystemExit(f"{self.name}: no answer to {command!r} "
                             f"(exit {self.process.poll()}, or {JAVA_TIMEOUT} s passed)")
        return line.split()

    def build(self, case: str, scale: float) -> None:
        self.ask(f"build {case} {scale}")

    def call(self, bystander: Child | None = None) -> Call:
        """One timed call (``bystander``: the other side, whose CPU during it is measured too)."""
        _, *spec_ns = self.ask("prepare")
        watched = [self] if bystander is None else [self, bystander]
        before = [side.cpu_seconds() for side in watched]
        _, wall, cpu, gcs, preempted, *_ = self.ask("go")
        used = [side.cpu_seconds() - then for side, then in zip(watched, before, strict=True)]
        other = used[1] if len(used) > 1 else None
        spec: list[float | None] = [int(n) / 1e9 for n in spec_ns] or [None, None]
        return Call(
            int(wall) / 1e9, int(cpu) / 1e9, int(gcs), int(preempted), used[0], other, *spec
        )

    def cpu_seconds(self) -> float:
        return _cpu_seconds(self.process.pid)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            assert self.process.stdin is not None
            self.process.stdin.write("quit\n")
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


def java_child(build_dir: str) -> Child:
    """``ServerAssignorStep`` compiled into ``build_dir`` and started (one JVM for the run)."""
    java = find_java()  # a missing JDK fails here, with what to install
    javac = str(Path(java).with_name("javac")) if os.sep in java else "javac"
    classpath = f"{oracle_script().parent / 'lib'}{os.sep}*"
    subprocess.run(
        [javac, "-nowarn", "-cp", classpath, "-d", build_dir, str(JAVA_SOURCE)],
        check=True, timeout=JAVA_TIMEOUT,
    )
    return Child("ServerAssignorStep", [
        java, "-Xss4m", "-Xmx8g", "-cp", f"{build_dir}{os.pathsep}{classpath}",
        "ServerAssignorStep",
    ])


def python_worker() -> None:
    """The Python side's child: :class:`Child`'s protocol on stdin / stdout."""
    make_spec: Callable[[], ServerGroupSpec] | None = None
    assignor: ServerAssignor | None = None
    spec = None
    preparing: queue.SimpleQueue[Callable[[], ServerGroupSpec]] = queue.SimpleQueue()
    prepared: queue.SimpleQueue[tuple[ServerGroupSpec, int, int]] = queue.SimpleQueue()
    threading.Thread(target=_prepare, args=(preparing, prepared), daemon=True).start()
    for line in sys.stdin:
        words = line.split()
        if words[0] == "build":
            make_spec, assignor = build_case(words[1], float(words[2]))
            assignor.assign(make_spec())  # warm-up
            answer = "built"
        elif words[0] == "prepare":
            assert make_spec is not None
            # On a thread of its own, as Java's collection runs on its GC threads while the
            # calling thread sleeps: the scheduler charges the untimed work to that thread, not
            # to the one that then makes the timed call.
            # (One long-lived thread: the bench sums the CPU of every thread the process has,
            # and a thread that ends between two readings would take its CPU with it.)
            preparing.put(make_spec)
            spec, wall, cpu = prepared.get()
            answer = f"ready {wall} {cpu}"
        elif words[0] == "go":
            assert assignor is not None and spec is not None
            collections = sum(generation["collections"] for generation in gc.get_stats())
            switches = resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw
            started, started_cpu = time.perf_counter_ns(), time.process_time_ns()
            assignor.assign(spec)
            wall, cpu = time.perf_counter_ns() - started, time.process_time_ns() - started_cpu
            switches = resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw - switches
            collections = sum(g["collections"] for g in gc.get_stats()) - collections
            gc.unfreeze()
            spec = None
            answer = f"call {wall} {cpu} {collections} {switches}"  # as Java's answer
        else:
            return
        print(answer, flush=True)


def _prepare(
    requests: queue.SimpleQueue[Callable[[], ServerGroupSpec]],
    answers: queue.SimpleQueue[tuple[ServerGroupSpec, int, int]],
) -> None:
    """For each spec maker requested: a fresh spec for the next call, and the wall and CPU ns of
    making what Java's GroupSpecImpl is handed ready-made (TargetAssignmentBuilder builds its
    HashMap of members and passes the subscription type): our spec's member order (that
    HashMap's iteration order) and subscription type, timed on their own."""
    while True:
        spec = requests.get()()
        started, started_cpu = time.perf_counter_ns(), time.thread_time_ns()
        spec.member_ids()
        _ = spec.subscription_type
        wall, cpu = time.perf_counter_ns() - started, time.thread_time_ns() - started_cpu
        # Collect the previous call's garbage and freeze the inputs (long-lived, like the
        # broker's group state), so the cyclic collector does not rescan them mid-call.
        gc.collect()
        gc.freeze()
        answers.put((spec, wall, cpu))
        del spec


def _cpu_seconds(pid: int) -> float:
    """CPU seconds all threads of a child process have run so far (each task's ``schedstat``,
    in ns: ``/proc/PID/stat`` counts in clock ticks, too coarse for one call)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            total += int((task / "schedstat").read_text().split()[0])
    return total / 1e9


class Load:
    """``count`` busy-loop processes, for as long as the ``with`` block runs."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.processes: list[subprocess.Popen[bytes]] = []
        self.started = 0.0

    def __enter__(self) -> Load:
        busy = [sys.executable, "-c", "while True: pass"]
        # Each in a session of its own, so each is scheduled as any other job on the machine
        # (with autogroups on, processes of one session share that session's CPU).
        self.processes = [
            subprocess.Popen(busy, start_new_session=True) for _ in range(self.count)
        ]
        self.started = time.perf_counter()
        return self

    def share(self) -> float | None:
        """Each busy process's share of a core so far (None without any)."""
        if not self.processes:
            return None
        elapsed = time.perf_counter() - self.started
        used = sum(_cpu_seconds(p.pid) for p in self.processes)
        return used / elapsed / len(self.processes)

    def __exit__(self, *exc: object) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


def alternate(
    case: str, scale: float, sides: list[Child], warmup: int, repeat: int
) -> list[list[Call]]:
    """``repeat`` rounds of one call of each side (who goes first alternates)."""
    for side in sides:
        side.build(case, scale)
    for _ in range(warmup):
        for side in sides:
            side.call()
    calls: list[list[Call]] = [[] for _ in sides]
    for round_number in range(repeat):
        order = range(len(sides)) if round_number % 2 else reversed(range(len(sides)))
        for index in order:
            others = [side for side in sides if side is not sides[index]]
            calls[index].append(sides[index].call(others[0] if others else None))
    return calls


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f}"


def _median(calls: list[Call], field: str) -> float:
    return statistics.median(getattr(call, field) for call in calls)


def print_row(case: str, ours: list[Call], java: list[Call] | None) -> None:
    wall = [call.wall for call in ours]
    cells = [case, CASES[case][0], _ms(statistics.median(wall)), _ms(min(wall))]
    if java is None:
        cells += ["-"] * 4 + [_ms(_median(ours, "cpu")), "-", "-"]
    else:
        j_wall = [call.wall for call in java]
        cells += [
            _ms(statistics.median(j_wall)), _ms(min(j_wall)),
            f"{statistics.median(wall) / statistics.median(j_wall):.2f}",
            f"{min(wall) / min(j_wall):.2f}",
            _ms(_median(ours, "cpu")), _ms(_median(java, "cpu")),
            f"{_median(ours, 'cpu') / _median(java, 'cpu'):.2f}",
        ]
    print("{:5} {:8} {:>8} {:>8} {:>9} {:>9} {:>7} {:>7} {:>8} {:>9} {:>7}".format(*cells))
    for side, calls in (("py", ours), ("java", java or [])):
        if not calls:
            continue
        others = [c.other_cpu for c in calls if c.other_cpu is not None]
        preempted = sorted(call.preempted for call in calls)
        print(f"      {side:4} medians: process cpu {_ms(_median(calls, 'process_cpu'))}, "
              f"{_median(calls, 'gcs'):.0f} collections, preempted per call {preempted}"
              + (f"; the other side's threads ran {_ms(statistics.median(others))} meanwhile"
                 if others else ""))
    if java and all(call.spec_wall is not None for call in ours):
        # The same calls with the spec's member order and subscription type counted in.
        with_spec = [call.wall + (call.spec_wall or 0.0) for call in ours]
        cpu = statistics.median(call.cpu + (call.spec_cpu or 0.0) for call in ours)
        j_wall = [call.wall for call in java]
        spec_cpu = _ms(_median(ours, "spec_cpu"))
        print(f"      py with the spec's member order and subscription type inside "
              f"(cpu {spec_cpu} of it): wall {_ms(statistics.median(with_spec))}"
              f" / {_ms(min(with_spec))}, p/j med "
              f"{statistics.median(with_spec) / statistics.median(j_wall):.2f}, min "
              f"{min(with_spec) / min(j_wall):.2f}, cpu p/j {cpu / _median(java, 'cpu'):.2f}")
    sys.stdout.flush()


HEADER = ("case", "assignor", "py med", "py min", "java med", "java min", "med p/j", "min p/j",
          "py cpu", "java cpu", "cpu p/j")


def run_phase(name: str, load: Load, args: argparse.Namespace, sides: list[Child]) -> None:
    scale = 0.1 if args.quick else 1.0
    print(f"\n== {name}: {args.rounds_text}, wall ms unless marked cpu")
    print("{:5} {:8} {:>8} {:>8} {:>9} {:>9} {:>7} {:>7} {:>8} {:>9} {:>7}".format(*HEADER))
    for case in args.cases:
        samples = alternate(case, scale, sides, args.warmup, args.repeat)
        print_row(case, samples[0], samples[1] if len(samples) > 1 else None)
    share = load.share()
    measured = "" if share is None else f", each busy process got {share:.0%} of a core"
    cores = os.cpu_count()
    print(f"   load average {os.getloadavg()[0]:.1f} at the end on {cores} cores{measured}")


@contextlib.contextmanager
def children(no_java: bool) -> Iterator[list[Child]]:
    """The Python side's worker, then (unless ``no_java``) Java's; closed at the end."""
    with tempfile.TemporaryDirectory(prefix="bench-server-assignors-") as build_dir:
        sides = [Child("python worker", [sys.executable, __file__, "--worker"])]
        try:
            if not no_java:
                sides.append(java_child(build_dir))
            yield sides
        finally:
            for side in sides:
                side.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes")
    parser.add_argument(
        "--repeat", type=int, default=31,
        help="timed rounds per case and phase (under load a minimum of few calls is one lucky "
        "call's: docs/performance.md)",
    )
    parser.add_argument("--warmup", type=int, default=3, help="untimed calls per side first")
    parser.add_argument(
        "--load", type=int, default=4, help="busy processes in the loaded phase (0: idle only)"
    )
    parser.add_argument("--no-idle", action="store_true", help="the loaded phase only")
    parser.add_argument("--no-java", action="store_true", help="Python only (no JDK needed)")
    parser.add_argument("cases", nargs="*", default=list(CASES), help="cases to run (default all)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        python_worker()
        return 0
    unknown = [case for case in args.cases if case not in CASES]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(CASES)}")
    if args.repeat < 1 or args.warmup < 0 or args.load < 0:
        parser.error("--repeat must be >= 1, --warmup and --load >= 0")
    args.rounds_text = (f"{args.warmup} warm-up + {args.repeat} timed calls per side, "
                        f"scale {0.1 if args.quick else 1.0}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start")
    with children(args.no_java) as sides:
        if not args.no_idle:
            with Load(0) as idle:
                run_phase("no load", idle, args, sides)
        if args.load:
            with Load(args.load) as load:
                run_phase(f"load {args.load}", load, args, sides)
    return 0


if __name__ == "__main__":
    sys.exit(main())
