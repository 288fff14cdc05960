"""Record a share group (KIP-932) on Apache Kafka 4.3.1 with dumpcap: the shipped sample
``assignframe/data/captures/share/kafka43_share_group.pcap`` and its ``.expected.json`` (in
``share/``: the audit does not read share-group snapshots yet, and ``captures/*.pcap`` is its
input in the README and the demo).

    python scripts/record_share_group_capture.py OUT.pcap

Needs Java 17, ``../shared/java/broker-4.3`` (with ``broker/`` beside it) and
``../shared/java/clients-4.3``, confluent-kafka (topics, records) and ``dumpcap`` with the right
to capture on ``lo`` (root). It starts one Kafka 4.3.1 node (``KafkaNode`` with version 4.3:
share heartbeat 1 s, session 6 s) on a free port, captures ``tcp port PORT`` on loopback
(the dumpcap helper of ``record_consumer_protocol_capture.py``), creates ``jobs`` (4
partitions) and ``alerts`` (2) with one record per partition, and runs one share group,
``kafka43-share``, of real ``KafkaShareConsumer`` members (``clients-4.3/run-share-consumer.sh``,
one topic each):

1. ``s0`` (``jobs``) joins;
2. ``s1`` (``jobs``) joins;
3. ``s2`` (``alerts``) joins;
4. ``s1`` leaves (SIGTERM: its leave heartbeat, member epoch -1);
5. ``s2`` is killed (``kill -9``: no leave; the broker fences it after the session timeout);
6. ``s0`` leaves.

After each step it waits until Kafka's Admin (``clients-4.3/describe-group.sh`` through the
captured port, so the capture holds those ShareGroupDescribe answers) shows exactly the live
members, Stable, every member at the assignment epoch and every subscribed partition held, and
each live member's own last printed assignment equal to what Admin says it holds.

``OUT.expected.json`` holds what the members and the broker said, not what decode makes of the
capture: the topics (ids, partition counts), each member (member id, topic), each step's Admin
description, and every line the members printed (``started``, ``assignment`` with its member
epoch, ``records``).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests" / "kafka43"))

from record_consumer_protocol_capture import dumpcap, topic_ids, write_expected  # noqa: E402
from runners import JvmMember, describe, start_runner  # noqa: E402  (the 4.3 tests' runners)

GROUP = "kafka43-share"
TOPICS = {"jobs": 4, "alerts": 2}
#: name -> its topic, in joining order
MEMBERS = {"s0": "jobs", "s1": "jobs", "s2": "alerts"}
STEP_TIMEOUT = 120.0
SESSION_TIMEOUT = 6.0  # group.share.session.timeout.ms of the test node (kafka_node)


def printed_settled(live: dict[str, JvmMember]) -> bool:
    """The live members' own last assignments hold every partition of their topics (asked
    before Admin is, so that few describe calls, each a JVM and its connections, are captured)."""
    held = set()
    for runner in live.values():
        line = runner.last("assignment")
        if line is None or not line["assignment"]:
            return False
        held |= {tuple(p) for p in line["assignment"]}
    return held == {(MEMBERS[n], p) for n in live for p in range(TOPICS[MEMBERS[n]])}


def settled(bootstrap: str, live: dict[str, JvmMember]) -> dict[str, Any] | None:
    """Admin's description once exactly ``live`` are in the group, settled (see the module
    docstring); else None."""
    try:
        view = describe(bootstrap, "share", GROUP)
    except (AssertionError, ValueError, OSError):
        return None
    if not live:  # after the last leave: the group is empty (or gone)
        return view if "error" in view or not view["members"] else None
    if "error" in view:
        return None
    members = {m["client_id"]: m for m in view["members"]}
    if set(members) != set(live) or view["state"] != "Stable":
        return None
    if view["assignment_epoch"] != view["group_epoch"] or any(
            m["member_epoch"] != view["assignment_epoch"] for m in members.values()):
        return None
    held = {tuple(p) for m in members.values() for p in m["assignment"]}
    wanted = {(MEMBERS[n], p) for n in live for p in range(TOPICS[MEMBERS[n]])}
    if held != wanted:
        return None
    for name, runner in live.items():
        line = runner.last("assignment")
        if line is None or sorted(line["assignment"]) != sorted(members[name]["assignment"]):
            return None
    return view


def wait_settled(bootstrap: str, live: dict[str, JvmMember], step: str) -> dict[str, Any]:
    deadline = time.monotonic() + STEP_TIMEOUT
    while time.monotonic() < deadline:
        view = settled(bootstrap, live) if printed_settled(live) else None
        if view is not None:
            return view
        time.sleep(1)
    raise SystemExit(f"record: after {step!r} the group did not settle on {sorted(live)} within "
                     f"{STEP_TIMEOUT:.0f} s: {describe(bootstrap, 'share', GROUP)}")


def run_group(bootstrap: str, workdir: Path) -> dict[str, Any]:
    start = time.time()
    members: dict[str, JvmMember] = {}
    live: dict[str, JvmMember] = {}
    steps: list[dict[str, Any]] = []

    def step(event: str) -> None:
        view = wait_settled(bootstrap, live, event)
        steps.append({"event": event, "at": round(time.time() - start, 3), "describe": view})
        print(f"record: {event}: " + ", ".join(
            f"{m['client_id']}={m['assignment']}@{m['member_epoch']}"
            for m in view.get("members", ())), flush=True)

    for name, topic in MEMBERS.items():
        # the first member sets the group's share.auto.offset.reset=earliest (through Admin)
        env = None if name == "s0" else {"CLIENTS43_SHARE_AUTO_OFFSET_RESET": "keep"}
        members[name] = live[name] = start_runner(
            "run-share-consumer.sh", (bootstrap, GROUP, topic, name), workdir / f"{name}.log",
            env)
        step(f"{name} joins")
    live.pop("s1").terminate()
    step("s1 leaves")
    live.pop("s2").kill()
    time.sleep(SESSION_TIMEOUT)  # the broker fences it when its session times out
    step("s2 is killed")
    live.pop("s0").terminate()
    step("s0 leaves")
    printed = {name: m.drain() for name, m in members.items()}
    ids = {name: next(line["member_id"] for line in lines if line.get("member_id"))
           for name, lines in printed.items()}
    return {
        "group_id": GROUP,
        "members": {name: {"member_id": ids[name], "topic": topic}
                    for name, topic in MEMBERS.items()},
        "steps": steps,
        "printed": printed,
    }


def record(pcap: Path) -> dict[str, Any]:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    from assignframe.testing.kafka_node import KafkaNode, find_broker_dist

    workdir = Path(tempfile.mkdtemp(prefix="kafka43-share-capture-"))
    node = KafkaNode(find_broker_dist(ROOT, version="4.3"), workdir / "node")
    port = node.start()
    bootstrap = f"127.0.0.1:{port}"
    print(f"record: Kafka 4.3.1 at {bootstrap} (log {node.log_path})", flush=True)
    try:
        with dumpcap(port, pcap, pcapng=False):
            admin = AdminClient({"bootstrap.servers": bootstrap, "client.id": "recorder-admin"})
            for future in admin.create_topics(
                [NewTopic(t, n, 1) for t, n in TOPICS.items()], request_timeout=30
            ).values():
                future.result()
            producer = Producer({"bootstrap.servers": bootstrap,
                                 "client.id": "recorder-producer"})
            for topic, count in TOPICS.items():
                for partition in range(count):
                    producer.produce(topic, f"{topic}-{partition}".encode(), partition=partition)
            if producer.flush(30):
                raise SystemExit("record: records not delivered within 30 s")
            topics = topic_ids(admin, TOPICS)
            del admin, producer  # their connections close now: fewer packets
            group = run_group(bootstrap, workdir)
            time.sleep(2)
    finally:
        node.stop()
    shutil.rmtree(workdir)  # the node's data and logs, and the members' logs (kept on failure)
    return {
        "source": "scripts/record_share_group_capture.py",
        "broker": "Apache Kafka 4.3.1 (shared/java/broker-4.3), one KRaft node",
        "clients": "Apache Kafka KafkaShareConsumer 4.3.1 (shared/java/clients-4.3)",
        "heartbeat_interval_ms": 1000,
        "session_timeout_ms": 6000,
        "topics": topics,
        "groups": [group],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pcap", type=Path, help="the capture to write (OUT.pcap)")
    args = parser.parse_args(argv)
    expected = record(args.pcap.resolve())
    write_expected(args.pcap, expected)
    return 0


if __name__ == "__main__":
    sys.exit(main())
