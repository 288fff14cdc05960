"""One consumer-group member, run as its own process by the e2e tests.

``python member.py '<json config>'`` joins a group with kafka-python (through
:func:`assignframe.kafka_python.assignors`) or confluent-kafka (librdkafka's own assignors),
consumes, commits after every batch, and appends one JSON object per event to its log::

    started | assigned | revoked | lost | record | commit | commit_failed | leader | closed

Every event carries ``t`` (``time.time()``; one clock for every process on the host) and ``m``
(the member's name). ``leader`` events come from an ``after_assignment`` hook registered in this
process, so they appear only when this member's assignframe strategy computed the assignment.
SIGTERM closes the consumer (LeaveGroup) and exits 0. The client's own log (INFO) goes to stderr.

Config keys besides the connection: ``strategies``, ``session_timeout_ms``,
``heartbeat_interval_ms``, and optionally ``client_rack``, ``max_poll_interval_ms``,
``max_poll_records``, ``record_delay`` (seconds slept per record, so a kill lands between
processing and committing), for confluent-kafka ``group_protocol: consumer`` (KIP-848), and for
kafka-python ``options`` (strategy name -> its options, e.g. ``{"redundant": {"replicas": 2}}``)
and ``plugins`` (modules beside this file whose ``PLUGIN`` is registered first: test strategies).
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import signal
import sys
import time
from typing import Any

from assignframe import hookimpl


class EventLog:
    def __init__(self, path: str, name: str) -> None:
        self._file = open(path, "a", buffering=1, encoding="utf-8")
        self.name = name

    def write(self, event: str, **fields: Any) -> None:
        record = {"t": time.time(), "m": self.name, "ev": event, **fields}
        self._file.write(json.dumps(record) + "\n")


def _pairs(partitions: Any) -> list[list[Any]]:
    return sorted([tp.topic, tp.partition] for tp in partitions)


class Stop:
    requested = False

    @classmethod
    def install(cls) -> None:
        signal.signal(signal.SIGTERM, lambda signum, frame: setattr(cls, "requested", True))


# --------------------------------------------------------------------------------------------
# kafka-python with assignframe strategies
# --------------------------------------------------------------------------------------------


class LeaderLog:
    """Plugin logging every assignment this process computes (it is the group leader then)."""

    def __init__(self, log: EventLog) -> None:
        self.log = log

    @hookimpl
    def after_assignment(self, strategy: Any, group: Any, assignment: Any) -> None:
        members = {
            member_id: {
                "owned": _pairs(member.owned_partitions),
                "generation": member.generation,
                "version": member.subscription_version,
                "rack": member.rack,
                "user_data": None if member.user_data is None else member.user_data.hex(),
            }
            for member_id, member in group.members.items()
        }
        assigned = {m: _pairs(a.partitions) for m, a in assignment.assignments.items()}
        self.log.write("leader", strategy=strategy.name, members=members, assignment=assigned)


def run_kafka_python(config: dict[str, Any], log: EventLog) -> None:
    from kafka import ConsumerRebalanceListener, KafkaConsumer

    from assignframe.kafka_python import assignors
    from assignframe.plugins import get_plugin_manager
    from assignframe.testing.kafka_python_join import await_topic_metadata, rejoin_if_join_abandoned

    get_plugin_manager().register(LeaderLog(log), name="e2e-leader-log")
    for module in config.get("plugins", ()):
        get_plugin_manager().register(importlib.import_module(module).PLUGIN, name=module)

    rack = {"client_rack": config["client_rack"]} if config.get("client_rack") else {}  # 2.2+ only
    consumer = KafkaConsumer(
        bootstrap_servers=config["bootstrap"],
        group_id=config["group"],
        client_id=config["name"],
        **rack,
        partition_assignment_strategy=assignors(
            *config["strategies"], client_rack=config.get("client_rack"),
            options=config.get("options"),
        ),
        session_timeout_ms=config["session_timeout_ms"],
        heartbeat_interval_ms=config["heartbeat_interval_ms"],
        max_poll_interval_ms=config.get("max_poll_interval_ms", 30000),
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        max_poll_records=config.get("max_poll_records", 20),
    )

    def generation() -> dict[str, Any]:
        current = consumer._coordinator._generation  # no public accessor in kafka-python 2.x
        return {"generation": current.generation_id, "member_id": current.member_id}

    class Listener(ConsumerRebalanceListener):
        def on_partitions_revoked(self, revoked: Any) -> None:
            log.write("revoked", partitions=_pairs(revoked))

        def on_partitions_assigned(self, assigned: Any) -> None:
            log.write("assigned", partitions=_pairs(assigned), **generation())

        def on_partitions_lost(self, lost: Any) -> None:
            log.write("lost", partitions=_pairs(lost))

    consumer.subscribe(config["topics"], listener=Listener())
    await_topic_metadata(consumer, config["topics"])
    delay = config.get("record_delay", 0.0)
    try:
        while not Stop.requested:
            batch = consumer.poll(timeout_ms=200)
            if rejoin_if_join_abandoned(consumer):
                log.write("rejoin", reason="kafka-python abandoned a finished join (issue 35)")
            offsets = {}
            for tp, records in sorted(batch.items()):
                for record in records:
                    log.write(
                        "record", topic=tp.topic, partition=tp.partition, offset=record.offset
                    )
                    time.sleep(delay)
                offsets[f"{tp.topic}:{tp.partition}"] = records[-1].offset + 1
            if offsets:
                commit_kafka_python(consumer, offsets, log)
    finally:
        log.write("closing")
        consumer.close()


def commit_kafka_python(consumer: Any, offsets: dict[str, int], log: EventLog) -> None:
    from kafka import TopicPartition
    from kafka.structs import OffsetAndMetadata

    def entry(offset: int) -> Any:
        if len(OffsetAndMetadata._fields) == 3:  # kafka-python 3.x added leader_epoch
            return OffsetAndMetadata(offset, "", -1)
        return OffsetAndMetadata(offset, "")

    to_commit = {}
    for key, offset in offsets.items():
        topic, _, partition = key.rpartition(":")
        to_commit[TopicPartition(topic, int(partition))] = entry(offset)
    try:
        consumer.commit(to_commit)
    except Exception as exc:  # CommitFailedError and friends: the group moved on
        log.write("commit_failed", offsets=offsets, error=f"{type(exc).__name__}: {exc}")
    else:
        log.write("commit", offsets=offsets)


# --------------------------------------------------------------------------------------------
# confluent-kafka (librdkafka's own assignors)
# --------------------------------------------------------------------------------------------


def _librdkafka_group_settings(config: dict[str, Any]) -> dict[str, Any]:
    """Classic: the client's assignor and timings. ``group_protocol: consumer`` (KIP-848): the
    broker assigns with ``strategies[0]`` as ``group.remote.assignor`` and sets the timings."""
    if config.get("group_protocol") == "consumer":
        return {"group.protocol": "consumer", "group.remote.assignor": config["strategies"][0]}
    return {
        "partition.assignment.strategy": ",".join(config["strategies"]),
        "session.timeout.ms": config["session_timeout_ms"],
        "heartbeat.interval.ms": config["heartbeat_interval_ms"],
    }


def run_confluent(config: dict[str, Any], log: EventLog) -> None:
    from confluent_kafka import Consumer, KafkaException, TopicPartition

    consumer = Consumer({
        "bootstrap.servers": config["bootstrap"],
        "group.id": config["group"],
        "client.id": config["name"],
        **_librdkafka_group_settings(config),
        "max.poll.interval.ms": config.get("max_poll_interval_ms", 30000),
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "client.rack": config.get("client_rack") or "",
    })  # fmt: skip

    def member() -> dict[str, Any]:
        return {"member_id": consumer.memberid()}

    consumer.subscribe(
        config["topics"],
        on_assign=lambda c, ps: log.write("assigned", partitions=_pairs(ps), **member()),
        on_revoke=lambda c, ps: log.write("revoked", partitions=_pairs(ps)),
        on_lost=lambda c, ps: log.write("lost", partitions=_pairs(ps)),
    )
    delay = config.get("record_delay", 0.0)
    try:
        while not Stop.requested:
            messages = consumer.consume(
                num_messages=config.get("max_poll_records", 20), timeout=0.2
            )
            offsets: dict[str, int] = {}
            for message in messages:
                if message.error():
                    continue
                log.write("record", topic=message.topic(), partition=message.partition(),
                          offset=message.offset())  # fmt: skip
                time.sleep(delay)
                offsets[f"{message.topic()}:{message.partition()}"] = message.offset() + 1
            if not offsets:
                continue
            to_commit = [TopicPartition(k.rpartition(":")[0], int(k.rpartition(":")[2]), v)
                         for k, v in offsets.items()]  # fmt: skip
            try:
                consumer.commit(offsets=to_commit, asynchronous=False)
            except KafkaException as exc:
                log.write("commit_failed", offsets=offsets, error=str(exc))
            else:
                log.write("commit", offsets=offsets)
    finally:
        log.write("closing")
        consumer.close()


# --------------------------------------------------------------------------------------------
# aiokafka with assignframe strategies
# --------------------------------------------------------------------------------------------


def run_aiokafka(config: dict[str, Any], log: EventLog) -> None:
    import asyncio

    from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener
    from aiokafka.structs import OffsetAndMetadata

    from assignframe.aiokafka import assignors
    from assignframe.plugins import get_plugin_manager

    get_plugin_manager().register(LeaderLog(log), name="e2e-leader-log")

    consumers: list[Any] = []

    def member_id() -> str:
        return consumers[0]._coordinator.member_id  # aiokafka has no public accessor

    class Listener(ConsumerRebalanceListener):
        async def on_partitions_revoked(self, revoked: Any) -> None:
            log.write("revoked", partitions=_pairs(revoked))

        async def on_partitions_assigned(self, assigned: Any) -> None:
            log.write("assigned", partitions=_pairs(assigned), member_id=member_id())

    async def consume() -> None:
        consumer = AIOKafkaConsumer(
            bootstrap_servers=config["bootstrap"],
            group_id=config["group"],
            client_id=config["name"],
            partition_assignment_strategy=assignors(*config["strategies"]),
            session_timeout_ms=config["session_timeout_ms"],
            heartbeat_interval_ms=config["heartbeat_interval_ms"],
            auto_offset_reset="earliest",
            enable_auto_commit=False,
        )
        consumers.append(consumer)
        await consumer.start()
        consumer.subscribe(config["topics"], listener=Listener())
        try:
            while not Stop.requested:
                batch = await consumer.getmany(
                    timeout_ms=200, max_records=config.get("max_poll_records", 20)
                )
                offsets = {}
                for tp, records in sorted(batch.items()):
                    for record in records:
                        log.write(
                            "record", topic=tp.topic, partition=tp.partition, offset=record.offset
                        )
                    offsets[tp] = records[-1].offset + 1
                if not offsets:
                    continue
                keys = {f"{tp.topic}:{tp.partition}": offset for tp, offset in offsets.items()}
                try:
                    await consumer.commit(
                        {tp: OffsetAndMetadata(o, "") for tp, o in offsets.items()}
                    )
                except Exception as exc:  # CommitFailedError: the group moved on
                    log.write("commit_failed", offsets=keys, error=f"{type(exc).__name__}: {exc}")
                else:
                    log.write("commit", offsets=keys)
        finally:
            log.write("closing")
            await consumer.stop()

    asyncio.run(consume())


def main(argv: list[str]) -> int:
    config = json.loads(argv[1])
    logging.basicConfig(
        level=logging.INFO,
        stream=sys.stderr,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    log = EventLog(config["log"], config["name"])
    Stop.install()
    log.write("started", pid=os.getpid(), client=config["client"], strategies=config["strategies"])
    runners = {
        "kafka-python": run_kafka_python,
        "aiokafka": run_aiokafka,
        "confluent": run_confluent,
    }
    runners[config["client"]](config, log)
    log.write("closed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
