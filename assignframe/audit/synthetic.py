"""A synthetic fleet of consumer groups, generated deterministically from a seed.

Each group is one snapshot in the ``assignframe decode --json`` schema (only the fields the audit
reads, bytes as hex, encoded by the codec exactly as Java would), plus ``partition_lags`` for
some groups. The mix imitates a real fleet:

* sizes are log-uniform (most groups are small): 1..``max_members`` members and
  1..``max_partitions`` partitions over 1-4 topics;
* the strategy each group runs: range 45%, roundrobin 15%, sticky 15%, cooperative-sticky 25%
  (the Java client's assignors; those not installed are left out of the mix); its current
  assignment is what the installed strategy computes, played through the core's group runner
  (subscriptions and assignments are the bytes that round put on the wire);
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

from ..model import Cluster, GroupAssignment
from ..plugins.manager import PluginManager
from ..rebalance.runner import Consumer, GroupRunner
from ..snapshot import GroupSnapshot, MemberWire, snapshot_to_dict
from .synthetic_members import dress

__all__ = ["fleet_snapshots", "write_fleet"]

_PROTOCOLS = (("range", 45), ("roundrobin", 15), ("sticky", 15), ("cooperative-sticky", 25))
Pair = tuple[str, int]


def fleet_snapshots(
    groups: int,
    seed: int = 1,
    max_members: int = 50,
    max_partitions: int = 500,
    malformed_rate: float = 0.0,
    pm: PluginManager | None = None,
) -> Iterator[dict[str, Any] | str]:
    """Yield ``groups`` snapshots (a str for each deliberately malformed row).

    :param pm: whose strategies play the groups (default: the installed ones). The mix's
        strategies that it lacks are left out; with none of them, every strategy it has is
        played, equally often.
    :raises ValueError: the manager has no strategy at all
    """
    pm = pm or PluginManager()
    installed = pm.strategy_names()
    mix = [(name, weight) for name, weight in _PROTOCOLS if name in installed]
    mix = mix or [(name, 1) for name in installed]
    if not mix:
        raise ValueError("a fleet needs at least one installed strategy to play its groups")
    for index in range(groups):
        rng = random.Random(f"{seed}:{index}")  # each group independent of the others
        snapshot = _snapshot(rng, f"{seed}:{index}", max_members, max_partitions, pm, mix)
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
    rng: random.Random,
    seed: str,
    max_members: int,
    max_partitions: int,
    pm: PluginManager,
    mix: list[tuple[str, int]],
) -> dict[str, Any]:
    index = int(seed.rsplit(":", 1)[1])
    members = [
        f"consumer-{i}-{rng.getrandbits(32):08x}" for i in range(_log_uniform(rng, max_members))
    ]
    topics = _topics(rng, index, _log_uniform(rng, max_partitions))
    subscriptions = _subscriptions(rng, members, list(topics))
    protocol = rng.choices([p for p, _ in mix], [w for _, w in mix])[0]
    racks = ["r1", "r2", "r3"] if rng.random() < 0.2 else None
    generation = rng.randint(1, 500)
    runner = GroupRunner(protocol, cluster=Cluster(topics), pm=pm)
    if generation > 1:  # the group lived before: its next round creates ``generation``
        runner.adopt(GroupAssignment({}), generation - 1)
    consumers = [
        Consumer(m, tuple(subscriptions[m]), (protocol,), racks[i % len(racks)] if racks else None)
        for i, m in enumerate(members)
    ]
    final = runner.rebalance(consumers).final
    assignment: dict[str, list[Pair]] = {
        m: [(tp.topic, tp.partition) for tp in final.assignment.partitions_of(m)] for m in members
    }
    broken = _inject_fault(rng, assignment, subscriptions, topics)
    assignment_bytes = {
        m: codec.encode_assignment(assignment[m], version=3) if m in broken
        else final.assignment_bytes[m]
        for m in members
    }
    played = GroupSnapshot(
        group_id=f"group-{index:07d}",
        generation=final.generation,
        protocol=protocol,
        members=final.group.members,
        current=GroupAssignment.from_partitions(assignment),
        cluster=Cluster(topics),
        leader=members[0],
        wire={m: MemberWire(final.subscriptions[m], assignment_bytes[m]) for m in members},
    )
    snapshot = snapshot_to_dict(dress(played, random.Random(f"{seed}:clients"), pm))
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


def _inject_fault(
    rng: random.Random,
    assignment: dict[str, list[Pair]],
    subscriptions: dict[str, list[str]],
    topics: dict[str, int],
) -> set[str]:
    """Break the assignment the way real groups break; returns the members whose part changed."""
    roll = rng.random()
    owners = [m for m, owned in assignment.items() if owned]
    if not owners:
        return set()
    victim = rng.choice(owners)
    if roll < 0.03:  # double ownership: someone else also claims one of victim's partitions
        other = rng.choice(list(assignment))
        assignment[other].append(rng.choice(assignment[victim]))
        return {other}
    if roll < 0.06:  # an unowned partition
        assignment[victim].pop()
        return {victim}
    if roll < 0.07:  # a partition of a topic its owner does not subscribe to
        foreign = [t for t in topics if t not in subscriptions[victim]]
        if foreign:
            assignment[victim].append((foreign[0], 0))
            return {victim}
    return set()


def _break(rng: random.Random, snapshot: dict[str, Any]) -> str:
    line = json.dumps(snapshot, separators=(",", ":"))
    member = snapshot["members"][0]
    if rng.random() < 0.5 or member["subscription"]["hex"] is None:  # a consumer group has none
        return line[: len(line) // 2]  # truncated mid-object
    member["subscription"]["hex"] = "zz" + member["subscription"]["hex"]  # not hex
    return json.dumps(snapshot, separators=(",", ":"))
