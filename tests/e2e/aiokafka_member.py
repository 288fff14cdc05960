"""An aiokafka member written as a KIP-429 application is: it processes batches under a lock that
its rebalance listener shares, and in ``on_partitions_revoked`` commits what it processed of the
partitions it gives up, before they are handed over.

``python aiokafka_member.py '<json config>'`` takes member.py's config and writes member.py's
events (``started | assigned | revoked | lost | record | commit | commit_failed | leader |
closing | closed``); ``assigned`` also carries the generation. A batch's records of a partition
revoked while the batch waited for the lock are not processed: their new owner reads them from the
committed offset. SIGTERM closes the consumer (LeaveGroup) and exits 0.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from member import EventLog, LeaderLog, Stop, _pairs


async def consume(config: dict[str, Any], log: EventLog) -> None:
    from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener
    from aiokafka.structs import OffsetAndMetadata

    from assignframe.aiokafka import assignors

    consumer = AIOKafkaConsumer(
        bootstrap_servers=config["bootstrap"],
        group_id=config["group"],
        client_id=config["name"],
        partition_assignment_strategy=assignors(*config["strategies"]),
        session_timeout_ms=config["session_timeout_ms"],
        heartbeat_interval_ms=config["heartbeat_interval_ms"],
        max_poll_interval_ms=config.get("max_poll_interval_ms", 30000),
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    processed: dict[Any, int] = {}  # partition -> next offset to process
    committed: dict[Any, int] = {}
    lock = asyncio.Lock()  # a batch, or a revocation, at a time

    async def commit(offsets: dict[Any, int]) -> None:
        keys = {f"{tp.topic}:{tp.partition}": offset for tp, offset in offsets.items()}
        try:
            await consumer.commit({tp: OffsetAndMetadata(o, "") for tp, o in offsets.items()})
        except Exception as exc:  # refused mid-rebalance, or the group moved on
            log.write("commit_failed", offsets=keys, error=f"{type(exc).__name__}: {exc}")
        else:
            log.write("commit", offsets=keys)
            committed.update(offsets)

    class Listener(ConsumerRebalanceListener):
        async def on_partitions_revoked(self, revoked: Any) -> None:
            async with lock:
                unsaved = {
                    tp: processed[tp]
                    for tp in revoked
                    if processed.get(tp, -1) > committed.get(tp, -1)
                }
                if unsaved:
                    await commit(unsaved)
                log.write("revoked", partitions=_pairs(revoked))
                for tp in revoked:
                    processed.pop(tp, None)

        async def on_partitions_lost(self, lost: Any) -> None:
            log.write("lost", partitions=_pairs(lost))
            for tp in lost:
                processed.pop(tp, None)

        async def on_partitions_assigned(self, assigned: Any) -> None:
            coordinator = consumer._coordinator  # aiokafka has no public accessor for these
            log.write("assigned", partitions=_pairs(assigned), member_id=coordinator.member_id,
                      generation=coordinator.generation)  # fmt: skip

    await consumer.start()
    consumer.subscribe(config["topics"], listener=Listener())
    delay = config.get("record_delay", 0.0)
    try:
        while not Stop.requested:
            batch = await consumer.getmany(
                timeout_ms=200, max_records=config.get("max_poll_records", 20)
            )
            async with lock:
                owned = consumer.assignment()
                for tp, records in sorted(batch.items()):
                    if tp not in owned:
                        continue  # revoked while this batch waited
                    for record in records:
                        log.write("record", topic=tp.topic, partition=tp.partition,
                                  offset=record.offset)  # fmt: skip
                        if delay:
                            await asyncio.sleep(delay)
                    processed[tp] = records[-1].offset + 1
                # What is processed and not yet committed (a commit refused mid-rebalance too).
                unsaved = {tp: o for tp, o in processed.items() if o > committed.get(tp, -1)}
                if unsaved:
                    await commit(unsaved)
    finally:
        log.write("closing")
        await consumer.stop()


def main(argv: list[str]) -> int:
    config = json.loads(argv[1])
    log = EventLog(config["log"], config["name"])
    Stop.install()
    log.write("started", pid=os.getpid(), client=config["client"], strategies=config["strategies"])
    from assignframe.plugins import get_plugin_manager

    get_plugin_manager().register(LeaderLog(log), name="e2e-leader-log")
    asyncio.run(consume(config, log))
    log.write("closed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
