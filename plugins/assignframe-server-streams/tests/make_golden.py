"""Writes golden_kafka43.jsonl: Streams-group scenarios answered by Kafka 4.3.1's own
``StickyTaskAssignor`` (through assignframe.testing.java43_oracle), never by the plugin.

    python plugins/assignframe-server-streams/tests/make_golden.py      # needs Java 17 + shared/

Each scenario is a sequence of rounds; a round applies its events (members join or leave, the
topology or ``num_standby_replicas`` changes) to the group, and each member's current tasks are
Java's result of the round before, as the coordinator's target assignment would be. One line per
round: ``{"id", "scenario", "round", "note", "request", "result" | "error"}``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from assignframe.testing.java43_oracle import running_kafka43_oracle
from assignframe.testing.streams_differential import java_streams_answer

OUT = Path(__file__).with_name("golden_kafka43.jsonl")


def topology(*subs: tuple[str, int, bool]) -> dict[str, Any]:
    return {s: {"partitions": n, "stateful": stateful} for s, n, stateful in subs}


def threads(process: str, count: int, prefix: str | None = None) -> list[list[str]]:
    return [[f"{prefix or process}-t{i}", process] for i in range(1, count + 1)]


TWO_SUBS = topology(("0", 6, True), ("1", 6, False))
SCENARIOS: list[dict[str, Any]] = [
    {
        "id": "three-processes-two-threads",
        "note": "6+6 tasks, one stateful sub-topology, 1 standby: a thread leaves, "
        "a new one joins, "
        "a whole process leaves, comes back",
        "subtopologies": TWO_SUBS,
        "standby": 1,
        "rounds": [
            {"join": threads("A", 2) + threads("B", 2) + threads("C", 2)},
            {"leave": ["B-t2"]},
            {"join": [["B-t3", "B"]]},
            {"leave": ["C-t1", "C-t2"]},
            {"join": threads("C", 2, "C2")},
        ],
    },
    {
        "id": "single-process-many-threads",
        "note": "one process: standby tasks have nowhere to go",
        "subtopologies": topology(("0", 8, True)),
        "standby": 1,
        "rounds": [{"join": threads("A", 3)}, {"join": [["A-t4", "A"]]}, {"leave": ["A-t1"]}],
    },
    {
        "id": "two-standbys-two-processes",
        "note": "2 standby replicas, 2 processes: one replica per task fits",
        "subtopologies": topology(("0", 4, True), ("1", 2, True)),
        "standby": 2,
        "rounds": [{"join": threads("A", 2) + threads("B", 1)}, {"join": threads("C", 1)}],
    },
    {
        "id": "colliding-member-ids",
        "note": "'Aa' and 'BB' (and their concatenations) share a String.hashCode: "
        "HashMap order ties",
        "subtopologies": topology(("0", 5, True), ("1", 3, False)),
        "standby": 1,
        "rounds": [
            {"join": [["Aa", "p1"], ["BB", "p1"], ["AaAa", "p2"], ["BBBB", "p2"], ["AaBB", "p3"]]},
            {"leave": ["BB"]},
            {"join": [["BBAa", "p1"]]},
        ],
    },
    {
        "id": "topology-grows",
        "note": "the input topics gain partitions, a stateful sub-topology appears, "
        "standby goes 0->1",
        "subtopologies": topology(("0", 3, False)),
        "standby": 0,
        "rounds": [
            {"join": threads("A", 1) + threads("B", 1) + threads("C", 1)},
            {"subtopologies": topology(("0", 6, False))},
            {"subtopologies": topology(("0", 6, False), ("1", 4, True)), "standby": 1},
        ],
    },
    {
        "id": "more-members-than-tasks",
        "note": "2 tasks, 5 members: most get nothing",
        "subtopologies": topology(("0", 2, True)),
        "standby": 1,
        "rounds": [
            {"join": threads("A", 2) + threads("B", 2) + threads("C", 1)},
            {"leave": ["A-t1"]},
        ],
    },
    {
        "id": "no-members",
        "note": "tasks and no member: Kafka's assignor throws TaskAssignorException",
        "subtopologies": topology(("0", 2, False)),
        "standby": 0,
        "rounds": [{"join": []}],
    },
    {
        "id": "no-tasks",
        "note": "a topology whose input topics have no partitions yet",
        "subtopologies": topology(("0", 0, True)),
        "standby": 1,
        "rounds": [{"join": threads("A", 2)}],
    },
    {
        "id": "subtopology-ids-sort-as-strings",
        "note": "sub-topologies 2, 10, 11: Java sorts the ids as strings ('10' < '2')",
        "subtopologies": topology(("2", 3, True), ("10", 3, False), ("11", 2, True)),
        "standby": 1,
        "rounds": [{"join": threads("A", 2) + threads("B", 2)}, {"leave": ["A-t2"]}],
    },
]


def random_scenarios(count: int, seed: int) -> list[dict[str, Any]]:
    """Seeded scenarios: random topologies, processes coming and going, threads joining."""
    rng = random.Random(seed)
    out = []
    for n in range(count):
        subs = [(str(i), rng.randint(0, 8), rng.random() < 0.5) for i in range(rng.randint(1, 4))]
        processes = [f"proc-{rng.randrange(10**6):06d}" for _ in range(rng.randint(1, 4))]
        next_id = iter(range(1000))
        rounds: list[dict[str, Any]] = []
        alive: list[str] = []
        for _ in range(rng.randint(2, 5)):
            joining = [
                [f"member-{next(next_id)}-{rng.randrange(1000)}", rng.choice(processes)]
                for _ in range(rng.randint(0 if alive else 1, 3))
            ]
            leaving = rng.sample(alive, k=rng.randint(0, min(2, len(alive))))
            alive = [m for m in alive if m not in leaving] + [j[0] for j in joining]
            rounds.append({"join": joining, "leave": leaving})
        out.append(
            {
                "id": f"seeded-{seed}-{n}",
                "note": "seeded random scenario",
                "subtopologies": topology(*subs),
                "standby": rng.randint(0, 2),
                "rounds": rounds,
            }
        )
    return out


def run(oracle, scenario: dict[str, Any]) -> list[dict[str, Any]]:
    members: list[list[str]] = []
    current: dict[str, dict[str, Any]] = {}
    subtopologies, standby = scenario["subtopologies"], scenario["standby"]
    lines = []
    for index, events in enumerate(scenario["rounds"]):
        members = [m for m in members if m[0] not in events.get("leave", ())]
        members += events.get("join", [])
        subtopologies = events.get("subtopologies", subtopologies)
        standby = events.get("standby", standby)
        request = {
            "subtopologies": subtopologies,
            "members": [
                {"member_id": m, "process_id": p, **_as_maps(current.get(m))} for m, p in members
            ],
            "configs": {"num.standby.replicas": str(standby)},
        }
        answer = java_streams_answer(oracle, request)
        line = {
            "id": f"{scenario['id']}-r{index}",
            "scenario": scenario["id"],
            "round": index,
            "note": scenario["note"],
            "request": request,
            **answer,
        }
        lines.append(line)
        current = answer.get("result", {})
    return lines


def _as_maps(tasks: dict[str, Any] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kind, pairs in (tasks or {}).items():
        by_sub: dict[str, list[int]] = {}
        for sub, p in pairs:
            by_sub.setdefault(sub, []).append(p)
        if by_sub:
            out[kind] = by_sub
    return out


def main() -> None:
    with running_kafka43_oracle() as oracle, OUT.open("w", encoding="utf-8") as out:
        for scenario in SCENARIOS + random_scenarios(40, seed=43):
            for line in run(oracle, scenario):
                out.write(json.dumps(line, ensure_ascii=True) + "\n")
        print(f"{OUT}: Kafka {oracle.info['kafka_version']} ({oracle.info['kafka_commit']})")


if __name__ == "__main__":
    main()
