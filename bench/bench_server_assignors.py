"""Benchmark of the KIP-848 server assignors against Java's figures (run on demand; prints a table).

    python bench/bench_server_assignors.py            # the issue's sizes
    python bench/bench_server_assignors.py --quick    # a tenth of the sizes, for a smoke run

Java's figures (issue 16: Apache Kafka's group-coordinator assignors, JDK 17, warm median, the
same machine kind, 2 cores):

U1. uniform, homogeneous, 1,000 members, 100 topics, 50,000 partitions, fresh      16 ms
U2. U1's result as current target assignment, one member added                      13 ms
U3. uniform, homogeneous, 10,000 members, 1,000 topics, 100,000 partitions, fresh   29 ms
U4. uniform, heterogeneous: 1,000 members each on a random half of 1,000 topics,
    50,000 partitions, fresh                                                        0.41 s
R1. range, homogeneous, 10,000 members, 1,000 topics, 100,000 partitions            0.15 s
R2. range, heterogeneous: 1,000 members each on a random half of 1,000 topics,
    50,000 partitions                                                              0.24 s

Member ids are 22-character random ids (the Java client's ``Uuid.randomUuid().toString()``),
topic ids random ``Uuid``s; the random generator is seeded. Each case builds a fresh
``ServerGroupSpec`` before every call (outside the timing: the spec caches its member order), calls
``assign`` once to warm up, then times ``--repeat`` calls and reports the median wall-clock and
CPU time (on a shared machine the CPU time is what the call itself used). Before each call the
garbage of the previous one is collected and the inputs are frozen out of the cyclic collector's
reach (``gc.freeze``: long-lived data, like the broker's group state). The String hash cache stays
warm across calls, as Java's ``String`` keeps its hash in the object.
"""

from __future__ import annotations

import argparse
import base64
import gc
import os
import random
import statistics
import sys
import time
from collections.abc import Callable

from assignframe import ServerAssignor, ServerGroupSpec, ServerMember, ServerTopic, Uuid
from assignframe.plugins import get_plugin_manager

JAVA_SECONDS = {"U1": 0.016, "U2": 0.013, "U3": 0.029, "U4": 0.41, "R1": 0.15, "R2": 0.24}
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


def time_case(case: str, scale: float, repeat: int) -> tuple[float, float]:
    """Median wall-clock and median CPU seconds of one ``assign`` call."""
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
    return statistics.median(wall), statistics.median(cpu)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes")
    parser.add_argument("--repeat", type=int, default=9, help="timed calls per case (median)")
    parser.add_argument("cases", nargs="*", default=list(CASES), help="cases to run (default all)")
    args = parser.parse_args(argv)
    scale = 0.1 if args.quick else 1.0
    # CPU time is what the call itself used: on a shared, loaded machine wall time includes
    # waiting for a core, which Java's idle-machine figures do not.
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    header = ("case", "assignor", "wall", "cpu", "Java", "wall/Java", "cpu/Java")
    print("{:5} {:8} {:>9} {:>9} {:>9} {:>10} {:>9}".format(*header))
    for case in args.cases:
        wall, cpu = time_case(case, scale, args.repeat)
        java = JAVA_SECONDS[case]
        ratios = ("-", "-") if args.quick else (f"{wall / java:.2f}", f"{cpu / java:.2f}")
        print(
            f"{case:5} {CASES[case][0]:8} {wall * 1e3:7.1f}ms {cpu * 1e3:7.1f}ms "
            f"{java * 1e3:7.1f}ms {ratios[0]:>10} {ratios[1]:>9}"
        )
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
