"""Our reconciliation against Kafka's own ``CurrentAssignmentBuilder``, run by the Java oracle.

* 2,000 generated steps per run (``$ASSIGNFRAME_DIFFERENTIAL_EXAMPLES``), each one reconciled by
  both and compared on every output field (epochs, state, partitions and their assignment epochs,
  "unchanged", the fencing error);
* whole convergences played by :func:`converge` on generated groups: every heartbeat the
  simulator reconciles, with the group state it feeds the builder, sent to Java as is.

A difference fails with the step's input in the golden layout, ready to be added to a test.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from reconcile_inputs import reconcile_steps  # tests/ is on sys.path (conftest.py)

from assignframe.kip848.convergence import ClientBehaviour, converge
from assignframe.kip848.group import topic_id
from assignframe.kip848.reconcile import ConsumerGroupMember, ConsumerMemberState
from assignframe.model import TopicPartition
from assignframe.replay.reconcile import input_as_json, output_as_json, reconcile_json
from assignframe.testing.server_differential import differential_settings

TOPICS = {str(topic_id(name)): name for name in ("orders", "payments")}
PARTITIONS = [TopicPartition(key, p) for key in TOPICS for p in range(5)]


def _same_as_java(oracle, step_input, ours):
    javas = oracle.reconcile(step_input)
    assert ours == javas, json.dumps({"input": step_input, "java": javas, "ours": ours})


@differential_settings()
@given(reconcile_steps())
def test_every_generated_step_is_reconciled_as_java_does(assignframe_java_oracle, step):
    step_input = input_as_json(*step)
    _same_as_java(assignframe_java_oracle, step_input, reconcile_json(step_input, "generated"))


@st.composite
def convergences(draw):
    """A group of 1-5 members at epoch 3 owning a random partition of the topics, and the
    target of epoch 4; some members join instead; any client behaviour."""
    members = [f"m{i}" for i in range(draw(st.integers(1, 5)))]
    before = draw(st.lists(st.sampled_from([None, *members]), min_size=10, max_size=10))
    after = draw(st.lists(st.sampled_from([None, *members]), min_size=10, max_size=10))
    joining = frozenset(draw(st.lists(st.sampled_from(members), unique=True)))
    owned = {m: frozenset(tp for tp, o in zip(PARTITIONS, before, strict=True) if o == m)
             for m in members if m not in joining}  # fmt: skip
    state = {m: ConsumerGroupMember(3, 3, ConsumerMemberState.STABLE, dict.fromkeys(owned[m], 3),
                                    {}, set(TOPICS.values())) for m in owned}  # fmt: skip
    state |= {m: ConsumerGroupMember.joining(TOPICS.values()) for m in joining}
    target = {m: frozenset(tp for tp, o in zip(PARTITIONS, after, strict=True) if o == m)
              for m in members}  # fmt: skip
    behaviour = ClientBehaviour(
        1000, draw(st.sampled_from(["when_changed", "always"])), draw(st.integers(0, 2))
    )
    return converge(state, owned, joining, target, 4, TOPICS, behaviour)


@settings(max_examples=150, deadline=None)
@given(convergences())
def test_every_heartbeat_of_a_convergence_is_reconciled_as_java_does(
    assignframe_java_oracle, convergence
):
    counts = dict.fromkeys(TOPICS, 5)
    for step in convergence.steps:
        ours = output_as_json(step.after, step.after is step.before)
        _same_as_java(assignframe_java_oracle, input_as_json(step.before, step.heartbeat, counts),
                      ours)  # fmt: skip
