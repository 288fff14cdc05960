"""Benchmark the live cluster reader on Apache Kafka 4.1 against Kafka's own tool and librdkafka
(on demand; never part of CI's pass/fail).

    python bench/bench_cluster.py --brokers 3 --groups 10000 --polls 5   # issue 34 item 4
    python bench/bench_cluster.py --brokers 3 --groups 2000              # quicker
    python bench/bench_cluster.py --brokers 1 --groups 500 --polls 20    # one node
    python bench/bench_cluster.py --brokers 3 --groups 2000 --setup-only # leave it running:
        # prints "bootstrap HOST:PORT,..."; Ctrl-C (or SIGTERM) stops the cluster and members
    python bench/bench_cluster.py --bootstrap HOST:PORT,... --groups N   # measure a running one

Set-up (not through assignframe): ``--brokers`` Kafka nodes from ``shared/java/broker`` started
as the tests start them (one: :class:`assignframe.testing.kafka_node.KafkaNode`; several:
:class:`assignframe.testing.kafka_cluster.KafkaCluster`, a KRaft quorum with Kafka's own
configuration, ``__consumer_offsets`` replicated to all of them, so group coordinators spread
over the brokers), a topic, ``--groups`` minus ``--live`` groups that only committed offsets
(confluent-kafka's AdminClient AlterConsumerGroupOffsets, one OffsetCommit per group, many in
flight), and ``--live`` groups with real members in a process of their own (confluent-kafka:
half classic with range, half ``group.protocol=consumer``), so our CPU time is ours only.

Measured in one run, against the same cluster:

* ``assignframe inspect`` as an operator runs it (a process of its own: wall time, and its CPU
  time from the kernel's rusage), as the rich table (``--format table``), as plain columns (the
  default when stdout is not a terminal) and as ``--json``;
* ``kafka-consumer-groups.sh --describe --all-groups`` (``shared/java/tools``): wall and CPU;
* confluent-kafka's AdminClient doing the bare work: list the groups, describe them, fetch every
  group's committed offsets and the topic's end offsets (a process of its own: wall and CPU);
* the reader's pass in this process (wall, CPU, requests per API per coordinator against the
  bound issue 21 sets, groups/50 + 10: they grow with coordinators and batches only);
* ``watch`` polling every group ``--polls`` times: CPU and wall per poll, RSS.

Printed with the ratios (inspect over each peer), the load average, and written to
``OUT/bench_cluster.json``. Progress goes to stderr with the time since the start.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

TOPIC = "bench-orders"
PARTITIONS = 12
LIVE_PREFIX, OFFSETS_PREFIX = "bench-live-", "bench-offsets-"
ROOT = Path(__file__).resolve().parents[1]
#: commits in flight while setting up offsets-only groups
IN_FLIGHT = 500
STARTED = time.monotonic()


def progress(line: str) -> None:
    print(f"[{time.monotonic() - STARTED:7.1f} s] {line}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- set-up
def start_brokers(count: int, directory: Path):
    """``count`` nodes; returns what to stop and the bootstrap address."""
    from assignframe.testing.kafka_node import KafkaNode, find_broker_dist

    if count == 1:
        node = KafkaNode(find_broker_dist(ROOT), directory)
        node.start()
        return node, node.bootstrap
    from assignframe.testing.kafka_cluster import KafkaCluster

    cluster = KafkaCluster(find_broker_dist(ROOT), directory, size=count)
    cluster.start()
    return cluster, cluster.bootstrap


def create_topic(bootstrap: str, replicas: int) -> None:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, PARTITIONS, replicas)])[TOPIC].result(120)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(PARTITIONS * 100):
        producer.produce(TOPIC, b"r%d" % i, partition=i % PARTITIONS)
    producer.flush(120)


def commit_offsets_only(bootstrap: str, count: int) -> float:
    """``count`` groups holding committed offsets and no member; returns the seconds it took.
    :data:`IN_FLIGHT` commits at a time; one answered with an error (the first ones may meet
    ``__consumer_offsets`` still loading, or a coordinator not elected yet) is sent again."""
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
    from confluent_kafka.admin import AdminClient

    started = time.monotonic()
    admin = AdminClient({"bootstrap.servers": bootstrap})
    todo = [f"{OFFSETS_PREFIX}{n:05d}" for n in range(count)]
    for attempt in range(10):
        failed = []
        for start in range(0, len(todo), IN_FLIGHT):
            futures = {}
            for group in todo[start:start + IN_FLIGHT]:
                n = int(group.rsplit("-", 1)[1])
                offsets = [TopicPartition(TOPIC, p, 10 + n % 50)
                           for p in range(n % 3, PARTITIONS, 3)]
                request = ConsumerGroupTopicPartitions(group, offsets)
                futures.update(admin.alter_consumer_group_offsets([request],
                                                                  request_timeout=120))
            for group, future in futures.items():
                try:
                    answer = future.result(180)
                except Exception:  # noqa: BLE001  (retried below; counted if it never works)
                    failed.append(group)
                    continue
                if any(tp.error for tp in answer.topic_partitions):
                    failed.append(group)
            if start // IN_FLIGHT % 4 == 0:
                progress(f"offsets-only groups: {min(len(todo), start + IN_FLIGHT)} of "
                         f"{len(todo)} sent "
                         f"(attempt {attempt + 1})")
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
    deadline = time.monotonic() + 300
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


def start_members(bootstrap: str, groups: int, seconds: float = 360) -> subprocess.Popen:
    """The members' process, once it said ``ready`` (or that not all were assigned); it is
    stopped and this fails when it says nothing within ``seconds``."""
    import select

    process = subprocess.Popen([sys.executable, __file__, "--serve-members", bootstrap,
                                "--live", str(groups)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    if not select.select([process.stdout], [], [], seconds)[0]:
        process.kill()
        raise SystemExit(f"the members' process said nothing in {seconds:.0f} s")
    progress(f"live members: {process.stdout.readline().strip()}")
    return process


# --------------------------------------------------------------------------- peers
def run_timed(command: list[str], seconds: float, env: dict | None = None) -> dict:
    """Run ``command`` (stdout to a scratch file); its wall time, CPU time (user + system, from
    the kernel's rusage of that child and its children) and the lines it printed."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        wall = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env,
                                   start_new_session=True)
        deadline = time.monotonic() + seconds
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                os.killpg(process.pid, signal.SIGKILL)
                pid, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.02)
        wall = time.perf_counter() - wall
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        lines = out.read().decode(errors="replace").splitlines()
        errors = err.read().decode(errors="replace").splitlines()
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "exit": process.returncode,
            "lines": len(lines), "stderr_tail": errors[-3:], "last_line": (lines or [""])[-1]}


def measure_cli(bootstrap: str, extra: list[str]) -> dict:
    command = [sys.executable, "-m", "assignframe", "inspect", "--bootstrap-server", bootstrap,
               "--timeout", "120", *extra]
    return run_timed(command, 900, env=_this_checkout())


def _this_checkout() -> dict:
    """The environment of a child that must run this checkout's assignframe (a tox env holds
    an installed copy)."""
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": str(ROOT) + (os.pathsep + path if path else "")}


def measure_kafka_tool(bootstrap: str) -> dict:
    from assignframe.testing.paths import shared_path

    tool = shared_path(ROOT) / "java" / "tools" / "bin" / "kafka-consumer-groups.sh"
    return run_timed(["sh", str(tool), "--bootstrap-server", bootstrap, "--describe",
                      "--all-groups", "--timeout", "120000"], 900)


def admin_pass(bootstrap: str) -> None:
    """``--admin-pass``: librdkafka's bare work, in this process: list every consumer group,
    describe them (batches, all in flight), fetch each group's committed offsets (one group a
    request: librdkafka's ListConsumerGroupOffsets takes one), and the end offsets of every
    partition committed to. Prints one JSON line of counts."""
    from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
    from confluent_kafka.admin import AdminClient, OffsetSpec

    admin = AdminClient({"bootstrap.servers": bootstrap})
    listed = admin.list_consumer_groups(request_timeout=120).result(300)
    ids = [g.group_id for g in listed.valid]
    described = {}
    for start in range(0, len(ids), 1000):
        futures = admin.describe_consumer_groups(ids[start:start + 1000], request_timeout=120)
        described.update({g: f.result(300) for g, f in futures.items()})
    committed: dict[str, list] = {}
    for start in range(0, len(ids), IN_FLIGHT):
        futures = {g: admin.list_consumer_group_offsets(
            [ConsumerGroupTopicPartitions(g)], request_timeout=120)[g]
            for g in ids[start:start + IN_FLIGHT]}
        committed.update({g: f.result(300).topic_partitions for g, f in futures.items()})
    partitions = {(tp.topic, tp.partition) for tps in committed.values() for tp in tps}
    ends = admin.list_offsets({TopicPartition(t, p): OffsetSpec.latest()
                               for t, p in sorted(partitions)}, request_timeout=120)
    end_offsets = {tp: f.result(300).offset for tp, f in ends.items()}
    print(json.dumps({"groups": len(ids), "described": len(described),
                      "with_members": sum(bool(d.members) for d in described.values()),
                      "committed": sum(len(tps) for tps in committed.values()),
                      "end_offsets": len(end_offsets)}))


def measure_admin(bootstrap: str) -> dict:
    found = run_timed([sys.executable, __file__, "--admin-pass", bootstrap], 900)
    return found


# --------------------------------------------------------------------------- in this process
def measure_reader(bootstrap: str, groups: int) -> dict:
    """The reader's pass and the verdicts, in this process (no start-up, no output)."""
    from assignframe.cluster.config import ClientConfig
    from assignframe.cluster.group_records import READ_BUDGET_S, GroupMetadataLog
    from assignframe.cluster.inspection import verdicts
    from assignframe.cluster.reader import GroupFilter, read_cluster
    from assignframe.cluster.transport import Transport

    wall, cpu = time.perf_counter(), time.process_time()
    transport = Transport(bootstrap, ClientConfig(), 120)
    group_log = GroupMetadataLog(bootstrap, ClientConfig(), 120, READ_BUDGET_S)
    try:
        read = read_cluster(transport, GroupFilter("^bench-"), group_log)
        read_wall, read_cpu = time.perf_counter() - wall, time.process_time() - cpu
        judged = verdicts(read)
    finally:
        transport.close()
        group_log.close()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    per_coordinator: Counter[tuple[str, str]] = Counter()
    for (api, _, node), n in transport.sent.items():
        per_coordinator[(api, node)] += n
    bound = groups / 50 + 10
    return {
        "groups_read": len(read.groups), "with_members": sum(v.members > 0 for v in judged),
        "unreadable": sum(1 for v in judged if v.unreadable), "wall_s": wall, "cpu_s": cpu,
        "read_wall_s": read_wall, "read_cpu_s": read_cpu,
        "cpu_ms_per_group": 1000 * cpu / max(1, len(read.groups)),
        "wall_ms_per_group": 1000 * wall / max(1, len(read.groups)),
        "coordinators": len({g.coordinator for g in read.groups}),
        "requests": {f"{api}@{node}": n for (api, node), n in sorted(per_coordinator.items())},
        "bound_per_api_per_coordinator": bound,
        "within_bound": all(n <= bound for n in per_coordinator.values()),
        "notes": read.notes, "notices": read.notices,
    }


def _rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def measure_watch(bootstrap: str, polls: int) -> dict:
    """``watch`` polling back to back; CPU and wall per poll (the first poll apart: it reads
    ``__consumer_offsets`` from its start, the next ones read on)."""
    from assignframe.cluster.config import ClientConfig
    from assignframe.cluster.exporter import WatchMetrics
    from assignframe.cluster.reader import GroupFilter
    from assignframe.cluster.watch import WatchOptions, watch

    rss: dict[int, int] = {}
    marks: list[tuple[float, float]] = [(time.monotonic(), time.process_time())]

    class Enough(Exception):
        pass

    def on_poll(done: int) -> None:
        marks.append((time.monotonic(), time.process_time()))
        rss[done] = _rss_bytes()
        if done >= polls:
            raise Enough

    with tempfile.TemporaryDirectory() as scratch:
        options = WatchOptions(interval=0.001, history=Path(scratch) / "history.jsonl",
                               timeout=120)
        metrics = WatchMetrics()
        try:
            watch(bootstrap, ClientConfig(), GroupFilter("^bench-"), options, metrics,
                  say=lambda line: progress(f"watch: {line}"), on_poll=on_poll)
        except Enough:
            pass
        with open(options.history, encoding="utf-8") as history:
            history_lines = sum(1 for _ in history)
    steady = marks[1:]
    later = len(steady) - 1
    first = min(10, polls)
    return {
        "polls": len(rss), "failed_polls": sum(metrics.errors.values()),
        "first_poll_wall_s": marks[1][0] - marks[0][0],
        "first_poll_cpu_s": marks[1][1] - marks[0][1],
        "wall_s_per_poll": (steady[-1][0] - steady[0][0]) / later if later else None,
        "cpu_s_per_poll": (steady[-1][1] - steady[0][1]) / later if later else None,
        "rss_mb_at_poll_1": rss[1] / 2**20, f"rss_mb_at_poll_{first}": rss[first] / 2**20,
        f"rss_mb_at_poll_{polls}": rss[polls] / 2**20,
        "rss_growth": rss[polls] / rss[first] - 1,
        "history_lines": history_lines,
    }


# --------------------------------------------------------------------------- the run
def measure(bootstrap: str, args: argparse.Namespace, results: dict) -> None:
    results["load_before"] = os.getloadavg()
    progress("inspect --format table")
    results["inspect_table"] = measure_cli(bootstrap, ["--format", "table"])
    progress("inspect (plain: stdout is not a terminal)")
    results["inspect_plain"] = measure_cli(bootstrap, [])
    progress("inspect --json")
    results["inspect_json"] = measure_cli(bootstrap, ["--json"])
    progress("kafka-consumer-groups.sh --describe --all-groups")
    results["kafka_consumer_groups"] = measure_kafka_tool(bootstrap)
    progress("confluent-kafka AdminClient: list + describe + offsets")
    results["admin_client"] = measure_admin(bootstrap)
    progress("the reader's pass in this process")
    results["reader"] = measure_reader(bootstrap, args.groups)
    if args.polls:
        progress(f"watch, {args.polls} polls")
        results["watch"] = measure_watch(bootstrap, args.polls)
    results["load_after"] = os.getloadavg()
    report(results)


def report(results: dict) -> None:
    table, plain, as_json = (results[k] for k in ("inspect_table", "inspect_plain",
                                                   "inspect_json"))
    tool, admin = results["kafka_consumer_groups"], results["admin_client"]
    print(f"{results['groups']} groups ({results['live_groups']} live) on "
          f"{results['brokers']} broker(s); load average "
          f"{results['load_before'][0]:.1f} before, {results['load_after'][0]:.1f} after")
    print(f"{'':44} {'wall s':>8} {'CPU s':>8} {'exit':>5} {'lines':>7}")
    for name, found in (("assignframe inspect --format table", table),
                        ("assignframe inspect (plain, piped)", plain),
                        ("assignframe inspect --json", as_json),
                        ("kafka-consumer-groups.sh --describe --all-groups", tool),
                        ("confluent-kafka AdminClient list+describe+offsets", admin)):
        print(f"{name:44} {found['wall_s']:8.2f} {found['cpu_s']:8.2f} {found['exit']:5} "
              f"{found['lines']:7}")
        if found["exit"] not in (0, 1):
            print(f"    stderr: {' | '.join(found['stderr_tail'])}")
    for name, found in (("table", table), ("plain", plain), ("--json", as_json)):
        print(f"inspect {name:7}: {found['wall_s'] / tool['wall_s']:.2f}x the wall of "
              f"kafka-consumer-groups.sh; {found['wall_s'] / admin['wall_s']:.2f}x the wall and "
              f"{found['cpu_s'] / admin['cpu_s']:.2f}x the CPU of the AdminClient")
    reader = results["reader"]
    print(f"reader pass: {reader['groups_read']} groups ({reader['with_members']} with members, "
          f"{reader['unreadable']} unreadable) over {reader['coordinators']} coordinators: "
          f"read {reader['read_wall_s']:.2f} s wall / {reader['read_cpu_s']:.2f} s CPU, with "
          f"verdicts {reader['wall_s']:.2f} s / {reader['cpu_s']:.2f} s "
          f"({reader['cpu_ms_per_group']:.3f} ms CPU per group)")
    print(f"requests per API per coordinator (bound {reader['bound_per_api_per_coordinator']:.0f}"
          f", within: {reader['within_bound']}):")
    for key, n in reader["requests"].items():
        print(f"  {key:32} {n:5}")
    if "watch" in results:
        w = results["watch"]
        print(f"watch: {w['polls']} polls ({w['failed_polls']} failed); first poll "
              f"{w['first_poll_wall_s']:.2f} s wall / {w['first_poll_cpu_s']:.2f} s CPU; then "
              f"{_num(w['wall_s_per_poll'])} s wall and {_num(w['cpu_s_per_poll'])} s CPU per "
              f"poll; RSS {w['rss_mb_at_poll_1']:.1f} MB at poll 1, "
              f"{100 * w['rss_growth']:+.1f}% since poll {min(10, w['polls'])}")


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--brokers", type=int, default=3, help="Kafka nodes (default 3)")
    parser.add_argument("--groups", type=int, default=2000)
    parser.add_argument("--live", type=int, default=20)
    parser.add_argument("--polls", type=int, default=5, help="watch polls (0: no watch)")
    parser.add_argument("--bootstrap", help="a running cluster that already holds the groups")
    parser.add_argument("--setup-only", action="store_true",
                        help="set up, print the bootstrap, keep running until Ctrl-C/SIGTERM")
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    parser.add_argument("--serve-members", metavar="BOOTSTRAP", help=argparse.SUPPRESS)
    parser.add_argument("--admin-pass", metavar="BOOTSTRAP", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))  # this checkout's assignframe, also where a copy is installed
    if args.serve_members:
        serve_members(args.serve_members, args.live)
        return
    if args.admin_pass:
        admin_pass(args.admin_pass)
        return
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stops the cluster on the way out
    brokers = members = None
    scratch: Path | None = None
    results: dict = {"groups": args.groups, "live_groups": args.live, "brokers": args.brokers}
    try:
        if args.bootstrap:
            bootstrap = args.bootstrap
        else:
            progress(f"starting {args.brokers} Kafka node(s)")
            scratch = Path(tempfile.mkdtemp(prefix="bench-kafka-"))
            brokers, bootstrap = start_brokers(args.brokers, scratch)
            progress(f"bootstrap {bootstrap}; creating the topic")
            create_topic(bootstrap, min(3, args.brokers))
            results["setup_offsets_only_s"] = commit_offsets_only(bootstrap,
                                                                  args.groups - args.live)
            progress(f"{args.groups - args.live} offsets-only groups in "
                     f"{results['setup_offsets_only_s']:.1f} s; starting the live members")
            members = start_members(bootstrap, args.live)
        if args.setup_only:
            print(f"bootstrap {bootstrap}", flush=True)
            while True:
                time.sleep(3600)
        measure(bootstrap, args, results)
    finally:
        if members is not None:
            assert members.stdin is not None
            members.stdin.close()
            members.wait(60)
        if brokers is not None:
            brokers.stop()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench_cluster.json").write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
