"""Replaying KIP-848 server-assignor scenarios (``shared/golden/kip848/assign.jsonl`` format).

Each scenario line names its assignor (``uniform``, ``range`` or ``simple``), the topic map
(``{name: {"id", "partitions", "racks"?}}``) and its rounds; each round is one
``PartitionAssignor.assign`` call. Rounds chain through the broker's target assignment: a round's
``current`` is what the previous round's result became once the coordinator wrote it as a
record and read it back, listed in Java's iteration order, which is part of the assignor's input.
A round's topic map is the last one given (a round carries ``topics`` only when it changed).
A round may carry ``member_order``, the order a real coordinator put its members into
``GroupSpec`` (:class:`~assignframe.server_assignor.ServerGroupSpec`); without it, ascending ids.

:func:`server_rounds` turns a scenario into :class:`ServerRound` inputs; :func:`chained_rounds`
feeds them with the assignor's own previous results instead (the coordinator's record round trip
is :mod:`assignframe.kip848.chain`);
:func:`replay_server_scenario` runs an assignor on each and says, per round, whether the result
equals Java's and what in it breaks the assignor's contract (:func:`contract_violations`: Java
really returns such results; the replay reproduces them and says so).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..javaorder import java_string_key
from ..kip848.chain import Current, target_after
from ..kip848.validity import validate_server_assignment
from ..metrics import balance_score
from ..model import TopicPartition
from ..movement import OwnershipChanges, holder_changes
from ..server_assignor import (
    ServerAssignment,
    ServerAssignor,
)
from .server_input import ServerRound, server_rounds

__all__ = [
    "ServerReplay",
    "ServerRoundResult",
    "chained_rounds",
    "contract_violations",
    "holdings_before",
    "replay_server_scenario",
    "result_pairs",
]

#: A partition as the file writes it: ``[topic, partition]`` or ``[topic, partition, topic_id]``.
Pair = list[Any]


@dataclass(frozen=True)
class ServerRoundResult:
    """What an assignor made of one round.

    :param round: the input
    :param assignment: the assignor's result
    :param result: the result in the file's layout (members sorted, partitions sorted)
    :param violations: how the result breaks the assignor's contract (empty = valid)
    :param before: what each member held once the previous round was done (the round's
        ``current``, and what members that left since still held): movement is measured
        against it (:func:`holdings_before`)
    """

    round: ServerRound
    assignment: ServerAssignment
    result: dict[str, list[Pair]]
    violations: tuple[str, ...]
    before: Mapping[str, tuple[TopicPartition, ...]] = dataclasses.field(default_factory=dict)

    @property
    def matches_java(self) -> bool | None:
        """True/False when the round has Java's ``result``; None when it has none."""
        expected = self.round.java.get("result")
        if expected is None:
            return None
        return _comparable(self.result) == _comparable(expected)

    @property
    def partitions_moved(self) -> int:
        """Partitions held before this round that a member now holds that did not
        (:mod:`assignframe.movement`: partitions nobody held are added, not moved)."""
        return len(self.changes().moved)

    def holdings(self) -> dict[str, tuple[TopicPartition, ...]]:
        """Member -> the partitions this round gives it (topic ids as topic names: a deleted
        topic's name may come back with another id)."""
        return {
            member_id: tuple(
                TopicPartition(str(t), p) for t, p in self.assignment.partitions_of(member_id)
            )
            for member_id in self.round.spec.members
        }

    def changes(self) -> OwnershipChanges:
        """This round measured against the previous round's result (:attr:`before`)."""
        return holder_changes(self.before, self.holdings())

    def metrics(self) -> dict[str, Any]:
        """The round's record: the keys of :meth:`assignframe.metrics.RoundMetrics.as_dict`
        that a server assignor's round has, with their meaning."""
        holdings = self.holdings()
        counts = sorted(len(held) for held in holdings.values())
        idle = sorted(m for m, held in holdings.items() if not held)
        record: dict[str, Any] = {
            "valid": not self.violations,
            "problems": "; ".join(self.violations),
            "problem_count": len(self.violations),
            "members": len(counts),
            "partitions_assigned": sum(counts),
            "balance_score": balance_score(counts),
            "min_partitions": counts[0] if counts else 0,
            "max_partitions": counts[-1] if counts else 0,
            "spread": counts[-1] - counts[0] if counts else 0,
            "idle_members": len(idle),
            "idle_member_ids": idle,
        }
        changes = holder_changes(self.before, holdings)
        record.update(partitions_kept=len(changes.kept), partitions_moved=len(changes.moved))
        return record


@dataclass(frozen=True)
class ServerReplay:
    """A replayed scenario: one result per recorded round."""

    scenario_id: str
    assignor: str
    rounds: tuple[ServerRoundResult, ...]

    @property
    def matches_java(self) -> bool:
        """Every round that has Java's result matches it."""
        return all(r.matches_java is not False for r in self.rounds)

    @property
    def mismatched_rounds(self) -> tuple[int, ...]:
        return tuple(r.round.index for r in self.rounds if r.matches_java is False)

    def as_dict(self) -> dict[str, Any]:
        """The ``assignframe replay --json`` line of this scenario."""
        return {
            "id": self.scenario_id,
            "assignor": self.assignor,
            "matches_java": self.matches_java,
            "rounds": [
                {
                    "round": r.round.index,
                    "event": r.round.event,
                    "subscription_type": r.round.spec.subscription_type,
                    "matches_java": r.matches_java,
                    "result": r.result,
                    "metrics": r.metrics(),
                }
                for r in self.rounds
            ],
        }


# -- reading --------------------------------------------------------------------------------------


def replay_server_scenario(
    scenario: Mapping[str, Any], assignor: ServerAssignor, chain: bool = False
) -> ServerReplay:
    """Run ``assignor`` on every round of ``scenario``; compare with Java where recorded.

    Java's ``result`` is only comparable when ``assignor`` is the scenario's own (its
    ``assignor`` field); another one answers "what would that assignor have done".

    :param chain: feed each round with the assignor's own previous results
        (:func:`chained_rounds`) instead of the recorded ``current``
    """
    if chain:
        played = chained_rounds(scenario, assignor)
    else:
        played = ((r, assignor.assign(r.spec)) for r in server_rounds(scenario))
    results: list[ServerRoundResult] = []
    for r, a in played:
        before = holdings_before(r, results[-1] if results else None)
        results.append(
            ServerRoundResult(r, a, result_pairs(r, a), contract_violations(r, a), before)
        )
    return ServerReplay(str(scenario.get("id", "")), assignor.qualified_name(), tuple(results))


def holdings_before(
    round_: ServerRound, previous: ServerRoundResult | None
) -> dict[str, tuple[TopicPartition, ...]]:
    """What each member held once the round before ``round_`` was done: every member's
    ``current`` (the target the coordinator holds), and for a member of ``previous`` that has
    left since, what ``previous`` gave it that no member's ``current`` holds now (a static
    member's replacement takes its predecessor's target over: nothing moves)."""
    held = {
        member_id: tuple(TopicPartition(str(t), p) for t, ps in member.current for p in ps)
        for member_id, member in round_.spec.members.items()
    }
    if previous is not None:
        taken = {tp for partitions in held.values() for tp in partitions}
        for member_id, partitions in previous.holdings().items():
            if member_id not in held:
                held[member_id] = tuple(tp for tp in partitions if tp not in taken)
    return held


def chained_rounds(
    scenario: Mapping[str, Any], assignor: ServerAssignor
) -> Iterator[tuple[ServerRound, ServerAssignment]]:
    """Each round with ``current`` built from the assignor's previous results, and its result.

    Round 0 keeps its recorded ``current`` (crafted scenarios start from one). Later rounds keep
    the recorded members, subscriptions and topics; a joining member starts empty and a static
    member replacement hands the old member's target to the new id.

    :raises ValueError: the assignor does not model Java's result order
    """
    targets: dict[str, Current] = {}
    for round_ in server_rounds(scenario):
        if round_.index > 0:
            round_ = _with_currents(round_, targets)
        result = assignor.assign_in_java_order(round_.spec)
        if result is None:
            raise ValueError(
                f"{assignor.qualified_name()} does not model Java's result order "
                "(assign_in_java_order), so its rounds cannot be chained exactly"
            )
        targets = {
            member_id: target_after(member.current, result.members.get(member_id, {}))
            for member_id, member in round_.spec.members.items()
        }
        yield round_, result


def _with_currents(round_: ServerRound, targets: Mapping[str, Current]) -> ServerRound:
    held = dict(targets)
    for event in round_.java.get("events") or ():
        if event.get("type") == "replace":  # in order: a replacement may be replaced again
            held[event["new"]] = held.pop(event["old"], ())
    members = {
        member_id: dataclasses.replace(member, current=held.get(member_id, ()))
        for member_id, member in round_.spec.members.items()
    }
    spec = dataclasses.replace(round_.spec, members=members)
    return dataclasses.replace(round_, spec=spec)


def result_pairs(round_: ServerRound, assignment: ServerAssignment) -> dict[str, list[Pair]]:
    """The result in the file's layout: every member, partitions sorted by (topic, partition)."""
    topics = round_.spec.topics
    out = {}
    for member_id in sorted(round_.spec.members, key=java_string_key):
        pairs: list[Pair] = []
        for topic_id, p in assignment.partitions_of(member_id):
            name = round_.topic_names.get(topic_id, str(topic_id))
            pairs.append([name, p] if topic_id in topics else [name, p, str(topic_id)])
        pairs.sort(key=lambda e: (java_string_key(e[0]), e[1], e[2:]))
        out[member_id] = pairs
    return out


def _comparable(result: Mapping[str, list[Pair]]) -> dict[str, Counter[tuple[Any, ...]]]:
    return {m: Counter(tuple(e) for e in pairs) for m, pairs in result.items()}


def contract_violations(round_: ServerRound, assignment: ServerAssignment) -> tuple[str, ...]:
    """How ``assignment`` breaks the contract of a server assignor, in words (empty = it does
    not): :func:`~assignframe.kip848.validity.validate_server_assignment`, the core's one
    validity check seen through the KIP-848 group."""
    return validate_server_assignment(round_.spec, assignment).problems(round_.topic_names)
