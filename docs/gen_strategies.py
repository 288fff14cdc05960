"""Print the measured tables of docs/strategies.md (markdown on stdout).

    python docs/gen_strategies.py [--groups 10000] [--seed 49]

Strategies come from the installed plugins (the same entry points the CLI uses); a strategy that
is not installed gets a clearly marked placeholder row. Deterministic: same seed, same tables.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from assignframe import Cluster, GroupAssignment, GroupSubscription, Member, Strategy
from assignframe.plugins import get_plugin_manager

COMPARED = ("roundrobin", "range", "sticky")
REPO = Path(__file__).resolve().parent.parent
UNBALANCED_EXAMPLE = REPO / "docs" / "examples" / "unbalanced.json"


def random_unequal_groups(count: int, seed: int) -> Iterator[GroupSubscription]:
    """Groups of 2-12 members over 1-8 topics (1-16 partitions); subscriptions not all equal."""
    rng = random.Random(seed)
    produced = 0
    while produced < count:
        topics = {f"t{i}": rng.randint(1, 16) for i in range(rng.randint(1, 8))}
        members = {}
        for i in range(rng.randint(2, 12)):
            chosen = rng.sample(sorted(topics), rng.randint(1, len(topics)))
            members[f"m{i:02d}"] = Member(f"m{i:02d}", tuple(sorted(chosen)))
        if len({m.topics for m in members.values()}) > 1:
            produced += 1
            yield GroupSubscription(members, Cluster(topics))


def spread(group: GroupSubscription, assignment: GroupAssignment) -> int:
    """Most minus fewest partitions per member (every member here subscribes to something)."""
    loads = [len(assignment.partitions_of(m)) for m in group.members]
    return max(loads) - min(loads)


def compare_spreads(
    groups: list[GroupSubscription], strategies: dict[str, Strategy]
) -> dict[str, list[int]]:
    return {name: [spread(g, s.assign(g)) for g in groups] for name, s in strategies.items()}


def verdicts(ours: list[int], theirs: list[int]) -> Counter[str]:
    return Counter(
        "better" if a < b else "equal" if a == b else "worse"
        for a, b in zip(ours, theirs, strict=True)
    )


def balance_table(groups: list[GroupSubscription], installed: set[str]) -> list[str]:
    pm = get_plugin_manager()
    candidates = {
        "fair": pm.strategy("fair"),
        "fair (refine=false, KIP-49 greedy only)": pm.strategy("fair", refine=False),
    }
    candidates |= {name: pm.strategy(name) for name in COMPARED if name in installed}
    spreads = compare_spreads(groups, candidates)
    rows = [
        "| comparison | fair better | equal | fair worse | mean spread (fair / other) |",
        "|---|---:|---:|---:|---|",
    ]
    for ours in ("fair", "fair (refine=false, KIP-49 greedy only)"):
        for other in COMPARED:
            rows.append(_comparison_row(ours, other, spreads, len(groups)))
    return rows


def _comparison_row(ours: str, other: str, spreads: dict[str, list[int]], total: int) -> str:
    label = f"{ours} vs {other}"
    if other not in spreads:
        return (
            f"| {label} | — | — | — | **placeholder: `{other}` not installed; rerun this script** |"
        )
    counts = verdicts(spreads[ours], spreads[other])
    cells = " | ".join(
        f"{counts[k]} ({100 * counts[k] / total:.1f}%)" for k in ("better", "equal", "worse")
    )
    means = f"{_mean(spreads[ours]):.2f} / {_mean(spreads[other]):.2f}"
    return f"| {label} | {cells} | {means} |"


def _mean(values: list[int]) -> float:
    return sum(values) / len(values)


def unbalanced_table(installed: set[str]) -> list[str]:
    """The blog's group (docs/examples/unbalanced.json), as ``assignframe assign`` computes it."""
    rows = [
        "| command | partitions per member (c0 … c9) | busy | idle | most |",
        "|---|---|---:|---:|---:|",
    ]
    runs = [(name, []) for name in ("range", "roundrobin", "fair", "sticky")]
    runs.append(("redundant", ["--option", "replicas=2"]))
    for name, extra in runs:
        command = ["assign", str(UNBALANCED_EXAMPLE.relative_to(REPO)), "--strategy", name, *extra]
        shown = "`assignframe " + " ".join(command) + "`"
        if name not in installed:
            rows.append(f"| {shown} | **placeholder: `{name}` not installed; rerun** | | | |")
            continue
        rows.append(_unbalanced_row(shown, _cli_json([*command, "--json"])))
    return rows


def _cli_json(arguments: list[str]) -> dict:
    completed = subprocess.run(
        [sys.executable, "-m", "assignframe", *arguments],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(completed.stdout)


def _unbalanced_row(shown: str, result: dict) -> str:
    per_member = [result["assignment"][f"c{i}"] for i in range(10)]
    listed = ", ".join(" ".join(f"{t}-{p}" for t, p in ps) or "–" for ps in per_member)
    idle = result["metrics"]["idle_members"]
    most = result["metrics"]["max_partitions"]
    return f"| {shown} | {listed} | {len(per_member) - idle} | {idle} | {most} |"


def main(argv: list[str] | None = None, emit: Callable[[str], None] = print) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=49)
    args = parser.parse_args(argv)
    installed = set(get_plugin_manager().strategy_names())
    groups = list(random_unequal_groups(args.groups, args.seed))
    command = f"python docs/gen_strategies.py --groups {args.groups} --seed {args.seed}"
    emit(f"<!-- generated by: {command} -->")
    emit(f"Max-min spread on {args.groups:,} random groups with unequal subscriptions:\n")
    for line in balance_table(groups, installed):
        emit(line)
    emit("\nThe blog's unbalanced group (10 members, t0: 5 and t1: 3 partitions):\n")
    for line in unbalanced_table(installed):
        emit(line)


if __name__ == "__main__":
    main()
