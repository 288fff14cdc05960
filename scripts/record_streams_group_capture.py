"""Record a Streams group (KIP-1071) on Apache Kafka 4.3.1 with dumpcap: the shipped sample
``assignframe/data/captures/streams/kafka43_streams_group.pcap`` and its ``.expected.json``
(in ``streams/``, as the share capture is in ``share/``: the audit reads no Streams snapshot).

    python scripts/record_streams_group_capture.py OUT.pcap

Needs Java 17, ``../shared/java/broker-4.3`` (with ``broker/`` beside it) and
``../shared/java/clients-4.3``, confluent-kafka (topics, records), ``dumpcap`` with the right to
capture on ``lo`` (root) and ``tshark``. It starts one Kafka 4.3.1 node (``KafkaNode`` with
version 4.3: Streams heartbeat 1 s, session 6 s) on a free port, captures ``tcp port PORT`` on
loopback (the dumpcap helper of ``record_consumer_protocol_capture.py``), creates ``words`` (4
partitions), ``clicks`` (2) and ``shouts`` (1) with one record per input partition, and runs
one Streams application, ``kafka43-streams``, of real Kafka Streams members
(``clients-4.3/run-streams-member.sh``, one stream thread each, so one group member each):
sub-topology 0 reads ``words``, sub-topology 1 reads ``clicks``, both write ``shouts``; tasks
``0_0``..``0_3`` and ``1_0``, ``1_1``.

1. ``st0`` joins;
2. ``st1`` joins;
3. ``st2`` joins;
4. ``st1`` leaves (SIGTERM: ``close()`` sends its leave heartbeat, member epoch -1);
5. ``st2`` is killed (``kill -9``: no leave; the broker fences it after the session timeout);
6. ``st0`` leaves.

After each step it waits until Kafka's Admin (``clients-4.3/describe-group.sh`` through the
captured port, so the capture holds those StreamsGroupDescribe answers) shows exactly the live
members, Stable, every member at the assignment epoch, every task active on one member, and each
live member's own last printed tasks (per stream thread) equal to what Admin says it holds.

The capture is then cut to the TCP connections that carry a StreamsGroupHeartbeat or
StreamsGroupDescribe exchange (tshark; whole connections, so every kept frame reassembles):
the members' fetch, produce and admin connections would make it several times larger and
decode reads nothing from them.

``OUT.expected.json`` holds what the members and the broker said, not what decode makes of the
capture: the topics (ids, partition counts), each member (member id as Admin named it, its
thread's client id), each step's Admin description, and every line the members printed
(``state``, ``tasks`` with each thread's active and standby tasks).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
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

GROUP = "kafka43-streams"
INPUT, INPUT2, OUTPUT = "words", "clicks", "shouts"
TOPICS = {INPUT: 4, INPUT2: 2, OUTPUT: 1}
TASKS = [f"0_{p}" for p in range(TOPICS[INPUT])] + [f"1_{p}" for p in range(TOPICS[INPUT2])]
MEMBERS = ("st0", "st1", "st2")  # in joining order, one stream thread each
STEP_TIMEOUT = 120.0
SESSION_TIMEOUT = 6.0  # group.streams.session.timeout.ms of the test node (kafka_node)


def thread(name: str) -> str:
    """The client id of a member's (its only stream thread's) consumer, as Admin shows it."""
    return f"{name}-StreamThread-1-consumer"


def printed(live: dict[str, JvmMember]) -> dict[str, list[str]] | None:
    """Each live member's active tasks as it last printed them, when together they hold every
    task (asked before Admin is, so that few describe calls are captured); else None."""
    held = {}
    for name, runner in live.items():
        line = runner.last("tasks")
        tasks = ((line or {}).get("threads") or {}).get(thread(name))
        if not tasks or not tasks["active"]:
            return None
        held[name] = tasks["active"]
    together = sorted(t for tasks in held.values() for t in tasks)
    return held if together == sorted(TASKS) else None


def settled(bootstrap: str, live: dict[str, JvmMember]) -> dict[str, Any] | None:
    """Admin's description once exactly ``live`` are in the group, settled (see the module
    docstring); else None."""
    try:
        view = describe(bootstrap, "streams", GROUP)
    except (AssertionError, ValueError, OSError, subprocess.TimeoutExpired):
        return None
    if not live:  # after the last leave: the group is empty (or gone)
        return view if "error" in view or not view["members"] else None
    if "error" in view:
        return None
    members = {m["client_id"]: m for m in view["members"]}
    if set(members) != {thread(n) for n in live} or view["state"] != "Stable":
        return None
    if view["assignment_epoch"] != view["group_epoch"] or any(
            m["member_epoch"] != view["assignment_epoch"] for m in members.values()):
        return None
    if any(m["active"] != m["target_active"] for m in members.values()):
        return None
    if sorted(t for m in members.values() for t in m["active"]) != sorted(TASKS):
        return None
    own = printed(live) or {}
    if any(own.get(n) != members[thread(n)]["active"] for n in live):
        return None
    return view


def wait_settled(bootstrap: str, live: dict[str, JvmMember], step: str) -> dict[str, Any]:
    deadline = time.monotonic() + STEP_TIMEOUT
    while time.monotonic() < deadline:
        view = settled(bootstrap, live) if not live or printed(live) else None
        if view is not None:
            return view
        time.sleep(1)
    raise SystemExit(f"record: after {step!r} the group did not settle on {sorted(live)} within "
                     f"{STEP_TIMEOUT:.0f} s: {describe(bootstrap, 'streams', GROUP)}")


def run_group(bootstrap: str, workdir: Path) -> dict[str, Any]:
    start = time.time()
    members: dict[str, JvmMember] = {}
    live: dict[str, JvmMember] = {}
    steps: list[dict[str, Any]] = []

    def step(event: str) -> None:
        view = wait_settled(bootstrap, live, event)
        steps.append({"event": event, "at": round(time.time() - start, 3), "describe": view})
        print(f"record: {event}: " + ", ".join(
            f"{m['client_id']}={m['active']}@{m['member_epoch']}"
            for m in view.get("members", ())), flush=True)

    for name in MEMBERS:
        members[name] = live[name] = start_runner(
            "run-streams-member.sh", (bootstrap, GROUP, INPUT, OUTPUT, name),
            workdir / f"{name}.log", {"CLIENTS43_INPUT2": INPUT2})
        step(f"{name} joins")
    live.pop("st1").terminate()
    step("st1 leaves")
    live.pop("st2").kill()
    time.sleep(SESSION_TIMEOUT)  # the broker fences it when its session times out
    step("st2 is killed")
    live.pop("st0").terminate()
    step("st0 leaves")
    ids = {m["client_id"]: m["member_id"] for s in steps for m in s["describe"].get("members", ())}
    return {
        "group_id": GROUP,
        "subtopologies": {"0": [INPUT], "1": [INPUT2]},
        "tasks": TASKS,
        "members": {name: {"member_id": ids[thread(name)], "client_id": thread(name)}
                    for name in MEMBERS},
        "steps": steps,
        "printed": {name: m.drain() for name, m in members.items()},
    }


def streams_connections(pcap: Path, port: int) -> list[str]:
    """tshark's stream numbers of the TCP connections carrying Streams group APIs (88, 89)."""
    answer = subprocess.run(
        ["tshark", "-r", str(pcap), "-d", f"tcp.port=={port},kafka", "-Y",
         "kafka.api_key == 88 || kafka.api_key == 89", "-T", "fields", "-e", "tcp.stream"],
        capture_output=True, text=True, timeout=300, check=True)
    return sorted(set(answer.stdout.split()), key=int)


def keep_connections(raw: Path, pcap: Path, port: int) -> None:
    """``pcap``: the packets of ``raw`` on the Streams group APIs' connections (libpcap)."""
    kept = streams_connections(raw, port)
    if not kept:
        raise SystemExit(f"record: no StreamsGroupHeartbeat in {raw}")
    subprocess.run(["tshark", "-r", str(raw), "-Y", f"tcp.stream in {{{','.join(kept)}}}",
                    "-F", "pcap", "-w", str(pcap)], check=True, timeout=300)
    pcap.chmod(0o644)
    print(f"record: kept {len(kept)} connections: {raw.stat().st_size} -> "
          f"{pcap.stat().st_size} bytes", flush=True)


def record(pcap: Path) -> dict[str, Any]:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    from assignframe.testing.kafka_node import KafkaNode, find_broker_dist

    workdir = Path(tempfile.mkdtemp(prefix="kafka43-streams-capture-"))
    node = KafkaNode(find_broker_dist(ROOT, version="4.3"), workdir / "node")
    port = node.start()
    bootstrap = f"127.0.0.1:{port}"
    raw = workdir / "raw.pcap"
    print(f"record: Kafka 4.3.1 at {bootstrap} (log {node.log_path})", flush=True)
    try:
        with dumpcap(port, raw, pcapng=False):
            admin = AdminClient({"bootstrap.servers": bootstrap, "client.id": "recorder-admin"})
            for future in admin.create_topics(
                [NewTopic(t, n, 1) for t, n in TOPICS.items()], request_timeout=30
            ).values():
                future.result()
            producer = Producer({"bootstrap.servers": bootstrap,
                                 "client.id": "recorder-producer"})
            for topic in (INPUT, INPUT2):
                for partition in range(TOPICS[topic]):
                    producer.produce(topic, f"{topic}-{partition}".encode(), partition=partition)
            if producer.flush(30):
                raise SystemExit("record: records not delivered within 30 s")
            topics = topic_ids(admin, TOPICS)
            del admin, producer  # their connections close now
            group = run_group(bootstrap, workdir)
            time.sleep(2)
    finally:
        node.stop()
    keep_connections(raw, pcap, port)
    shutil.rmtree(workdir)  # the node's data and logs, the members' logs (kept on failure)
    return {
        "source": "scripts/record_streams_group_capture.py",
        "broker": "Apache Kafka 4.3.1 (shared/java/broker-4.3), one KRaft node",
        "clients": "Apache Kafka Streams 4.3.1, group.protocol=streams (shared/java/clients-4.3)",
        "heartbeat_interval_ms": 1000,
        "session_timeout_ms": 6000,
        "port": port,
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
