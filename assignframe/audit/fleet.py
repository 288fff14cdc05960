"""A synthetic fleet of consumer groups, generated deterministically from a seed.

Each group is one snapshot in the ``assignframe decode --json`` schema (only the fields the audit
reads, bytes as hex, encoded by the codec exactly as Java would), plus ``partition_lags`` for
some groups. The mix imitates a real fleet:

* sizes are log-uniform (most groups are small): 1..``max_members`` members and
  1..``max_partitions`` partitions over 1-4 topics;
* the strategy each group runs: range 45%, roundrobin 15%, sticky 15%, cooperative-sticky 25%;
  its current assignment is what that strategy's textbook rule gives (range per topic, round
  robin over all partitions, a balanced spread for the sticky ones);
* 20% of groups are mid rolling change (members with different subscriptions), 20% use racks,
  30% report lags;
* faults: 3% have a partition owned twice, 3% a partition nobody owns (a crashed member), 1% a
  partition given to a member that does not subscribe to its topic; ``malformed_rate`` of the
  rows are broken (truncated JSON or bytes that are not hex).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import assignframe_codec as codec

__all__ = ["fleet_snapshots", "write_fleet"]

_PROTOCOLS = (("range", 45), ("roundrobin", 15), ("sticky", 15), ("cooperative-sticky", 25))
Pair = tuple[str, int]


def fleet_snapshots(
    groups: int,
    seed: int = 1,
    max_members: int = 50,
    max_partitions: int = 500,
    malformed_rate: float = 0.0,
) -> Iterator[dict[str, Any] | str]:
    """Yield ``groups`` snapshots (a str for each deliberately malformed row)."""
    for index in range(groups):
        rng = random.Random(f"{seed}:{index}")  # each group independent of the others
        snapshot = _snapshot(rng, index, max_members, max_partitions)
        if rng.random() < malformed_rate:
            yield _break(rng, snapshot)
        else:
            yield snapshot


def write_fleet(path: str | Path, groups: int, seed: int = 1, **kwargs: Any) -> Path:
    """Write the fleet as JSON lines, or Parquet when ``path`` ends in ``.parquet``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    snapshots = fleet_snapshots(groups, seed, **kwargs)
    if path.suffix == ".parquet":
        from .parquet_input import write_snapshots_parquet

        write_snapshots_parquet(path, snapshots)
    else:
        with path.open("w", encoding="utf-8") as handle:
            for snapshot in snapshots:
                line = (
                    snapshot
                    if isinstance(snapshot, str)
                    else json.dumps(snapshot, separators=(",", ":"))
                )
                handle.write(line + "\n")
    return path


def _log_uniform(rng: random.Random, high: int) -> int:
    return min(high, int(math.exp(rng.uniform(0, math.log(high + 1)))))


def _snapshot(
    rng: random.Random, index: int, max_members: int, max_partitions: int
) -> dict[str, Any]:
    members = [
        f"consumer-{i}-{rng.getrandbits(32):08x}" for i in range(_log_uniform(rng, max_members))
    ]
    topics = _topics(rng, index, _log_uniform(rng, max_partitions))
    subscriptions = _subscriptions(rng, members, list(topics))
    protocol = rng.choices([p for p, _ in _PROTOCOLS], [w for _, w in _PROTOCOLS])[0]
    assignment = _assign(protocol, members, subscriptions, topics)
    _inject_fault(rng, assignment, subscriptions, topics)
    racks = ["r1", "r2", "r3"] if rng.random() < 0.2 else None
    generation = rng.randint(1, 500)
    snapshot = {
        "schema": "assignframe.decode.snapshot/1",
        "group_id": f"group-{index:07d}",
        "generation": generation,
        "protocol_type": "consumer",
        "protocol": protocol,
        "leader": members[0],
        "topic_partitions": dict(topics),
        "members": [
            _member(
                m,
                subscriptions[m],
                assignment[m],
                protocol,
                generation,
                racks[i % len(racks)] if racks else None,
            )
            for i, m in enumerate(members)
        ],
    }
    if rng.random() < 0.3:
        snapshot["partition_lags"] = {
            t: [int(rng.paretovariate(1.2) * 100) for _ in range(n)] for t, n in topics.items()
        }
    return snapshot


def _topics(rng: random.Random, index: int, partitions: int) -> dict[str, int]:
    count = min(partitions, rng.choice((1, 1, 1, 2, 2, 3, 4)))
    cuts = sorted(rng.sample(range(1, partitions), count - 1)) if count > 1 else []
    sizes = [b - a for a, b in zip([0] + cuts, cuts + [partitions], strict=True)]
    return {f"topic-{index % 997}-{t}": size for t, size in enumerate(sizes)}


def _subscriptions(
    rng: random.Random, members: list[str], topics: list[str]
) -> dict[str, list[str]]:
    if len(topics) == 1 or rng.random() >= 0.2:
        return {m: list(topics) for m in members}
    lagging = set(rng.sample(members, max(1, len(members) // 2)))  # not yet on the new config
    return {m: topics[:-1] if m in lagging else list(topics) for m in members}


def _assign(
    protocol: str, members: list[str], subscriptions: dict[str, list[str]], topics: dict[str, int]
) -> dict[str, list[Pair]]:
    assignment: dict[str, list[Pair]] = {m: [] for m in members}
    ordered = sorted(members)
    if protocol == "range":
        for topic, count in sorted(topics.items()):
            subscribers = [m for m in ordered if topic in subscriptions[m]]
            for i, m in enumerate(subscribers):
                share, extra = divmod(count, len(subscribers))  # no subscribers: no loop
                start = i * share + min(i, extra)
                assignment[m] += [(topic, p) for p in range(start, start + share + (i < extra))]
        return assignment
    loads = {m: 0 for m in members}
    cursor = 0
    for topic, count in sorted(topics.items()):
        subscribers = [m for m in ordered if topic in subscriptions[m]]
        for p in range(count if subscribers else 0):
            if protocol == "roundrobin":
                owner = subscribers[cursor % len(subscribers)]
                cursor += 1
            else:  # sticky kinds: least loaded subscriber
                owner = min(subscribers, key=lambda m: (loads[m], m))
            assignment[owner].append((topic, p))
            loads[owner] += 1
    return assignment


def _inject_fault(
    rng: random.Random,
    assignment: dict[str, list[Pair]],
    subscriptions: dict[str, list[str]],
    topics: dict[str, int],
) -> None:
    roll = rng.random()
    owners = [m for m, owned in assignment.items() if owned]
    if not owners:
        return
    victim = rng.choice(owners)
    if roll < 0.03:  # double ownership: someone else also claims one of victim's partitions
        other = rng.choice(list(assignment))
        assignment[other].append(rng.choice(assignment[victim]))
    elif roll < 0.06:  # an unowned partition
        assignment[victim].pop()
    elif roll < 0.07:  # a partition of a topic its owner does not subscribe to
        foreign = [t for t in topics if t not in subscriptions[victim]]
        if foreign:
            assignment[victim].append((foreign[0], 0))


def _member(
    member_id: str,
    topics: list[str],
    owned: list[Pair],
    protocol: str,
    generation: int,
    rack: str | None,
) -> dict[str, Any]:
    cooperative = protocol == "cooperative-sticky"
    if protocol == "sticky":
        user_data = codec.encode_sticky_user_data(owned, generation)
    elif cooperative:
        user_data = codec.encode_cooperative_user_data(generation)
    else:
        user_data = None
    subscription = codec.encode_subscription(
        topics,
        user_data=user_data,
        owned_partitions=owned if cooperative else [],
        generation_id=generation if protocol in ("sticky", "cooperative-sticky") else -1,
        rack_id=rack,
        version=3,
    )
    return {
        "member_id": member_id,
        "group_instance_id": None,
        "protocols": [protocol],
        "subscription": {"hex": subscription.hex()},
        "assignment": {"hex": codec.encode_assignment(owned, version=3).hex()},
    }


def _break(rng: random.Random, snapshot: dict[str, Any]) -> str:
    line = json.dumps(snapshot, separators=(",", ":"))
    if rng.random() < 0.5:
        return line[: len(line) // 2]  # truncated mid-object
    member = snapshot["members"][0]
    member["subscription"]["hex"] = "zz" + member["subscription"]["hex"]  # not hex
    return json.dumps(snapshot, separators=(",", ":"))
