"""Record a consumer-protocol (KIP-848) group on Apache Kafka 4.1 with dumpcap: the shipped sample
``assignframe/data/captures/kafka41_consumer_protocol.pcap`` and its ``.expected.json``.

    python scripts/record_consumer_protocol_capture.py OUT.pcap [--assignor uniform|range]...

Needs what the e2e tests need (Java 17 and a JDK's javac, ``../shared/java/broker`` and
``../shared/java/clients``, confluent-kafka 2.16.1) plus ``dumpcap`` with the right to capture on
``lo`` (root). It starts one Kafka 4.1 node (``assignframe.testing.kafka_node.KafkaNode``: the e2e
settings, consumer-protocol heartbeat 0.5 s, session 6 s) on a free port, captures
``tcp port PORT`` on loopback, and runs one group per ``--assignor`` (default: ``uniform`` then
``range``; each member names it in ``group.remote.assignor``) over two topics,
``orders`` (6 partitions) and ``payments`` (4), with 2 records per partition:

1. ``c0`` (confluent-kafka, both topics) joins;
2. ``c1`` (confluent-kafka, ``orders``) joins;
3. ``j2`` (Kafka's Java KafkaConsumer, ``tests/e2e/java/ConsumerProtocolRunner.java``, both topics)
   joins;
4. ``c1`` leaves (``close()``: a leave heartbeat);
5. ``c3`` (confluent-kafka, ``payments``) joins;
6. everybody leaves.

After each step it waits until ConsumerGroupDescribe (confluent-kafka's AdminClient, through the
captured port: the capture holds those answers too) shows exactly the live members, each holding
its target, and every member's own rebalance callbacks say the same. The confluent members consume
what they own and commit it synchronously; the Java runner neither commits nor logs records.

``OUT.expected.json`` (beside ``OUT.pcap``) holds what the members and the broker said, not what
decode makes of the capture: per group, the assignor, the topics (ids and partition counts as
DescribeTopics reported them), each member (member id, client, subscribed topics), each step's
ConsumerGroupDescribe (state, and per member its assignment and target), every member's rebalance
callbacks in order (``assigned``/``revoked``/``lost`` with the whole assignment after it), and the
members' assignments after the last step (from their callbacks, equal to the broker's targets).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TOPICS = {"orders": 6, "payments": 4}
RECORDS_PER_PARTITION = 2
#: name -> (client, subscribed topics), in joining order
MEMBERS = {
    "c0": ("confluent", ["orders", "payments"]),
    "c1": ("confluent", ["orders"]),
    "j2": ("java", ["orders", "payments"]),
    "c3": ("confluent", ["payments"]),
}
STEP_TIMEOUT = 90.0


class Recorder:
    """Every member's callbacks, one clock (seconds since the start), in arrival order."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.start = time.time()
        self.callbacks: list[dict[str, Any]] = []
        self.owned: dict[str, set[tuple[str, int]]] = {}

    def record(self, name: str, event: str, after: set[tuple[str, int]], **extra: Any) -> None:
        with self.lock:
            self.owned[name] = set(after)
            self.callbacks.append({
                "member": name, "event": event, "at": round(time.time() - self.start, 3),
                "assignment": sorted([t, p] for t, p in after), **extra,
            })  # fmt: skip


class ConfluentMember(threading.Thread):
    """A confluent-kafka consumer polling in its own thread; consumes and commits what it owns."""

    def __init__(self, bootstrap: str, group: str, assignor: str, name: str,
                 topics: list[str], recorder: Recorder) -> None:
        super().__init__(daemon=True, name=name)
        from confluent_kafka import Consumer

        self.member, self.topics, self.recorder = name, topics, recorder
        self.consumer = Consumer({
            "bootstrap.servers": bootstrap, "group.id": group, "client.id": name,
            "group.protocol": "consumer", "group.remote.assignor": assignor,
            "auto.offset.reset": "earliest", "enable.auto.commit": False,
        })  # fmt: skip
        self.owned: set[tuple[str, int]] = set()
        self.consumed: list[list[Any]] = []
        self.stopping = threading.Event()

    def _changed(self, event: str, partitions: Any) -> None:
        pairs = {(p.topic, p.partition) for p in partitions}
        self.owned = self.owned | pairs if event == "assigned" else self.owned - pairs
        self.recorder.record(self.member, event, self.owned)

    def run(self) -> None:
        self.consumer.subscribe(
            self.topics,
            on_assign=lambda _c, ps: self._changed("assigned", ps),
            on_revoke=lambda _c, ps: self._changed("revoked", ps),
            on_lost=lambda _c, ps: self._changed("lost", ps),
        )
        while not self.stopping.is_set():
            message = self.consumer.poll(0.2)
            if message is None or message.error():
                continue
            self.consumed.append([message.topic(), message.partition(), message.offset()])
            self.consumer.commit(message=message, asynchronous=False)
        self.consumer.close()  # the leave heartbeat (member epoch -1)

    def leave(self) -> None:
        self.stopping.set()
        self.join(60)


class JavaMember:
    """Kafka's own KafkaConsumer (the e2e ConsumerProtocolRunner); SIGTERM makes it leave."""

    def __init__(self, bootstrap: str, group: str, assignor: str, name: str,
                 topics: list[str], recorder: Recorder, log: Path) -> None:
        sys.path.insert(0, str(ROOT / "tests" / "e2e"))
        from java_member import LOG_OPTIONS, java_command  # the e2e suite's own launcher

        from assignframe.testing.paths import shared_path

        config = {"bootstrap": bootstrap, "group": group, "topics": topics,
                  "strategies": [assignor], "name": name, "group_protocol": "consumer"}
        self.member, self.recorder = name, recorder
        self.stderr = open(log, "wb")  # noqa: SIM115 - closed in leave()
        self.process = subprocess.Popen(
            java_command(config, shared_path(ROOT)), stdout=subprocess.PIPE,
            stderr=self.stderr, text=True,
            env={"CONSUMER_PROTOCOL_RUN_SECONDS": "600", "PATH": "/usr/bin:/bin",
                 "JAVALAB_JAVA_OPTS": " ".join(LOG_OPTIONS)},
        )  # fmt: skip
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                callback = json.loads(line)
            except ValueError:
                continue
            after = {(t, p) for t, p in callback["assignment"]}
            self.recorder.record(self.member, callback["event"], after,
                                 member_id=callback["member_id"])

    def leave(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(60)
        self.reader.join(10)
        self.stderr.close()


def _pairs(assignment: Any) -> list[list[Any]]:
    return sorted([tp.topic, tp.partition] for tp in assignment.topic_partitions)


def describe(admin: Any, group: str) -> dict[str, Any]:
    described = admin.describe_consumer_groups([group], request_timeout=10)[group].result()
    return {
        "type": str(described.type).rpartition(".")[2],
        "state": str(described.state).rpartition(".")[2],
        "partition_assignor": described.partition_assignor,
        "members": {
            m.client_id: {
                "member_id": m.member_id,
                "assignment": _pairs(m.assignment),
                "target": None if m.target_assignment is None else _pairs(m.target_assignment),
            }
            for m in described.members
        },
    }


def settled(admin: Any, group: str, live: set[str], recorder: Recorder) -> dict[str, Any] | None:
    """The group's description once exactly ``live`` are in it, each holding its target, as its
    own callbacks say too; else None."""
    try:
        view = describe(admin, group)
    except Exception:  # noqa: BLE001 - the group may not exist yet; asked again
        return None
    members = view["members"]
    if set(members) != live or view["state"] != "STABLE":
        return None
    with recorder.lock:
        own = {name: sorted([t, p] for t, p in recorder.owned.get(name, ())) for name in live}
    if any(m["target"] != m["assignment"] or m["assignment"] != own[n] for n, m in members.items()):
        return None
    return view


def wait_settled(admin: Any, group: str, live: set[str], recorder: Recorder,
                 step: str) -> dict[str, Any]:
    deadline = time.monotonic() + STEP_TIMEOUT
    while time.monotonic() < deadline:
        view = settled(admin, group, live, recorder)
        if view is not None:
            return view
        time.sleep(0.5)
    raise SystemExit(f"record: {group}: after {step!r} the group did not settle on {sorted(live)} "
                     f"within {STEP_TIMEOUT:.0f} s: {describe(admin, group)}")


def run_group(bootstrap: str, admin: Any, assignor: str, workdir: Path) -> dict[str, Any]:
    """One group's life; what its members and the broker reported."""
    group = f"kafka41-{assignor}"
    recorder = Recorder()
    members: dict[str, Any] = {}
    steps: list[dict[str, Any]] = []
    live: set[str] = set()

    def step(event: str) -> None:
        view = wait_settled(admin, group, live, recorder, event)
        steps.append({"event": event, "at": round(time.time() - recorder.start, 3), **view})
        print(f"record: {group}: {event}: " + ", ".join(
            f"{n}={m['assignment']}" for n, m in sorted(view["members"].items())), flush=True)

    for name, (client, topics) in MEMBERS.items():
        if name == "c3":
            members["c1"].leave()
            live.discard("c1")
            step("c1 leaves")
        if client == "java":
            members[name] = JavaMember(bootstrap, group, assignor, name, topics, recorder,
                                       workdir / f"{group}-{name}.log")
        else:
            members[name] = ConfluentMember(bootstrap, group, assignor, name, topics, recorder)
            members[name].start()
        live.add(name)
        step(f"{name} joins")
    with recorder.lock:  # before they leave: closing revokes everything
        final = {name: sorted([t, p] for t, p in recorder.owned[name]) for name in live}
    for name in sorted(live):
        members[name].leave()
    member_ids = {n: m["member_id"] for s in steps for n, m in s["members"].items()}
    return {
        "group_id": group,
        "assignor": assignor,
        "members": {
            name: {"member_id": member_ids[name], "client": client, "topics": topics}
            for name, (client, topics) in MEMBERS.items()
        },
        "steps": steps,
        "callbacks": recorder.callbacks,
        "final_assignments": final,
        "consumed": {
            name: sorted(m.consumed) for name, m in members.items()
            if isinstance(m, ConfluentMember)
        },
    }


def topic_ids(admin: Any, topics: dict[str, int] = TOPICS) -> dict[str, dict[str, Any]]:
    """topic -> its id (as DescribeTopics reported it) and partition count (``topics``)."""
    from confluent_kafka import TopicCollection

    from assignframe.javaorder import Uuid

    futures = admin.describe_topics(TopicCollection(list(topics)), request_timeout=10)
    out = {}
    for name, future in futures.items():
        i = future.result().topic_id
        out[name] = {"id": str(Uuid(i.get_most_significant_bits(), i.get_least_significant_bits())),
                     "partitions": topics[name]}
    return out


@contextlib.contextmanager
def dumpcap(port: int, pcap: Path, pcapng: bool = True) -> Iterator[None]:
    """``tcp port PORT`` on loopback into ``pcap`` while the block runs (dumpcap, root); pcapng,
    or the smaller libpcap format when not ``pcapng``."""
    process = subprocess.Popen(["dumpcap", "-q", "-i", "lo", "-f", f"tcp port {port}",
                                *([] if pcapng else ["-P"]), "-w", str(pcap)],
                               stderr=subprocess.PIPE)
    try:
        time.sleep(3)  # dumpcap opens the interface before it sees packets
        yield
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)
    pcap.chmod(0o644)


def record(pcap: Path, assignors: list[str]) -> dict[str, Any]:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    from assignframe.testing.kafka_node import KafkaNode, find_broker_dist

    workdir = Path(tempfile.mkdtemp(prefix="kafka41-capture-"))
    node = KafkaNode(find_broker_dist(ROOT), workdir / "node")
    port = node.start()
    bootstrap = f"127.0.0.1:{port}"
    print(f"record: Kafka 4.1 at {bootstrap} (log {node.log_path})", flush=True)
    try:
        with dumpcap(port, pcap):
            admin = AdminClient({"bootstrap.servers": bootstrap, "client.id": "recorder-admin"})
            for future in admin.create_topics(
                [NewTopic(t, n, 1) for t, n in TOPICS.items()], request_timeout=30
            ).values():
                future.result()
            producer = Producer({"bootstrap.servers": bootstrap, "client.id": "recorder-producer"})
            for topic, count in TOPICS.items():
                for partition in range(count):
                    for index in range(RECORDS_PER_PARTITION):
                        producer.produce(topic, f"{topic}-{partition}-{index}".encode(),
                                         partition=partition)
            if producer.flush(30):
                raise SystemExit("record: records not delivered within 30 s")
            topics = topic_ids(admin)
            groups = [run_group(bootstrap, admin, assignor, workdir) for assignor in assignors]
            del admin, producer  # their connections close before the broker stops
            time.sleep(2)
    finally:
        node.stop()
    shutil.rmtree(workdir)  # the node's data and logs, and the Java members' logs (kept on failure)
    return {
        "source": "scripts/record_consumer_protocol_capture.py",
        "broker": "Apache Kafka 4.1.0 (shared/java/broker), one KRaft node",
        "clients": {"confluent": "confluent-kafka 2.16.1 (librdkafka 2.16.0)",
                    "java": "Apache Kafka Java client 4.0.0-SNAPSHOT (shared/java/clients)"},
        "heartbeat_interval_ms": 500,
        "session_timeout_ms": 6000,
        "topics": topics,
        "records_per_partition": RECORDS_PER_PARTITION,
        "groups": groups,
    }


def write_expected(pcap: Path, expected: dict[str, Any]) -> None:
    """``OUT.expected.json`` beside ``OUT.pcap``, and one line saying what was written."""
    out = pcap.with_name(pcap.name.removesuffix(".pcap") + ".expected.json")
    out.write_text(json.dumps(expected, indent=1) + "\n")
    print(f"record: wrote {pcap} ({pcap.stat().st_size} bytes) and {out}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pcap", type=Path, help="the capture to write (OUT.pcap)")
    parser.add_argument("--assignor", action="append", choices=["uniform", "range"],
                        help="one group per assignor (default: uniform, range)")
    args = parser.parse_args(argv)
    expected = record(args.pcap.resolve(), args.assignor or ["uniform", "range"])
    write_expected(args.pcap, expected)
    return 0


if __name__ == "__main__":
    sys.exit(main())
