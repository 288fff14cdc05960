"""Consumer-protocol groups in the audit, and the migration verdict of every classic group.

* A ``group_type="consumer"`` snapshot is replayed through the broker's server assignors (its
  members cannot choose a client strategy): :data:`SERVER_STRATEGIES`; the one it runs is
  :func:`coordinator_assignor`.
* A classic group gets a *migration verdict*: can it move to the consumer protocol online? It is
  refused when the coordinator would refuse or fail the conversion (KAFKA-18134: an Assignment
  carrying user data; a partition in two members' Assignments) or when a member's client has no
  consumer-protocol support (:mod:`assignframe.audit.clients`). Beside it, what the upgrade
  would do under ``uniform`` and ``range`` against what the group's strategy assigned:
  partitions moved, whether the result is valid, and the longest time a partition would have no
  owner while the converted group's members reconcile toward the target heartbeat by heartbeat
  by Kafka's rules (each keeping its Assignment, at the generation as epoch; Java clients
  heartbeating every ``group.consumer.heartbeat.interval.ms``: the broker's default 5 s, or what
  the live reader read of the group's and the broker's configs, a
  :class:`~assignframe.kip848.timing.GroupTiming` the section names with its source:
  :func:`~assignframe.kip848.group.predict_handover`). For a refused group the
  prediction is what would happen once the causes are fixed, and is marked so (``hypothetical``).

The rules are :mod:`assignframe.kip848.group`'s; this module only applies them to a
snapshot.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..kip848.convergence import JAVA_CLIENT, ClientBehaviour, UpgradeHandover
from ..kip848.group import (
    DEFAULT_SERVER_ASSIGNORS,
    ConvertedGroup,
    choose_server_assignor,
    converted_members,
    predict_handover,
    predict_upgrade_handover,
    server_spec,
    target_assignment,
    target_from_spec,
    upgrade_refusal,
)
from ..kip848.timing import GroupTiming
from ..metrics import metrics_record, ownership_changes
from ..model import GroupAssignment, GroupSubscription, Member, MemberAssignment, TopicPartition
from ..plugins.manager import PluginManager
from ..server_assignor import ServerGroupSpec, server_name
from ..snapshot import GroupSnapshot
from .clients import GroupClients

__all__ = [
    "NOTHING_TO_HAND_OVER",
    "REFUSAL_KINDS",
    "SERVER_STRATEGIES",
    "coordinator_assignor",
    "migration_section",
    "owns_its_target",
    "predict_join",
    "predicted_handover",
    "server_replay",
]

#: What a consumer-protocol group is replayed through (qualified names, as ``plugins`` shows).
SERVER_STRATEGIES = tuple(server_name(n) for n in DEFAULT_SERVER_ASSIGNORS)
#: Why an upgrade does not happen, as the roll-ups count it: (key, how people read it).
REFUSAL_KINDS = (
    ("user_data", "an Assignment carries user data (KAFKA-18134)"),
    ("shared_partition", "a partition is in two Assignments"),
    ("client", "a member's client has no consumer protocol"),
)


def coordinator_assignor(snapshot: GroupSnapshot) -> tuple[str, str]:
    """The server assignor a consumer-protocol group runs, and how that is known: reported by
    the broker, named by its members (``group.remote.assignor``), or the broker's default."""
    if snapshot.assignor:
        return snapshot.assignor, "reported by the broker"
    if snapshot.protocol:
        return choose_server_assignor([snapshot.protocol]), "named by its members"
    return choose_server_assignor([]), (
        "the broker's default: no member names one; the first of group.consumer.assignors, "
        f"{', '.join(DEFAULT_SERVER_ASSIGNORS)} unless configured"
    )


def server_replay(
    snapshot: GroupSnapshot, assignor: str, pm: PluginManager
) -> tuple[GroupAssignment, dict[str, Any]]:
    """The server assignor's target for the snapshot's members, measured against what they own
    (one round: the broker computes a target, it has no follow-up rounds)."""
    return _server_target(snapshot.subscription(), snapshot.current, assignor, pm)


def _server_target(
    group: GroupSubscription,
    current: GroupAssignment,
    assignor: str,
    pm: PluginManager,
    spec: ServerGroupSpec | None = None,
) -> tuple[GroupAssignment, dict[str, Any]]:
    if spec is None:
        target = target_assignment(group, current, assignor, pm)
    else:
        target = target_from_spec(group, spec, assignor, pm)
    return target, metrics_record(group, target, current, 1, 1)


def migration_section(
    snapshot: GroupSnapshot,
    pm: PluginManager,
    clients: GroupClients | None = None,
    timing: GroupTiming | None = None,
) -> dict[str, Any] | None:
    """The classic group's migration verdict and prediction (None for a consumer group).

    :param timing: the heartbeat interval and session timeout the converted group would run
        with (the live reader's, from the broker); None: Kafka's defaults, unsaid (the offline
        audit's results stay as they were)
    """
    if snapshot.group_type != "classic":
        return None
    reasons = _refusals(snapshot, clients)
    refused = bool(reasons)
    behaviour = JAVA_CLIENT if timing is None else dataclasses.replace(
        JAVA_CLIENT, heartbeat_interval_ms=timing.heartbeat_interval_ms)
    section: dict[str, Any] = {
        "current_strategy": snapshot.protocol,
        "verdict": "refused" if refused else "allowed",
        "upgrade_refused": refused,
        "refusal": "; ".join(text for _, text in reasons) or None,
        "refused_for": sorted({kind for kind, _ in reasons}),
        "unknown_clients": clients.unidentified() if clients else [],
        "server_assignor": server_name(choose_server_assignor([])),
        "predicted": _predictions(snapshot, pm, refused, behaviour),
    }
    if timing is not None:
        section["timing"] = timing.as_dict()
    return section


def _refusals(snapshot: GroupSnapshot, clients: GroupClients | None) -> list[tuple[str, str]]:
    """(kind, sentence) for each reason the upgrade does not happen."""
    found = []
    refusal = upgrade_refusal(snapshot.current)
    # consumer_group words each cause as one sentence starting "online upgrade ..."
    for sentence in re.split(r"; (?=online upgrade )", refusal or ""):
        if sentence:
            kind = "user_data" if "KAFKA-18134" in sentence else "shared_partition"
            found.append((kind, sentence))
    for blocker in clients.without_consumer_protocol() if clients else ():
        found.append(("client", f"online upgrade impossible: {blocker}"))
    return found


def _converted(snapshot: GroupSnapshot) -> GroupSnapshot:
    """What the converted group starts from: each member's Assignment as a set of partitions
    (the coordinator keys ownership by topic and partition, so a partition listed twice in one
    member's Assignment is owned once)."""
    current = snapshot.current.assignments
    if all(
        a.user_data is None and len(set(a.partitions)) == len(a.partitions)
        for a in current.values()
    ):  # nearly every group: nothing to drop, the snapshot is its own converted form
        return snapshot
    owned = {
        member_id: MemberAssignment(tuple(dict.fromkeys(assignment.partitions)))
        for member_id, assignment in current.items()
    }
    return dataclasses.replace(snapshot, current=GroupAssignment(owned))


def _predictions(
    snapshot: GroupSnapshot, pm: PluginManager, hypothetical: bool, behaviour: ClientBehaviour
) -> list[dict[str, Any]]:
    """:func:`_predict` for each default assignor; what does not depend on the assignor (the
    converted group and its leader's view) is built once per group."""
    converted = _converted(snapshot)
    group = converted.subscription()
    epoch = max(snapshot.generation, 0)  # the conversion keeps the generation as group epoch
    # The assignors' one input, built by the first that asks (an error stays each one's own).
    spec = functools.cache(lambda: server_spec(group, converted.current))
    upgraded = ConvertedGroup(group, converted.current, epoch, behaviour)
    reached: list[tuple[dict[str, frozenset[TopicPartition]], dict[str, Any]]] = []

    def reach(target: GroupAssignment) -> dict[str, Any]:
        """:func:`predicted_handover`, played once per distinct target (assignors often agree;
        the hand-over reads each member's target as a set)."""
        wanted = upgraded.wanted(target)
        if upgraded.owns(wanted):  # owns_its_target
            return dict(NOTHING_TO_HAND_OVER)
        for known, handover in reached:
            if known == wanted:
                return dict(handover)
        handover = _figures(upgraded.handover(target, wanted))
        reached.append((wanted, handover))
        return dict(handover)

    return [
        _predict(group, converted.current, assignor, pm, hypothetical, reach, spec)
        for assignor in DEFAULT_SERVER_ASSIGNORS
    ]


def _predict(
    group: GroupSubscription,
    owned: GroupAssignment,
    assignor: str,
    pm: PluginManager,
    hypothetical: bool,
    reach: Callable[[GroupAssignment], dict[str, Any]],
    spec: Callable[[], ServerGroupSpec],
) -> dict[str, Any]:
    """What the upgrade would give under ``assignor`` (an error is a result, not a crash)."""
    name = server_name(assignor)
    try:
        target, metrics = _server_target(group, owned, assignor, pm, spec())
    except Exception as exc:
        return {"assignor": name, "error": f"{type(exc).__name__}: {exc}", "hypothetical":
                hypothetical}
    try:
        handover: dict[str, Any] | None = reach(target)
        why_not = None
    except Exception as exc:  # the hand-over cannot be played (e.g. a partition two own)
        handover, why_not = None, f"{type(exc).__name__}: {exc}"
    return {
        "assignor": name,
        "hypothetical": hypothetical,
        "valid": bool(metrics["valid"]),
        "partitions_moved": metrics["partitions_moved"],
        "max_unowned_ms": None if handover is None else handover["max_unowned_ms"],
        "handover": handover,
        "handover_error": why_not,
        "metrics": metrics,
    }


#: :func:`predicted_handover` when every member already owns exactly its target: each settles
#: at its first heartbeat of the new epoch and nothing changes hands. The convergence plays the
#: same (tests/audit/test_prediction_shortcuts.py holds them equal on fleet groups); 7 in 10 of
#: a fleet's predictions are this case, and playing them was a tenth of the audit's time.
NOTHING_TO_HAND_OVER: dict[str, Any] = {
    "heartbeats": 1,
    "unowned_partitions": 0,
    "max_unowned_ms": 0,
    "total_unowned_ms": 0,
    "revoking_members": 0,
}


def owns_its_target(
    group: GroupSubscription, owned: GroupAssignment, target: GroupAssignment
) -> bool:
    """Every member of ``group`` (one at least) owns exactly its ``target``, none joins."""
    members = group.members
    return (
        bool(members)
        and owned.assignments.keys() == members.keys()
        and all(set(target.partitions_of(m)) == set(owned.partitions_of(m)) for m in members)
    )


def predicted_handover(
    group: GroupSubscription,
    owned: GroupAssignment,
    target: GroupAssignment,
    epoch: int,
    behaviour: ClientBehaviour = JAVA_CLIENT,
) -> dict[str, Any]:
    """How the converted group would reach ``target``: heartbeat intervals until every member
    owns its target, partitions that change hands and how long they stay unconsumed, members
    that must revoke first. ``epoch``: the converted group's epoch (the classic generation);
    ``behaviour``: how its members heartbeat (the broker's default interval unless given)."""
    return _figures(predict_upgrade_handover(group, owned, target, epoch, behaviour))


def _figures(handover: UpgradeHandover) -> dict[str, Any]:
    unowned = handover.unowned_ms
    return {
        "heartbeats": handover.heartbeats,
        "unowned_partitions": len(unowned),
        "max_unowned_ms": max(unowned, default=0),
        "total_unowned_ms": sum(unowned),
        "revoking_members": handover.revoking_members,
    }


def predict_join(
    snapshot: GroupSnapshot,
    joining: Mapping[str, Sequence[str]],
    pm: PluginManager,
    assignor: str | None = None,
    behaviour: ClientBehaviour = JAVA_CLIENT,
) -> dict[str, Any]:
    """The online upgrade as the broker makes it happen: consumer-protocol members ``joining``
    (member id -> subscribed topics) join the classic group of ``snapshot``. The coordinator
    refuses (:func:`~assignframe.kip848.group.upgrade_refusal`), or converts the group
    (every classic member kept, bridged, with its Assignment, at the generation as epoch), bumps
    the epoch for the join and computes one target for all members with ``assignor`` (default:
    the one the joining members would name, else the broker's default).

    :returns: ``refusal`` (None when converted), ``assignor``, ``target`` (a GroupAssignment, None
        when refused), ``moved`` (partition -> (previous owner, new owner): a hand-over),
        ``added`` (partition -> new owner: nobody owned it; :mod:`assignframe.movement`) and
        ``handover`` (:func:`predicted_handover`'s numbers)
    """
    refusal = upgrade_refusal(snapshot.current)
    name = assignor or choose_server_assignor([])
    if refusal is not None:
        return {"refusal": refusal, "assignor": name, "target": None, "moved": {},
                "added": {}, "handover": None}
    converted = _converted(snapshot)
    members = dict(converted.members)
    members.update({m: Member(m, tuple(topics)) for m, topics in joining.items()})
    group = dataclasses.replace(converted.subscription(), members=members)
    epoch = max(snapshot.generation, 0)
    target, _ = _server_target(group, converted.current, name, pm)
    members_before = converted_members(converted.current, group, epoch)
    played = predict_handover(group, members_before, converted.current, target, epoch + 1,
                              behaviour)
    unowned = [h.unowned_ms for h in played.handovers]
    changes = ownership_changes(converted.current, target)
    return {
        "refusal": None,
        "assignor": name,
        "target": target,
        "moved": {tp: (before, after) for tp, before, after in changes.moved},
        "added": {tp: after for tp, after in changes.added},
        "handover": {"heartbeats": played.heartbeats, "max_unowned_ms": max(unowned, default=0),
                     "revoking_members": len(played.revoked)},
    }
