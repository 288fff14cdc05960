"""Checking captured heartbeats against the coordinator's rules: never a false alarm on traffic
the coordinator's own reconciliation produces, and an alarm on answers it cannot give.

The traffic comes from :func:`converge` (every answer is Kafka's builder's) over random groups,
targets and client behaviours, chained over several target epochs as a capture would show them.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from assignframe.kip848.convergence import ClientBehaviour, converge
from assignframe.kip848.reconcile import (
    ConsumerGroupMember,
    ConsumerMemberState,
    ObservedMember,
    observe_heartbeat,
)
from assignframe.model import TopicPartition

TOPICS = {"t": "t", "u": "u"}
PARTITIONS = [TopicPartition(t, p) for t in TOPICS for p in range(6)]


@st.composite
def groups(draw):
    """(members, targets per round, joiners per round, behaviour)."""
    members = [f"m{i}" for i in range(draw(st.integers(1, 5)))]
    rounds = []
    for _ in range(draw(st.integers(1, 3))):
        owner = draw(st.lists(st.sampled_from([None, *members]), min_size=12, max_size=12))
        rounds.append(
            {
                m: frozenset(tp for tp, o in zip(PARTITIONS, owner, strict=True) if o == m)
                for m in members
            }
        )
    behaviour = ClientBehaviour(
        draw(st.sampled_from([1000, 3000])),
        draw(st.sampled_from(["when_changed", "always"])),
        draw(st.integers(0, 3)),
    )
    joiners = frozenset(draw(st.lists(st.sampled_from(members), unique=True)))
    return members, rounds, joiners, behaviour


def _traffic(members, rounds, joiners, behaviour):
    """Each heartbeat as a capture shows it: (member, request epoch, owned, answer epoch,
    answer assignment or None), in time order, round after round."""
    state = {
        m: ConsumerGroupMember(1, 1, ConsumerMemberState.STABLE, {}, {}, {"t", "u"})
        for m in members
        if m not in joiners
    }
    for m in joiners:
        state[m] = ConsumerGroupMember.joining({"t", "u"})
    owned = {m: frozenset() for m in members}
    joining, epoch = joiners, 1
    for target in rounds:
        epoch += 1
        result = converge(state, owned, joining, target, epoch, TOPICS, behaviour)
        seen = set()
        for step in result.steps:
            first = step.member not in seen
            seen.add(step.member)
            join = first and step.member in joining
            changed = join or step.after.assigned.keys() != step.before.assigned.keys()
            yield (
                step.member,
                0 if join else step.before.member_epoch,
                step.heartbeat.owned,
                step.after.member_epoch,
                frozenset(step.after.assigned) if changed else None,
            )
        state, owned, joining = dict(result.members), dict(result.owned), frozenset()


def _observe(traffic, group):
    """The alarms a capture of ``traffic`` raises (members already in the group at epoch 1,
    owning nothing, as seen before the capture's first heartbeat)."""
    members, _, joiners, _ = group
    observed = {m: ObservedMember(1, 1, frozenset()) for m in members if m not in joiners}
    alarms = []
    for member, request_epoch, owned, epoch, assigned in traffic:
        before = observed.get(member)
        if request_epoch == 0 or before is None:
            before = ObservedMember(0, -1, frozenset())
        observed[member], problems = observe_heartbeat(
            before, request_epoch, owned, epoch, assigned
        )
        alarms += problems
    return alarms


@settings(max_examples=300, deadline=None)
@given(groups())
def test_the_coordinators_own_answers_never_raise_an_alarm(group):
    traffic = list(_traffic(*group))
    assert traffic
    assert _observe(traffic, group) == []


@settings(max_examples=200, deadline=None)
@given(groups(), st.data())
def test_skipping_a_revocation_is_caught(group, data):
    """Answer a heartbeat that the coordinator kept waiting for a revocation with the epoch the
    member reached only after it: flagged."""
    traffic = list(_traffic(*group))
    waits = [
        i
        for i, (member, request, owned, epoch, assigned) in enumerate(traffic)
        if assigned is not None and epoch == request and assigned < _last_assigned(traffic, i)
    ]
    if not waits:
        return
    i = data.draw(st.sampled_from(waits))
    member, request, owned, _, assigned = traffic[i]
    later = next(t[3] for t in traffic[i + 1 :] if t[0] == member and t[3] > request)
    traffic[i] = (member, request, owned, later, assigned)
    assert any("until a heartbeat no longer reports them" in a for a in _observe(traffic, group))


def _last_assigned(traffic, index):
    member = traffic[index][0]
    for other, _, _, _, assigned in reversed(traffic[:index]):
        if other == member and assigned is not None:
            return assigned
    return frozenset()
