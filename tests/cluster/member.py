"""One real group member in its own process (so a test can kill -9 it).

usage: member.py BOOTSTRAP GROUP TOPIC CLIENT [STRATEGY [no-commit]]
(TOPIC: a comma-separated list subscribes a kafka-python member to each)
CLIENT: kafka-python (classic, STRATEGY range or cooperative-sticky through assignframe's
kafka-python adapter) or confluent (group.protocol=consumer). Prints "ready" once it owns
partitions (or after 60 s), then polls until killed.

What it does goes to stderr as JSON lines ({"member": ..., "event": ..., ...}: started,
assigned with its member id, generation and partitions, error; a kafka-python member that owns
nothing says "waiting" every 5 s with its coordinator's state and heartbeat ages), so a test that
waits on it (assignframe.testing.child.Child) shows which member did what; SIGUSR1 prints its
stack there.
"""

from __future__ import annotations

import faulthandler
import json
import os
import signal
import sys
import time

NAME = f"member-{os.getpid()}"


def state(event: str, **fields: object) -> None:
    """One JSON line on stderr: this member's name, the event, and what it knows."""
    print(json.dumps({"t": round(time.time(), 3), "member": NAME, "event": event, **fields},
                     default=str), file=sys.stderr, flush=True)


def _pairs(partitions) -> list:
    return sorted([tp.topic, tp.partition] for tp in partitions or ())


#: While a member owns nothing it says so every this many seconds, with its coordinator's view.
WAITING_EVERY = 5.0


def _coordinator_facts(consumer) -> dict:
    """What a kafka-python member's coordinator knows (private attributes, read defensively: a
    missing one is "unknown"): its generation, its state, and how long ago it last sent and
    heard a heartbeat - a member whose heartbeats stopped is removed by the broker after its
    session while it still believes it is in the group (issue 35)."""
    coordinator = getattr(consumer, "_coordinator", None)
    generation = getattr(coordinator, "_generation", None)
    beat = getattr(coordinator, "heartbeat", None)
    now = time.monotonic()

    def ago(name: str) -> object:
        at = getattr(beat, name, None)
        return round(now - at, 1) if isinstance(at, float) and at != float("-inf") else None

    member_id = getattr(generation, "member_id", None)
    number = getattr(generation, "generation_id", None)
    return {"member_id": member_id or None,  # not joined yet: kafka-python says "" and -1
            "generation": number if isinstance(number, int) and number >= 0 else None,
            "state": str(getattr(coordinator, "state", "unknown")),
            "heartbeat_enabled": getattr(coordinator, "_heartbeat_enabled", "unknown"),
            "heartbeat_sent_s_ago": ago("last_send"),
            "heartbeat_heard_s_ago": ago("last_receive")}


def kafka_python(bootstrap: str, group: str, topic: str, strategy: str,
                 commit: bool = True) -> None:
    from kafka import KafkaConsumer

    from assignframe.testing.kafka_python_join import rejoin_if_join_abandoned

    if strategy == "range":
        from kafka.coordinator.assignors.range import RangePartitionAssignor
        assignors = [RangePartitionAssignor]
    else:
        from assignframe.kafka_python import assignors as adapter_assignors
        assignors = adapter_assignors(strategy)
    consumer = KafkaConsumer(*topic.split(","), bootstrap_servers=bootstrap, group_id=group,
                             session_timeout_ms=3000, heartbeat_interval_ms=500,
                             partition_assignment_strategy=assignors,
                             auto_offset_reset="earliest", enable_auto_commit=commit)
    state("started", client="kafka-python", strategy=strategy)
    said, last, report = False, None, time.monotonic() + WAITING_EVERY
    while True:
        try:
            consumer.poll(200)
        except Exception as error:  # said, then the member goes on polling like a real one
            state("error", error=repr(error))
            continue
        if rejoin_if_join_abandoned(consumer):
            state("error", error="kafka-python abandoned a finished join (issue 35); rejoining",
                  **_coordinator_facts(consumer))
        owned = _pairs(consumer.assignment())
        if owned != last:
            state("assigned", assignment=owned, **_coordinator_facts(consumer))
            last = owned
        if owned and not said:
            print("ready", flush=True)
            said = True
        elif not said and time.monotonic() >= report:
            state("waiting", assignment=owned, **_coordinator_facts(consumer))
            report = time.monotonic() + WAITING_EVERY


def confluent(bootstrap: str, group: str, topic: str) -> None:
    from confluent_kafka import Consumer

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                         "group.protocol": "consumer", "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    state("started", client="confluent", protocol="consumer")
    said, started, last = False, time.time(), None
    while True:
        message = consumer.poll(0.2)
        if message is not None and message.error():
            state("error", error=str(message.error()))
        owned = _pairs(consumer.assignment())
        if owned != last:
            state("assigned", member_id=consumer.memberid(), generation=None, assignment=owned)
            last = owned
        if not said and (owned or time.time() - started > 60):
            print("ready", flush=True)
            said = True


if __name__ == "__main__":
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    bootstrap, group, topic, client = sys.argv[1:5]
    if client == "kafka-python":  # [STRATEGY [no-commit]]: no-commit never commits a position
        kafka_python(bootstrap, group, topic, sys.argv[5] if len(sys.argv) > 5 else "range",
                     commit="no-commit" not in sys.argv[6:])
    else:
        confluent(bootstrap, group, topic)
