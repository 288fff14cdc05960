"""Throughput of assignframe-codec against kafka-python's own consumer-protocol decoding.

    python bench/bench_codec.py [--seconds 0.5]

Payloads: Subscription v1-v3 (10 topics x 8 owned partitions), Assignment v3 (100 partitions),
JoinGroupResponse v9 (100 members). kafka-python 3.0.12's ConsumerProtocolSubscription /
ConsumerProtocolAssignment (kafka.protocol.consumer.metadata) decode the same bytes in the same
run. Subscriptions and assignments go through the hand-written fast path; ``construct compiled``
shows the compiled declaration alone, for comparison.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import assignframe_codec as codec
from assignframe_codec import consumer

TOPICS = [f"orders-{index:02d}.events" for index in range(10)]
OWNED = [(topic, partition) for topic in TOPICS for partition in range(8)]


def subscription(version: int) -> bytes:
    return codec.encode_subscription(TOPICS, user_data=bytes(16), owned_partitions=OWNED,
                                     generation_id=42, rack_id="rack-a", version=version)


def assignment() -> bytes:
    pairs = [(f"orders-{index % 10:02d}.events", index // 10) for index in range(100)]
    return codec.encode_assignment(pairs, user_data=None)


def join_group_response() -> bytes:
    members = [{"member_id": f"consumer-{index}-5f1a2b3c", "group_instance_id": None,
                "metadata": subscription(3)} for index in range(100)]
    value = {"throttle_time_ms": 0, "error_code": 0, "generation_id": 42,
             "protocol_type": "consumer", "protocol_name": "range",
             "leader": "consumer-0-5f1a2b3c", "skip_assignment": False,
             "member_id": "consumer-0-5f1a2b3c", "members": members}
    return codec.encode("JoinGroupResponse", value, 9)


def rate(call: Callable[[], object], seconds: float) -> float:
    """Calls per second, best of three runs of about ``seconds`` each."""
    call()
    best = 0.0
    for _ in range(3):
        count, started = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - started) < seconds:
            for _ in range(20):
                call()
            count += 20
        best = max(best, count / elapsed)
    return best


def kafka_python():
    try:
        from kafka.protocol.consumer.metadata import (
            ConsumerProtocolAssignment,
            ConsumerProtocolSubscription,
        )
    except ImportError:  # not installed: ours are measured alone
        return None, None
    return ConsumerProtocolSubscription, ConsumerProtocolAssignment


def rows(seconds: float):
    kp_subscription, kp_assignment = kafka_python()
    for version in (1, 2, 3):
        data = subscription(version)
        yield (f"Subscription v{version} decode ({len(data)} B)",
               rate(lambda d=data: codec.decode_subscription(d), seconds),
               kp_subscription and rate(lambda d=data: kp_subscription.decode(d), seconds),
               rate(lambda d=data: consumer.decode_by_declaration(
                   consumer.SUBSCRIPTION_FORMAT, d, "subscription"), seconds))
        yield (f"Subscription v{version} encode", rate(lambda v=version: subscription(v),
                                                       seconds), None, None)
    data = assignment()
    yield (f"Assignment v3 decode ({len(data)} B)",
           rate(lambda: codec.decode_assignment(data), seconds),
           kp_assignment and rate(lambda: kp_assignment.decode(data), seconds),
           rate(lambda: consumer.decode_by_declaration(consumer.ASSIGNMENT_FORMAT, data,
                                                       "assignment"), seconds))
    yield ("Assignment v3 encode", rate(assignment, seconds), None, None)
    data = join_group_response()
    decoded = codec.decode("JoinGroupResponse", data, 9)
    yield (f"JoinGroupResponse v9 decode ({len(data)} B)",
           rate(lambda: codec.decode("JoinGroupResponse", data, 9), seconds), None, None)
    yield ("JoinGroupResponse v9 encode",
           rate(lambda: codec.encode("JoinGroupResponse", decoded), seconds), None, None)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="assignframe-codec throughput")
    parser.add_argument("--seconds", type=float, default=0.5)
    args = parser.parse_args(argv)
    print(f"{'payload':40} {'codec/s':>11} {'kafka-python/s':>15} {'ratio':>7} "
          f"{'construct compiled/s':>21}")
    for name, ours, theirs, compiled in rows(args.seconds):
        ratio = f"{ours / theirs:6.1f}x" if theirs else ""
        print(f"{name:40} {ours:11,.0f} {(f'{theirs:,.0f}' if theirs else '-'):>15} "
              f"{ratio:>7} {(f'{compiled:,.0f}' if compiled else '-'):>21}")


if __name__ == "__main__":
    main()
