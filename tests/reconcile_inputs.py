"""Hypothesis strategies for reconciliation steps shaped like Kafka's own (any state, epochs
around the target's, owned lists omitted or partial, deleted topics, regex subscriptions,
partitions held elsewhere at any epoch). Topic keys are real Kafka topic ids, so a step can be
written in the golden layout (``assignframe.replay.reconcile.input_as_json``) for Java.

The structure (state, epochs, which topics exist) is drawn by Hypothesis; the many per-partition
choices come from a ``random.Random`` seeded by a drawn number (thousands of steps per run stay
fast; Hypothesis still replays a failing example exactly).
"""

from __future__ import annotations

import random

from hypothesis import strategies as st

from assignframe.javaorder import Uuid
from assignframe.kip848.reconcile import ConsumerGroupMember, ConsumerMemberState, Heartbeat
from assignframe.model import TopicPartition

NAMES = ["orders", "payments", "logs.app", "gone"]
#: UNKNOWN (a state from a newer coordinator) is rare, as it is fenced unless owned is empty.
STATES = [*(s for s in ConsumerMemberState if s is not ConsumerMemberState.UNKNOWN)] * 4 + [
    ConsumerMemberState.UNKNOWN
]
REGEXES = ["logs\\..*", "pay.*"]


def _subset(rnd: random.Random, items: list, odds: float = 0.5) -> frozenset:
    return frozenset(item for item in items if rnd.random() < odds)


def _target(draw, rnd: random.Random, assigned: frozenset, partitions: list) -> frozenset:
    """Random, or keeping everything (nothing to revoke), or only taking away."""
    kind = draw(st.sampled_from(["random", "keeps", "takes"]))
    if kind == "keeps":
        return assigned | _subset(rnd, partitions, rnd.random())
    if kind == "takes":
        return _subset(rnd, sorted(assigned), rnd.random())
    return _subset(rnd, partitions, rnd.random())


def _owned(draw, rnd, holds: frozenset, target: frozenset, partitions: list) -> frozenset | None:
    """Omitted, or what it holds, or what it keeps (revoked the rest), or anything."""
    kind = draw(st.sampled_from(["omitted", "holds", "revoked", "random"]))
    if kind == "omitted":
        return None
    if kind == "holds":
        return holds
    if kind == "revoked":
        return holds & target
    return _subset(rnd, partitions, rnd.random())


@st.composite
def reconcile_steps(draw) -> tuple[ConsumerGroupMember, Heartbeat, dict[str, int]]:
    """(member, heartbeat, partition counts of the topics that exist)."""
    rnd = random.Random(draw(st.integers(0, 2**64)))
    ids = [str(Uuid.from_bytes(rnd.randbytes(16))) for _ in range(3)]
    counts = {key: rnd.randint(1, 6) for key in ids}
    existing = ids[: draw(st.sampled_from([1, 2, 3, 3, 3]))]  # the others are deleted topics
    partitions = [TopicPartition(key, p) for key in ids for p in range(counts[key])]
    epoch = draw(st.integers(0, 12))
    state = draw(st.sampled_from(STATES))
    assigned = _subset(rnd, partitions, rnd.random())
    pending = _subset(rnd, [tp for tp in partitions if tp not in assigned], rnd.random())
    if state is not ConsumerMemberState.UNREVOKED_PARTITIONS and draw(st.booleans()):
        pending = frozenset()  # as the coordinator keeps them, mostly
    member = ConsumerGroupMember(
        epoch,
        rnd.randint(-1, epoch),
        state,
        {tp: rnd.randint(0, epoch) for tp in sorted(assigned)},
        {tp: rnd.randint(0, epoch) for tp in sorted(pending)},
        NAMES[:3] if draw(st.booleans()) else _subset(rnd, [*NAMES, "never-created"]),
        rnd.choice(["", *REGEXES]),
    )
    target = _target(draw, rnd, assigned, partitions)
    heartbeat = Heartbeat(
        epoch + draw(st.sampled_from([0, 1, 1, 2, -1])),
        target,
        _owned(draw, rnd, assigned | pending, target, partitions),
        {
            tp: rnd.choice([-1, 0, epoch, epoch + 1])
            for tp in sorted(_subset(rnd, partitions, rnd.random()))
        },
        dict(zip(existing, NAMES, strict=False)),
        draw(st.booleans()),
        {regex: _subset(rnd, NAMES) for regex in sorted(_subset(rnd, REGEXES))},
    )
    return member, heartbeat, {key: counts[key] for key in existing}
