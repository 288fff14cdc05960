"""Throughput of assignframe-codec against kafka-python's own consumer-protocol decoding.

    python bench/bench_codec.py [--seconds 0.5] [--runs 5]

Payloads: Subscription v1-v3 (10 topics x 8 owned partitions, 16 B of user data), Assignment
v3 (100 partitions in 10 topics, 4 B of user data), JoinGroupResponse v9 (100 members), and the
largest responses the cluster reader reads: DescribeGroupsResponse v5 (20 groups of 5 members)
and OffsetFetchResponse v8 (50 groups x 80 partitions), against kafka-python's generated
response classes (compiled declarations alone: these kinds have no fast path).
kafka-python 3.0.12's ConsumerProtocolSubscription / ConsumerProtocolAssignment
(kafka.protocol.consumer.metadata) decode the same bytes in the same run; the two are measured
in alternation, ``--runs`` times each, and each keeps its best. Subscriptions and assignments go
through the struct fast path (planned from the declarations); ``construct compiled`` shows the
compiled declaration alone.

Every decode call gets a different bytes object with different contents: each row cycles
through a pool of payloads that differ in their user data (one per member of a group), so no
cache keyed by the whole payload could help (the codec has none). The fast path does keep two
bounded caches keyed by exact bytes (see assignframe_codec/fastfields.py): a subscription's topic
array, and each topic group's header (name and partition count); partition numbers are always
decoded. In a real group, members send the same topic names, rebalance after rebalance, which
is what the plain rows measure. The "distinct names" rows give every payload its own 10 topic
names, over 2,000 payloads (20,000 names, more than the caches hold), so every lookup misses:
the cost when topic names never repeat.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence

import assignframe_codec as codec
from assignframe_codec import consumer

MEMBERS = 256  # payloads per pool: decodes cycle through them
DISTINCT_MEMBERS = 2000  # more topic names than the fast path's caches hold


def topics(member: int | None) -> list[str]:
    """Ten 16-character names: shared by every member, or (``member`` given) its own."""
    if member is None:
        return [f"orders-{index:02d}.events" for index in range(10)]
    return [f"o{member:05d}-{index:02d}.events" for index in range(10)]


def subscription(version: int, member: int = 0, distinct: bool = False) -> bytes:
    names = topics(member if distinct else None)
    owned = [(topic, partition) for topic in names for partition in range(8)]
    return codec.encode_subscription(names, user_data=member.to_bytes(16, "big"),
                                     owned_partitions=owned, generation_id=42, rack_id="rack-a",
                                     version=version)


def assignment(member: int = 0, distinct: bool = False) -> bytes:
    names = topics(member if distinct else None)
    pairs = [(names[index % 10], index // 10) for index in range(100)]
    return codec.encode_assignment(pairs, user_data=member.to_bytes(4, "big"))


def join_group_response() -> bytes:
    members = [{"member_id": f"consumer-{index}-5f1a2b3c", "group_instance_id": None,
                "metadata": subscription(3, index)} for index in range(100)]
    value = {"throttle_time_ms": 0, "error_code": 0, "generation_id": 42,
             "protocol_type": "consumer", "protocol_name": "range",
             "leader": "consumer-0-5f1a2b3c", "skip_assignment": False,
             "member_id": "consumer-0-5f1a2b3c", "members": members}
    return codec.encode("JoinGroupResponse", value, 9)


def describe_groups_response(group: int) -> bytes:
    """DescribeGroupsResponse v5: 20 Stable groups of 5 members with v3 subscriptions and
    assignments (what the cluster reader asks a coordinator for in one request)."""
    groups = [{"error_code": 0, "group_id": f"orders-app-{group}-{index}", "group_state": "Stable",
               "protocol_type": "consumer", "protocol_data": "range", "members": [
                   {"member_id": f"consumer-{member}-5f1a2b3c-{group}", "group_instance_id": None,
                    "client_id": f"consumer-{member}", "client_host": f"/10.0.0.{member}",
                    "member_metadata": subscription(3, member),
                    "member_assignment": assignment(member)} for member in range(5)],
               "authorized_operations": -(2 ** 31)} for index in range(20)]
    return codec.encode("DescribeGroupsResponse", {"throttle_time_ms": 0, "groups": groups}, 5)


def offset_fetch_response(group: int) -> bytes:
    """OffsetFetchResponse v8: 50 groups, each with 10 topics of 8 committed partitions."""
    partitions = [{"partition_index": p, "committed_offset": 1_000_000 + group + p,
                   "committed_leader_epoch": 3, "metadata": "", "error_code": 0}
                  for p in range(8)]
    groups = [{"group_id": f"orders-app-{group}-{index}", "error_code": 0,
               "topics": [{"name": name, "partitions": partitions} for name in topics(None)]}
              for index in range(50)]
    return codec.encode("OffsetFetchResponse", {"throttle_time_ms": 0, "groups": groups}, 8)


def rates(calls: Sequence[Callable[[bytes], object] | None], payloads: Sequence[bytes],
          seconds: float, runs: int) -> list[float | None]:
    """Calls per second of each of ``calls`` over ``payloads`` (in turn, cycling), the best of
    ``runs`` runs of about ``seconds`` each; the callables take turns, so a burst of load
    elsewhere on the machine hits one run of one of them, not all of its runs."""
    best: list[float | None] = [None if call is None else 0.0 for call in calls]
    for call in calls:
        if call is not None:
            call(payloads[0])
    for _ in range(runs):
        for index, call in enumerate(calls):
            if call is None:
                continue
            count, started = 0, time.perf_counter()
            while (elapsed := time.perf_counter() - started) < seconds:
                for data in payloads:
                    call(data)
                count += len(payloads)
            best[index] = max(best[index] or 0.0, count / elapsed)
    return best


def kafka_python():
    try:
        from kafka.protocol.consumer.metadata import (
            ConsumerProtocolAssignment,
            ConsumerProtocolSubscription,
        )
    except ImportError:  # not installed: ours are measured alone
        return None, None
    return ConsumerProtocolSubscription.decode, ConsumerProtocolAssignment.decode


def kafka_python_response(kind: str, version: int) -> Callable[[bytes], object] | None:
    """kafka-python's generated response class of ``kind`` (its admin/consumer modules)."""
    try:
        import kafka.protocol.admin as admin
        import kafka.protocol.consumer as consumer_apis
    except ImportError:
        return None
    found = getattr(admin, kind, None) or getattr(consumer_apis, kind)
    return lambda data: found.decode(data, version=version)


def by_declaration(fmt, what: str) -> Callable[[bytes], object]:
    return lambda data: consumer.decode_by_declaration(fmt, data, what)


def rows(seconds: float, runs: int):
    kp_subscription, kp_assignment = kafka_python()
    by_subscription = by_declaration(consumer.SUBSCRIPTION_FORMAT, "subscription")
    by_assignment = by_declaration(consumer.ASSIGNMENT_FORMAT, "assignment")
    for version in (1, 2, 3):
        pool = [subscription(version, member) for member in range(MEMBERS)]
        yield (f"Subscription v{version} decode ({len(pool[0])} B)",
               *rates([codec.decode_subscription, kp_subscription, by_subscription], pool,
                      seconds, runs))
        pool = [subscription(version, member, True) for member in range(DISTINCT_MEMBERS)]
        yield (f"  distinct names ({len(pool[0])} B)",
               *rates([codec.decode_subscription, kp_subscription, None], pool, seconds, runs))
        yield (f"Subscription v{version} encode",
               *rates([lambda _, v=version: subscription(v)], [b""], seconds, runs), None, None)
    pool = [assignment(member) for member in range(MEMBERS)]
    yield (f"Assignment v3 decode ({len(pool[0])} B)",
           *rates([codec.decode_assignment, kp_assignment, by_assignment], pool, seconds, runs))
    pool = [assignment(member, True) for member in range(DISTINCT_MEMBERS)]
    yield (f"  distinct names ({len(pool[0])} B)",
           *rates([codec.decode_assignment, kp_assignment, None], pool, seconds, runs))
    yield ("Assignment v3 encode", *rates([lambda _: assignment()], [b""], seconds, runs),
           None, None)
    data = join_group_response()
    decoded = codec.decode("JoinGroupResponse", data, 9)
    yield (f"JoinGroupResponse v9 decode ({len(data)} B)",
           *rates([lambda d: codec.decode("JoinGroupResponse", d, 9)], [data], seconds, runs),
           None, None)
    yield ("JoinGroupResponse v9 encode",
           *rates([lambda _: codec.encode("JoinGroupResponse", decoded)], [b""], seconds, runs),
           None, None)
    yield from cluster_reader_rows(seconds, runs)


def cluster_reader_rows(seconds: float, runs: int):
    """The largest responses the cluster reader decodes, once per coordinator and batch."""
    for kind, version, build in (("DescribeGroupsResponse", 5, describe_groups_response),
                                 ("OffsetFetchResponse", 8, offset_fetch_response)):
        pool = [build(group) for group in range(8)]
        yield (f"{kind} v{version} decode ({len(pool[0]) // 1024} kB)",
               *rates([lambda d, k=kind, v=version: codec.decode(k, d, v),
                       kafka_python_response(kind, version)], pool, seconds, runs), None)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="assignframe-codec throughput")
    parser.add_argument("--seconds", type=float, default=0.5, help="length of one run")
    parser.add_argument("--runs", type=int, default=5, help="runs per decoder; best kept")
    args = parser.parse_args(argv)
    print(f"{'payload':40} {'codec/s':>11} {'kafka-python/s':>15} {'ratio':>7} "
          f"{'construct compiled/s':>21}")
    for name, ours, theirs, compiled in rows(args.seconds, args.runs):
        ratio = f"{ours / theirs:6.1f}x" if theirs else ""
        print(f"{name:40} {ours:11,.0f} {(f'{theirs:,.0f}' if theirs else '-'):>15} "
              f"{ratio:>7} {(f'{compiled:,.0f}' if compiled else '-'):>21}", flush=True)


if __name__ == "__main__":
    main()
