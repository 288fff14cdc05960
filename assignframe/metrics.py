"""How good an assignment is: balance (KIP-54), movement, lag spread and validity.

Balance score (KIP-54, ``StickyAssignor.getBalanceScore``): the sum, over every unordered pair of
members, of the difference of their partition counts::

    balance_score = sum(|n_a - n_b| for each pair {a, b} of members)

0 is perfectly even. With counts sorted ascending ``c_0 <= ... <= c_{k-1}`` this equals
``sum(c_i * (2i - k + 1))``, which is how it is computed (O(k log k), not O(k^2)).

*Balanced* (KIP-54): the counts differ by at most one, or no partition can move from its member
``a`` to another subscriber ``b`` of its topic with ``n_b <= n_a - 2`` (such a move always lowers
the score by at least 2, so "no move improves the score" reduces to that test).

Validity: every partition of a subscribed topic goes to exactly ``min(owners_per_partition,
subscribers of its topic)`` distinct members (1 for ordinary strategies), only to members
subscribed to its topic, and only partitions the cluster has. The checks run as C-level set and
counter operations; per-partition Python loops only run to *list* the culprits of a broken one.

Under the COOPERATIVE protocol (KIP-429) a partition taken from one member cannot go to another
in the same round: the leader leaves it unassigned while its owner still holds it, and hands it
out in the follow-up round. Checked with ``cooperative=True``, such a partition (unassigned, but
claimed in the subscription of a member that loses it) is *withheld*, not unowned: the round is
valid but not complete. A partition nobody claims and nobody gets is unowned under either
protocol.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from .model import Cluster, GroupAssignment, GroupSubscription, TopicPartition
from .movement import OwnershipChanges, movement, ownership_changes  # part of this surface

__all__ = [
    "OwnershipChanges",
    "RoundMetrics",
    "Validity",
    "balance_score",
    "is_balanced",
    "lag_per_member",
    "metrics_record",
    "movement",
    "ownership_changes",
    "round_metrics",
    "validate_assignment",
]

_topic_of = attrgetter("topic")


@dataclass(frozen=True)
class Validity:
    """What is wrong with an assignment (all empty = valid).

    :param expected_owners: the ``owners_per_partition`` the check used
    :param double_owned: partitions given to more members than expected (or twice to one member)
    :param unowned: subscribed partitions given to fewer members than expected
    :param non_subscriber: ``(member_id, partition)`` given to a member not subscribed to its topic
    :param unknown: ``(member_id, partition)`` the cluster does not have
    :param withheld: subscribed partitions left unassigned while a member that loses them still
        owns them (COOPERATIVE revocation pending; assigned in the follow-up round)
    """

    expected_owners: int = 1
    double_owned: tuple[TopicPartition, ...] = ()
    unowned: tuple[TopicPartition, ...] = ()
    non_subscriber: tuple[tuple[str, TopicPartition], ...] = ()
    unknown: tuple[tuple[str, TopicPartition], ...] = ()
    withheld: tuple[TopicPartition, ...] = ()

    @property
    def is_valid(self) -> bool:
        """Nothing is wrong (withheld partitions are not a fault: the follow-up assigns them)."""
        return not (self.double_owned or self.unowned or self.non_subscriber or self.unknown)

    @property
    def problem_count(self) -> int:
        """How many faults (withheld partitions are not faults)."""
        faults = (self.double_owned, self.unowned, self.non_subscriber, self.unknown)
        return sum(map(len, faults))

    @property
    def is_complete(self) -> bool:
        """Valid and nothing withheld: what a settled rebalance must reach."""
        return self.is_valid and not self.withheld

    def describe(self) -> str:
        """One line naming the first few culprits of each kind ("valid" if none)."""
        parts = [
            _listed("double-owned", self.double_owned),
            _listed("unowned", self.unowned),
            _listed("given to non-subscribers", [f"{tp}->{m}" for m, tp in self.non_subscriber]),
            _listed("unknown to the cluster", [f"{tp}->{m}" for m, tp in self.unknown]),
            _listed("withheld (revocation pending)", self.withheld),
        ]
        return "; ".join(p for p in parts if p) or "valid"

    @property
    def is_clean(self) -> bool:
        """Valid and nothing withheld, every list empty (nearly every assignment measured)."""
        faults = (self.double_owned, self.unowned, self.non_subscriber, self.unknown)
        return not (any(faults) or self.withheld)

    def as_dict(self) -> dict[str, Any]:
        if self.is_clean:  # the common case: no list to convert
            return {"valid": True, "expected_owners": self.expected_owners, "double_owned": [],
                    "unowned": [], "non_subscriber": [], "unknown": [], "withheld": []}
        return {
            "valid": self.is_valid,
            "expected_owners": self.expected_owners,
            "double_owned": [[tp.topic, tp.partition] for tp in self.double_owned],
            "unowned": [[tp.topic, tp.partition] for tp in self.unowned],
            "non_subscriber": [[m, tp.topic, tp.partition] for m, tp in self.non_subscriber],
            "unknown": [[m, tp.topic, tp.partition] for m, tp in self.unknown],
            "withheld": [[tp.topic, tp.partition] for tp in self.withheld],
        }


def _listed(label: str, items: Iterable[Any], limit: int = 5) -> str:
    shown = [str(item) for item in itertools.islice(items, limit + 1)]
    if not shown:
        return ""
    more = ", ..." if len(shown) > limit else ""
    return f"{label}: {', '.join(shown[:limit])}{more}"


@dataclass(frozen=True)
class RoundMetrics:
    """Metrics of one assignment (see the module docstring for the definitions).

    Lag fields are None when lags are unknown; kept/moved are None without a previous round.
    ``lag_ratio`` is max/min total lag per member, None when the least-lagged member has none.
    """

    members: int
    partitions_assigned: int
    balance_score: int
    balanced: bool
    min_partitions: int
    max_partitions: int
    idle_members: tuple[str, ...]
    partitions_kept: int | None
    partitions_moved: int | None
    lag_per_member: Mapping[str, int] | None
    lag_spread: int | None
    lag_ratio: float | None
    validity: Validity

    @property
    def spread(self) -> int:
        """max - min partitions per member."""
        return self.max_partitions - self.min_partitions

    def as_dict(self, rounds: int | None = None) -> dict[str, Any]:
        """The one metrics record every tool shows (decode, simulate, audit, report, CLI).

        Flat keys with plain values; ``idle_members`` is a count (``idle_member_ids`` the
        members), ``validity`` the detail. ``rounds`` is added when given (rounds a rebalance
        took, follow-ups included).
        """
        validity = self.validity
        clean = validity.is_clean
        valid = clean or validity.is_valid
        record: dict[str, Any] = {
            "valid": valid,
            "complete": clean or validity.is_complete,
            "problems": "" if valid else validity.describe(),
            "problem_count": 0 if clean else validity.problem_count,
            "withheld": len(validity.withheld),
            "members": self.members,
            "partitions_assigned": self.partitions_assigned,
            "balance_score": self.balance_score,
            "balanced": self.balanced,
            "min_partitions": self.min_partitions,
            "max_partitions": self.max_partitions,
            "spread": self.spread,
            "idle_members": len(self.idle_members),
            "idle_member_ids": list(self.idle_members),
            "partitions_kept": self.partitions_kept,
            "partitions_moved": self.partitions_moved,
            "lag_per_member": None if self.lag_per_member is None else dict(self.lag_per_member),
            "lag_spread": self.lag_spread,
            "lag_ratio": self.lag_ratio,
            "validity": validity.as_dict(),
        }
        if rounds is not None:
            record["rounds"] = rounds
        return record


def round_metrics(
    group: GroupSubscription,
    assignment: GroupAssignment,
    previous: GroupAssignment | None = None,
    owners_per_partition: int = 1,
    *,
    cooperative: bool = False,
) -> RoundMetrics:
    """Every metric of one assignment of ``group`` (``cooperative``: see the module docstring)."""
    counts = {m: len(a.partitions) for m, a in assignment.assignments.items()}
    ordered = sorted(counts.values())
    kept, moved = movement(previous, assignment) if previous is not None else (None, None)
    lags = lag_per_member(assignment, group.lags) if group.lags is not None else None
    lag_totals = sorted(lags.values()) if lags else []
    return RoundMetrics(
        members=len(counts),
        partitions_assigned=sum(ordered),
        balance_score=_sorted_balance_score(ordered),
        balanced=not ordered
        or ordered[-1] - ordered[0] <= 1
        or _no_improving_move(group, assignment, counts),
        min_partitions=ordered[0] if ordered else 0,
        max_partitions=ordered[-1] if ordered else 0,
        idle_members=tuple(sorted(m for m, n in counts.items() if n == 0)),
        partitions_kept=kept,
        partitions_moved=moved,
        lag_per_member=lags,
        lag_spread=lag_totals[-1] - lag_totals[0] if lag_totals else None,
        lag_ratio=_ratio(lag_totals),
        validity=validate_assignment(
            group, assignment, owners_per_partition, cooperative=cooperative
        ),
    )


def metrics_record(
    group: GroupSubscription,
    assignment: GroupAssignment,
    previous: GroupAssignment | None = None,
    owners_per_partition: int = 1,
    rounds: int | None = None,
) -> dict[str, Any]:
    """:meth:`RoundMetrics.as_dict` of one assignment, the cooperative rule applied: what every
    tool reports for an assignment (eager members claim nothing, so the rule is safe for them)."""
    return _measured(group, assignment, previous, owners_per_partition).as_dict(rounds)


#: The assignments measured against the last ``previous`` (:func:`_measured`), with it.
_measured_cache: tuple[GroupAssignment, list[tuple[Any, ...]]] | None = None


def _measured(
    group: GroupSubscription,
    assignment: GroupAssignment,
    previous: GroupAssignment | None,
    owners_per_partition: int,
) -> RoundMetrics:
    """:func:`round_metrics` (cooperative), measured once for the same inputs measured against
    the same ``previous`` object: an audit measures every replay and prediction of a group
    against its current assignment, and 6 in 10 of a fleet's replays assign what another
    strategy of the group assigned. Only the last ``previous`` is kept (with a reference to
    it, so its identity stays unique; one tuple, swapped whole); an assignment is the same
    when every member, in the same order, has the same partitions in the same order, and a
    group when it has the same cluster, lags, members and their topics, and their owned
    partitions when they counted (all :func:`round_metrics` reads)."""
    global _measured_cache
    if previous is None:
        return round_metrics(group, assignment, None, owners_per_partition, cooperative=True)
    cache = _measured_cache
    if cache is None or cache[0] is not previous:
        cache = _measured_cache = (previous, [])
    for known_group, known, owners, metrics in cache[1]:
        if (
            owners == owners_per_partition
            and _same_partitions(known, assignment)
            and _same_measure(known_group, group, _reads_owned(metrics.validity))
        ):
            return metrics
    metrics = round_metrics(group, assignment, previous, owners_per_partition, cooperative=True)
    if len(cache[1]) < 16:
        cache[1].append((group, assignment, owners_per_partition, metrics))
    return metrics


def _same_partitions(one: GroupAssignment, other: GroupAssignment) -> bool:
    if one is other:
        return True
    theirs = other.assignments
    return tuple(one.assignments) == tuple(theirs) and all(
        a.partitions == theirs[m].partitions for m, a in one.assignments.items()
    )


def _same_measure(one: GroupSubscription, other: GroupSubscription, owned: bool) -> bool:
    if one is other:
        return True
    theirs = other.members
    return (
        one.cluster == other.cluster
        and (one.lags is other.lags or one.lags == other.lags)
        and tuple(one.members) == tuple(theirs)
        and all(
            m.topics == theirs[k].topics
            and (not owned or m.owned_partitions == theirs[k].owned_partitions)
            for k, m in one.members.items()
        )
    )


def _reads_owned(validity: Validity) -> bool:
    """Did members' owned partitions count? Only for partitions short of owners (withheld or
    unowned, :func:`_withheld`): none were, so owned partitions cannot change the measure."""
    return bool(validity.unowned or validity.withheld)


def balance_score(partition_counts: Iterable[int]) -> int:
    """KIP-54's score: sum of ``|n_a - n_b|`` over all unordered pairs of members."""
    return _sorted_balance_score(sorted(partition_counts))


def _sorted_balance_score(ordered: list[int]) -> int:
    size = len(ordered)
    return sum(count * (2 * index - size + 1) for index, count in enumerate(ordered))


def is_balanced(group: GroupSubscription, assignment: GroupAssignment) -> bool:
    """KIP-54's "balanced": counts within one, or no partition can move to a subscriber of its
    topic holding at least two fewer partitions."""
    counts = {m: len(a.partitions) for m, a in assignment.assignments.items()}
    if not counts or max(counts.values()) - min(counts.values()) <= 1:
        return True
    return _no_improving_move(group, assignment, counts)


def _no_improving_move(
    group: GroupSubscription, assignment: GroupAssignment, counts: Mapping[str, int]
) -> bool:
    least_loaded_subscriber: dict[str, int] = {}
    for member_id, member in group.members.items():
        for topic in member.topics:
            current = least_loaded_subscriber.get(topic, counts.get(member_id, 0))
            least_loaded_subscriber[topic] = min(current, counts.get(member_id, 0))
    for member_id, assigned in assignment.assignments.items():
        ceiling = counts[member_id] - 2
        topics_held = set(map(_topic_of, assigned.partitions))
        if any(least_loaded_subscriber.get(t, ceiling + 1) <= ceiling for t in topics_held):
            return False
    return True


def lag_per_member(
    assignment: GroupAssignment, lags: Mapping[TopicPartition, int]
) -> dict[str, int]:
    """member_id -> total lag of its partitions whose lag is known (in ``lags``). A member
    owning partitions none of which has a known lag is left out: its lag is not known, never 0
    (a partition never committed). A member owning nothing is 0 behind."""
    totals = {}
    for m, a in assignment.assignments.items():
        known = [lag for lag in map(lags.get, a.partitions) if lag is not None]
        if known or not a.partitions:
            totals[m] = sum(known)
    return totals


def _ratio(sorted_totals: list[int]) -> float | None:
    if not sorted_totals or sorted_totals[0] == 0:
        return None
    return sorted_totals[-1] / sorted_totals[0]


def _all_partitions(assignment: GroupAssignment) -> Iterable[TopicPartition]:
    return itertools.chain.from_iterable(a.partitions for a in assignment.assignments.values())


# -- validity ------------------------------------------------------------------------------


def validate_assignment(
    group: GroupSubscription,
    assignment: GroupAssignment,
    owners_per_partition: int = 1,
    *,
    cooperative: bool = False,
) -> Validity:
    """Check every subscribed partition goes to ``min(owners_per_partition, subscribers)``
    distinct members, only subscribers, and only partitions the cluster has.

    :param cooperative: the round ran COOPERATIVE: unassigned partitions a losing member still
        owns are ``withheld``, not unowned
    """
    topics = tuple(sorted({t for member in group.members.values() for t in member.topics}))
    expected = _subscribed_partitions(_cluster_key(group.cluster), topics)
    if owners_per_partition == 1 and _each_once_to_subscribers(group, assignment, expected):
        return Validity(1)
    return _detailed_validity(group, assignment, owners_per_partition, expected, cooperative)


def _each_once_to_subscribers(
    group: GroupSubscription, assignment: GroupAssignment, expected: frozenset[TopicPartition]
) -> bool:
    """The common case, in C-level set operations: exactly the expected partitions, each once,
    each to a subscriber of its topic."""
    assigned = list(_all_partitions(assignment))
    if len(assigned) != len(expected):
        return False
    distinct = set(assigned)  # hashed once; comparing two sets reuses the hashes
    if len(distinct) != len(assigned) or distinct != expected:
        return False
    members = group.members
    if len({member.topics for member in members.values()}) == 1:
        # One subscription for all: any expected partition is a subscribed one.
        return all(m in members or not a.partitions for m, a in assignment.assignments.items())
    return not _member_problems(group, assignment)


def _member_problems(
    group: GroupSubscription, assignment: GroupAssignment
) -> list[tuple[str, TopicPartition]]:
    """Partitions held by members not subscribed to their topic."""
    non_subscriber: list[tuple[str, TopicPartition]] = []
    for member_id, assigned in assignment.assignments.items():
        member = group.members.get(member_id)
        allowed = set(member.topics) if member else set()
        if not allowed.issuperset(map(_topic_of, assigned.partitions)):
            non_subscriber += [
                (member_id, tp) for tp in assigned.partitions if tp.topic not in allowed
            ]
    return non_subscriber


def _detailed_validity(
    group: GroupSubscription,
    assignment: GroupAssignment,
    owners_per_partition: int,
    expected: frozenset[TopicPartition],
    cooperative: bool,
) -> Validity:
    subscribers = Counter(t for member in group.members.values() for t in set(member.topics))
    owners: dict[TopicPartition, list[str]] = {}
    for member_id, assigned in assignment.assignments.items():
        for tp in assigned.partitions:
            owners.setdefault(tp, []).append(member_id)
    known = _cluster_partitions(group.cluster)
    needed = {t: min(owners_per_partition, n) for t, n in subscribers.items()}
    double_owned = sorted(
        tp
        for tp, held_by in owners.items()
        if len(held_by) > len(set(held_by)) or len(held_by) > needed.get(tp.topic, 1)
    )
    short = [tp for tp in expected if len(set(owners.get(tp, ()))) < needed[tp.topic]]
    withheld = _withheld(group, owners, short) if cooperative else set()
    unknown = [
        (m, tp) for tp, held_by in sorted(owners.items()) if tp not in known for m in held_by
    ]
    return Validity(
        owners_per_partition,
        tuple(double_owned),
        tuple(sorted(tp for tp in short if tp not in withheld)),
        tuple(_member_problems(group, assignment)),
        tuple(unknown),
        tuple(sorted(withheld)),
    )


def _withheld(
    group: GroupSubscription,
    owners: Mapping[TopicPartition, list[str]],
    short: Iterable[TopicPartition],
) -> set[TopicPartition]:
    """Of the under-assigned partitions, those a member still owns and is not given: its
    revocation is pending, and the follow-up round assigns them."""
    short = set(short)
    if not short:
        return set()
    withheld = set()
    for member_id, member in group.members.items():
        for tp in short.intersection(member.owned_partitions):
            if member_id not in owners.get(tp, ()):
                withheld.add(tp)
    return withheld


def _cluster_key(cluster: Cluster) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(cluster.partitions_per_topic.items()))


@functools.lru_cache(maxsize=128)
def _subscribed_partitions(
    cluster_key: tuple[tuple[str, int], ...], topics: tuple[str, ...]
) -> frozenset[TopicPartition]:
    """Every partition of the subscribed topics the cluster has (cached: rounds of one group
    usually share the cluster and the subscriptions)."""
    partitions_per_topic = dict(cluster_key)
    return frozenset(
        TopicPartition(t, p) for t in topics for p in range(partitions_per_topic.get(t, 0))
    )


def _cluster_partitions(cluster: Cluster) -> frozenset[TopicPartition]:
    key = _cluster_key(cluster)
    return _subscribed_partitions(key, tuple(t for t, _ in key))
