"""Benchmark the live cluster reader on Apache Kafka 4.1 (on demand; never part of CI's pass/fail).

    python bench/bench_cluster.py                        # 2,000 groups, 20 live; watch 100 polls
    python bench/bench_cluster.py --groups 500 --polls 20   # quicker
    python bench/bench_cluster.py --bootstrap HOST:PORT  # an already running broker (no setup
                                                        # of groups: it must hold them)

Set-up (not through assignframe): a broker from ``shared/java/broker`` (started as the tests do,
:class:`assignframe.testing.kafka_node.KafkaNode`), a topic, ``--groups`` minus ``--live`` groups
that only committed offsets (confluent-kafka's AdminClient AlterConsumerGroupOffsets, one
OffsetCommit per group), and ``--live`` groups with real members in a process of their own
(confluent-kafka: half classic with range, half ``group.protocol=consumer``), so our CPU time
is ours only.

Measured: ``inspect``'s one pass over every group (wall time, our process's CPU time per group,
requests per API per coordinator against the bound issue 21 sets, groups/50 + 10), then ``watch``
polling every group ``--polls`` times (RSS at poll 10 and at the last poll, and their ratio;
issue 21 asks for at most 10% growth). Printed, and written to ``OUT/bench_cluster.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

TOPIC = "bench-orders"
PARTITIONS = 12
LIVE_PREFIX, OFFSETS_PREFIX = "bench-live-", "bench-offsets-"


# --------------------------------------------------------------------------- set-up
def start_broker(directory: Path):
    from assignframe.testing.kafka_node import KafkaNode, find_broker_dist

    node = KafkaNode(find_broker_dist(), directory)
    port = node.start()
    return node, f"127.0.0.1:{port}"


def create_topic(bootstrap: str) -> None:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)])[TOPIC].result(60)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(PARTITIONS * 100):
        producer.produce(TOPIC, b"r%d" % i, partition=i % PARTITIONS)
    producer.flush(60)


def commit_offsets_only(bootstrap: str, count: int) -> float:
    """``count`` groups holding committed offsets and no member; returns the seconds it took.
    A commit answered with a partition error (the first ones may meet __consumer_offsets still
    loading) is sent again."""
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
    from confluent_kafka.admin import AdminClient

    started = time.monotonic()
    admin = AdminClient({"bootstrap.servers": bootstrap})
    todo = [f"{OFFSETS_PREFIX}{n:05d}" for n in range(count)]
    for _ in range(10):
        failed = []
        for start in range(0, len(todo), 200):  # bounded in flight
            futures = {}
            for group in todo[start:start + 200]:
                n = int(group.rsplit("-", 1)[1])
                offsets = [TopicPartition(TOPIC, p, 10 + n % 50)
                           for p in range(n % 3, PARTITIONS, 3)]
                request = ConsumerGroupTopicPartitions(group, offsets)
                futures.update(admin.alter_consumer_group_offsets([request]))
            for group, future in futures.items():
                try:
                    answer = future.result(120)
                except Exception:  # noqa: BLE001  (retried below; counted if it never works)
                    failed.append(group)
                    continue
                if any(tp.error for tp in answer.topic_partitions):
                    failed.append(group)
        todo = failed
        if not todo:
            break
        time.sleep(1)
    if todo:
        raise SystemExit(f"{len(todo)} groups could not commit offsets, e.g. {todo[:3]}")
    return time.monotonic() - started


def serve_members(bootstrap: str, groups: int) -> None:
    """The live groups' members, in this process (``--serve-members``): 2 per group, polled
    round-robin until stdin closes. Prints ``ready`` once every member owns partitions."""
    import select

    from confluent_kafka import Consumer

    consumers = []
    for g in range(groups):
        protocol = "consumer" if g % 2 else "classic"
        for _ in range(2):
            settings = {"bootstrap.servers": bootstrap, "group.id": f"{LIVE_PREFIX}{g:02d}",
                        "group.protocol": protocol, "auto.offset.reset": "earliest"}
            if protocol == "classic":
                settings["partition.assignment.strategy"] = "range"
            consumer = Consumer(settings)
            consumer.subscribe([TOPIC])
            consumers.append(consumer)
    said = False
    deadline = time.monotonic() + 180
    while True:
        for consumer in consumers:
            consumer.poll(0.01)
        if not said and (all(c.assignment() for c in consumers) or time.monotonic() > deadline):
            print("ready" if all(c.assignment() for c in consumers) else "not all assigned",
                  flush=True)
            said = True
        if said and select.select([sys.stdin], [], [], 0)[0] and not sys.stdin.read(1):
            break
    for consumer in consumers:
        consumer.close()


def start_members(bootstrap: str, groups: int) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, __file__, "--serve-members", bootstrap,
                                "--live", str(groups)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline().strip()
    print(f"live members: {line}", flush=True)
    return process


# --------------------------------------------------------------------------- measurements
def measure_inspect(bootstrap: str, groups: int) -> dict:
    from assignframe.cluster.config import ClientConfig
    from assignframe.cluster.fleet import verdicts
    from assignframe.cluster.reader import GroupFilter, read_cluster
    from assignframe.cluster.transport import Transport

    wall, cpu = time.perf_counter(), time.process_time()
    transport = Transport(bootstrap, ClientConfig(), 60)
    try:
        read = read_cluster(transport, GroupFilter("^bench-"))
        judged = verdicts(read)
    finally:
        transport.close()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    per_coordinator: Counter[tuple[str, str]] = Counter()
    for (api, _, node), n in transport.sent.items():
        per_coordinator[(api, node)] += n
    bound = groups / 50 + 10
    unreadable = [v.unreadable for v in judged if v.unreadable]
    return {
        "groups_read": len(read.groups), "with_members": sum(v.members > 0 for v in judged),
        "unreadable": len(unreadable), "wall_s": wall, "cpu_s": cpu,
        "cpu_ms_per_group": 1000 * cpu / max(1, len(read.groups)),
        "wall_ms_per_group": 1000 * wall / max(1, len(read.groups)),
        "requests": {f"{api}@{node}": n for (api, node), n in sorted(per_coordinator.items())},
        "bound_per_api_per_coordinator": bound,
        "within_bound": all(n <= bound for n in per_coordinator.values()),
    }


def _rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def measure_watch(bootstrap: str, polls: int) -> dict:
    from assignframe.cluster.config import ClientConfig
    from assignframe.cluster.exporter import WatchMetrics
    from assignframe.cluster.reader import GroupFilter
    from assignframe.cluster.watch import WatchOptions, watch

    rss: dict[int, int] = {}
    times: list[float] = []
    started = time.monotonic()

    class Enough(Exception):
        pass

    def on_poll(done: int) -> None:
        times.append(time.monotonic())
        rss[done] = _rss_bytes()
        if done >= polls:
            raise Enough

    with tempfile.TemporaryDirectory() as scratch:
        options = WatchOptions(interval=0.001, history=Path(scratch) / "history.jsonl",
                               timeout=60)
        metrics = WatchMetrics()
        try:
            watch(bootstrap, ClientConfig(), GroupFilter("^bench-"), options, metrics,
                  say=lambda line: print(f"watch: {line}", file=sys.stderr), on_poll=on_poll)
        except Enough:
            pass
        history_lines = sum(1 for _ in open(options.history, encoding="utf-8"))
    first = min(10, polls)
    return {
        "polls": len(rss), "failed_polls": sum(metrics.errors.values()),
        "rss_mb_at_poll_1": rss[1] / 2**20, f"rss_mb_at_poll_{first}": rss[first] / 2**20,
        f"rss_mb_at_poll_{polls}": rss[polls] / 2**20,
        "rss_growth": rss[polls] / rss[first] - 1,
        "seconds_per_poll": (times[-1] - started) / len(times),
        "history_lines": history_lines,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--groups", type=int, default=2000)
    parser.add_argument("--live", type=int, default=20)
    parser.add_argument("--polls", type=int, default=100)
    parser.add_argument("--bootstrap", help="a running broker that already holds the groups")
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    parser.add_argument("--serve-members", metavar="BOOTSTRAP", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_members:
        serve_members(args.serve_members, args.live)
        return
    node = members = None
    results: dict = {"groups": args.groups, "live_groups": args.live}
    try:
        if args.bootstrap:
            bootstrap = args.bootstrap
        else:
            node, bootstrap = start_broker(Path(tempfile.mkdtemp(prefix="bench-kafka-")))
            create_topic(bootstrap)
            results["setup_offsets_only_s"] = commit_offsets_only(bootstrap,
                                                                  args.groups - args.live)
            members = start_members(bootstrap, args.live)
        results["inspect"] = measure_inspect(bootstrap, args.groups)
        _print_inspect(results["inspect"])
        results["watch"] = measure_watch(bootstrap, args.polls)
        _print_watch(results["watch"], args.polls)
    finally:
        if members is not None:
            members.stdin.close()
            members.wait(60)
        if node is not None:
            node.stop()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench_cluster.json").write_text(json.dumps(results, indent=1) + "\n")


def _print_inspect(found: dict) -> None:
    print(f"inspect: {found['groups_read']} groups ({found['with_members']} with members, "
          f"{found['unreadable']} unreadable) in {found['wall_s']:.2f} s wall, "
          f"{found['cpu_s']:.2f} s CPU: {found['wall_ms_per_group']:.2f} ms wall and "
          f"{found['cpu_ms_per_group']:.2f} ms CPU per group")
    print(f"requests per API per coordinator (bound {found['bound_per_api_per_coordinator']:.0f}):")
    for key, n in found["requests"].items():
        print(f"  {key:32} {n:5}")
    print(f"within the bound: {found['within_bound']}")


def _print_watch(found: dict, polls: int) -> None:
    first = min(10, polls)
    print(f"watch: {found['polls']} polls ({found['failed_polls']} failed), "
          f"{found['seconds_per_poll']:.2f} s per poll; RSS {found['rss_mb_at_poll_1']:.1f} MB at "
          f"poll 1, {found[f'rss_mb_at_poll_{first}']:.1f} MB at poll {first}, "
          f"{found[f'rss_mb_at_poll_{polls}']:.1f} MB at poll {polls}: "
          f"{100 * found['rss_growth']:+.1f}%; {found['history_lines']} history lines")


if __name__ == "__main__":
    main()
