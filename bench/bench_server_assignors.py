"""KIP-848 server assignors against Java's own, measured in the same run (prints a table).

    python bench/bench_server_assignors.py            # the issue's sizes, a few minutes
    python bench/bench_server_assignors.py --quick    # a tenth of the sizes, for a smoke run
    python bench/bench_server_assignors.py --no-java U4 R2   # Python only, some cases

Cases (the same in ServerAssignorPerf, shared/java/coordinator: Apache Kafka's own
group-coordinator ``UniformAssignor`` / ``RangeAssignor``, JDK 17):

U1. uniform, homogeneous, 1,000 members, 100 topics, 50,000 partitions, fresh
U2. U1's result as current target assignment, one member added
U3. uniform, homogeneous, 10,000 members, 1,000 topics, 100,000 partitions, fresh
U4. uniform, heterogeneous: 1,000 members each on a random half of 1,000 topics, 50,000 partitions
R1. range, homogeneous, 10,000 members, 1,000 topics, 100,000 partitions
R2. range, heterogeneous: 1,000 members each on a random half of 1,000 topics, 50,000 partitions

Per case, ``--rounds`` times: Java's harness runs the case in a fresh JVM (one warm-up call, then
``--repeat`` timed calls), then Python does the same; medians are over all rounds' calls, so both
saw the same machine load. Java's CPU time is the calling thread's (it excludes the JVM's GC and
JIT threads); Python's is the process's (``time.process_time``). Ratios are Python / Java: below
1.0 Python is faster.

Python side: member ids are 22-character random ids (the Java client's
``Uuid.randomUuid().toString()``), topic ids random ``Uuid``s; the random generator is seeded (Java
draws its own ids and halves, same shapes). Each call gets a freshly built ``ServerGroupSpec``
(outside the timing: the spec caches its member order); before each call the garbage of the
previous one is collected and the inputs are frozen out of the cyclic collector's reach
(``gc.freeze``: long-lived data, like the broker's group state). The String hash cache stays warm
across calls, as Java's ``String`` keeps its hash in the object.
"""

from __future__ import annotations

import argparse
import base64
import gc
import os
import random
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from assignframe import ServerAssignor, ServerGroupSpec, ServerMember, ServerTopic, Uuid
from assignframe.plugins import get_plugin_manager
from assignframe.testing.java_oracle import find_java, oracle_script

#: Seconds one ServerAssignorPerf case (a JVM) may take on a loaded machine.
JAVA_TIMEOUT = 900
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

    def spec() -> ServerGroupSpec:
        return ServerGroupSpec(
            {m: ServerMember(m, subscriptions[m], current.get(m, ())) for m in member_ids},
            topic_map,
        )

    return spec, assignor


def time_case(case: str, scale: float, repeat: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds of each timed ``assign`` call."""
    make_spec, assignor = build_case(case, scale)
    assignor.assign(make_spec())  # warm-up
    wall, cpu = [], []
    for _ in range(repeat):
        spec = make_spec()
        # Collect the previous call's garbage and freeze the inputs (long-lived, like the
        # broker's group state), so the cyclic collector does not rescan them mid-call.
        gc.collect()
        gc.freeze()
        started, started_cpu = time.perf_counter(), time.process_time()
        assignor.assign(spec)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        gc.unfreeze()
    return wall, cpu


def java_command(case: str, scale: float, repeat: int) -> list[str]:
    """``ServerAssignorPerf`` (shared/java/coordinator: Apache Kafka's assignors) on one case."""
    return [
        "sh", str(oracle_script()), "--perf", "--repeat", str(repeat), "--scale", str(scale), case
    ]


def time_java(case: str, scale: float, repeat: int) -> tuple[list[float], float]:
    """Java's per-call wall seconds and its median thread-CPU seconds for one case (one JVM)."""
    find_java()  # a missing JDK fails here, with what to install
    done = subprocess.run(
        java_command(case, scale, repeat), capture_output=True, text=True, timeout=JAVA_TIMEOUT
    )
    if done.returncode != 0:
        raise SystemExit(
            f"ServerAssignorPerf {case} failed (exit {done.returncode}): {done.stderr[-2000:]}"
        )
    # "U1   uniform  wall-med wall-min tcpu-med tcpu-min gcs" then "#    U1: ...; wall ms: 3.4 2.9"
    row = re.search(rf"^{case}\s+\S+\s+\S+\s+\S+\s+(\S+)", done.stdout, re.MULTILINE)
    samples = re.search(r"wall ms:([\d. ]+)$", done.stdout, re.MULTILINE)
    if row is None or samples is None:
        raise SystemExit(f"ServerAssignorPerf {case}: unexpected output:\n{done.stdout}")
    return [float(x) / 1e3 for x in samples.group(1).split()], float(row.group(1)) / 1e3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes")
    parser.add_argument("--repeat", type=int, default=9, help="timed calls per case and round")
    parser.add_argument(
        "--rounds", type=int, default=2, help="Java/Python alternations per case (default 2)"
    )
    parser.add_argument("--no-java", action="store_true", help="Python only (no JDK needed)")
    parser.add_argument("cases", nargs="*", default=list(CASES), help="cases to run (default all)")
    args = parser.parse_args(argv)
    unknown = [case for case in args.cases if case not in CASES]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(CASES)}")
    scale = 0.1 if args.quick else 1.0
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores, scale {scale}, "
          f"{args.rounds} rounds x {args.repeat} calls")
    header = ("case", "assignor", "py wall", "py cpu", "java wall", "java cpu", "wall py/j",
              "cpu py/j")
    print("{:5} {:8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}".format(*header))
    for case in args.cases:
        py_wall: list[float] = []
        py_cpu: list[float] = []
        java_wall: list[float] = []
        java_cpu: list[float] = []
        for _ in range(args.rounds):
            if not args.no_java:
                walls, cpu = time_java(case, scale, args.repeat)
                java_wall += walls
                java_cpu.append(cpu)
            walls, cpus = time_case(case, scale, args.repeat)
            py_wall += walls
            py_cpu += cpus
        wall, cpu = statistics.median(py_wall), statistics.median(py_cpu)
        if args.no_java:
            java = ("-", "-", "-", "-")
        else:
            j_wall, j_cpu = statistics.median(java_wall), statistics.median(java_cpu)
            java = (f"{j_wall * 1e3:7.1f}ms", f"{j_cpu * 1e3:7.1f}ms",
                    f"{wall / j_wall:.2f}", f"{cpu / j_cpu:.2f}")
        print(f"{case:5} {CASES[case][0]:8} {wall * 1e3:7.1f}ms {cpu * 1e3:7.1f}ms "
              "{:>9} {:>9} {:>9} {:>9}".format(*java))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
