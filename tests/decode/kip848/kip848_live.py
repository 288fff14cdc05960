"""Run a real KIP-848 group on librdkafka's in-process mock cluster and capture it with dumpcap.

Three confluent-kafka consumers with ``group.protocol=consumer``: ``a`` from the start, ``c`` killed
with SIGKILL (it runs in a subprocess), ``b`` joining late; ``a`` leaves with ``close()``. Every
consumer records what its on_assign/on_revoke callbacks reported, so a test can hold the decoded
timeline against what the clients themselves saw.

Run as ``python kip848_live.py OUT.pcap OUT.json`` to regenerate the shipped sample.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TOPIC = "orders"
GROUP = "kip848-demo"


def _consumer(bootstrap: str, name: str) -> Any:
    from confluent_kafka import Consumer

    return Consumer({"bootstrap.servers": bootstrap, "group.id": GROUP, "client.id": name,
                     "group.protocol": "consumer", "auto.offset.reset": "earliest"})


def _run_member(bootstrap: str, name: str, seconds: float, log: list[dict[str, Any]]) -> Any:
    consumer = _consumer(bootstrap, name)

    def on_assign(_c: Any, partitions: Any) -> None:
        log.append({"member": name, "event": "assign",
                    "partitions": sorted([p.topic, p.partition] for p in partitions)})

    def on_revoke(_c: Any, partitions: Any) -> None:
        log.append({"member": name, "event": "revoke",
                    "partitions": sorted([p.topic, p.partition] for p in partitions)})

    consumer.subscribe([TOPIC], on_assign=on_assign, on_revoke=on_revoke)
    _poll(consumer, seconds)
    return consumer


def _poll(consumer: Any, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        consumer.poll(0.2)


def _child(bootstrap: str) -> None:
    """The member that gets killed: prints its callbacks as JSON lines, polls forever."""
    log: list[dict[str, Any]] = []
    consumer = _consumer(bootstrap, "c")

    def report(event: str) -> Any:
        def callback(_c: Any, partitions: Any) -> None:
            print(json.dumps({"member": "c", "event": event,
                              "partitions": sorted([p.topic, p.partition] for p in partitions)}),
                  flush=True)
        return callback

    consumer.subscribe([TOPIC], on_assign=report("assign"), on_revoke=report("revoke"))
    del log
    while True:
        consumer.poll(0.2)


def run(pcap: Path) -> list[dict[str, Any]]:
    """Capture one scripted group life; the callbacks' log, in order."""
    from confluent_kafka import Producer

    producer = Producer({"test.mock.num.brokers": 1})
    broker = next(iter(producer.list_topics(timeout=10).brokers.values()))
    bootstrap = f"{broker.host}:{broker.port}"
    dumpcap = subprocess.Popen(["dumpcap", "-q", "-i", "lo", "-f", f"tcp port {broker.port}",
                                "-w", str(pcap)], stderr=subprocess.DEVNULL)
    time.sleep(2)  # dumpcap needs a moment before it sees packets
    for index in range(40):
        producer.produce(TOPIC, str(index).encode())
    producer.flush(10)
    log: list[dict[str, Any]] = []
    a = _run_member(bootstrap, "a", 4, log)
    child = subprocess.Popen([sys.executable, __file__, "--child", bootstrap],
                             stdout=subprocess.PIPE, text=True)
    _poll(a, 6)
    child.send_signal(signal.SIGKILL)
    out, _ = child.communicate(timeout=60)  # killed: its pipe closes at once
    log.extend(json.loads(line) for line in out.splitlines() if line.strip())
    b = _run_member(bootstrap, "b", 0, log)
    for _ in range(60):  # the killed member's session times out on the broker meanwhile
        a.poll(0.25)
        b.poll(0.25)
    a.close()
    _poll(b, 5)
    b.close()
    time.sleep(1)
    dumpcap.send_signal(signal.SIGTERM)
    dumpcap.wait(10)
    return log


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        _child(sys.argv[2])
    else:
        events = run(Path(sys.argv[1]))
        Path(sys.argv[2]).write_text(json.dumps(events, indent=1) + "\n")
