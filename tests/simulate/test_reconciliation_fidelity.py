"""The simulator reconciles every member at every heartbeat exactly as Kafka's builder does.

Each shipped consumer-protocol scenario is played with a spy on the simulator's hand-over
prediction (the real function runs; its results are kept). Then, for every heartbeat:

* the member's state before it is the state the previous heartbeat left (or, at a step's first
  heartbeat, what the previous step ended with: nothing changes members behind the builder);
* the partition-owner epochs the builder is given are the group's, and the target is the step's;
* the state after it is the builder's answer;

and the step's record (hand-overs, reconciliation log) is what those heartbeats did. Finally
every heartbeat of every shipped scenario is sent to Kafka's own builder (the Java oracle), with
topic names turned into the ids the simulator derives for them: the same answer each time.
"""

from __future__ import annotations

import pytest
import yaml

from assignframe.kip848.group import topic_id
from assignframe.kip848.reconcile import ConsumerGroupMember, Heartbeat, reconcile_member
from assignframe.model import TopicPartition
from assignframe.replay.reconcile import input_as_json, output_as_json
from assignframe.simulate import (
    consumer_protocol,
    load_scenario,
    parse_scenario,
    shipped_scenarios,
    simulate,
)

CONSUMER_SCENARIOS = [p for p in shipped_scenarios() if "consumer" in p.stem]
BEHAVIOURS = [
    {},
    {"revoke_after_heartbeats": 1},
    {"revoke_after_heartbeats": 2, "owned_partitions": "always"},
]


def _played(path, options, monkeypatch, clusters=None):
    kept = []
    real = consumer_protocol.predict_handover

    def spy(group, *args, **kwargs):
        kept.append(real(group, *args, **kwargs))
        if clusters is not None:
            clusters.append(dict(group.cluster.partitions_per_topic))
        return kept[-1]

    monkeypatch.setattr(consumer_protocol, "predict_handover", spy)
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    document["options"].update(options)
    (run,) = simulate(parse_scenario(document, str(path)))["runs"]
    assert run["error"] is None, run["error"]
    steps = [s for s in run["steps"] if s.get("group_type") == "consumer"]
    assert len(steps) == len(kept) > 0
    return steps, kept


@pytest.mark.parametrize("options", BEHAVIOURS, ids=["java", "slow-1", "slow-2-always"])
@pytest.mark.parametrize("path", CONSUMER_SCENARIOS, ids=[p.stem for p in CONSUMER_SCENARIOS])
def test_every_heartbeat_is_the_builders_answer_to_the_groups_state(path, options, monkeypatch):
    steps, handovers = _played(path, options, monkeypatch)
    ended = {}
    for record, handover in zip(steps, handovers, strict=True):
        latest = {}
        for step in handover.steps:
            before = latest.get(step.member)
            if before is None:
                before = step.before  # its first heartbeat this step: as the last step left it
                if step.member in ended:
                    assert _state(before) == _state(ended[step.member])
            assert step.before is before
            holders = {tp: m.member_epoch for m in _holding(latest, handover) for tp in m.holds}
            expected = {tp: holders[tp] for tp in step.heartbeat.target if tp in holders}
            assert step.heartbeat.owner_epochs == expected
            assert step.heartbeat.target_epoch == record["generation"]
            assert reconcile_member(step.before, step.heartbeat) == step.after
            latest[step.member] = step.after
        assert latest == dict(handover.members)
        ended = dict(handover.members)
        _record_follows(record, handover)


def _holding(latest, handover):
    """Every member's state at that moment: the ones that heartbeat already, else their first."""
    first = {}
    for step in handover.steps:
        first.setdefault(step.member, step.before)
    return [latest.get(m, first[m]) for m in first]


def _state(member):
    return (member.member_epoch, member.state, member.assigned, member.pending_revocation)


def _record_follows(record, handover):
    """Each hand-over happened at the heartbeat whose answer first gave the new owner the
    partition (newly assigned, or sent in full to a client that rejoined owning nothing), and the
    log lists exactly the heartbeats that changed a member."""
    for entry in record["handovers"]:
        partition = tuple(entry["partition"])
        got = next(
            s.at_ms
            for s in handover.steps
            if s.member.split("~")[0] == entry["to"]
            and partition in s.after.assigned
            and (partition not in s.before.assigned or s.heartbeat.owned == frozenset())
        )
        assert entry["acquired_ms"] == got
    changed = [s for s in handover.steps if _state(s.before) != _state(s.after)]
    assert [(t["at_ms"], t["epoch"], t["state"]) for t in record["reconciliation"]] == [
        (s.at_ms, s.after.member_epoch, s.after.state.value) for s in changed
    ]


def test_the_shipped_scenarios_exercise_every_waiting_state():
    seen = set()
    for path in CONSUMER_SCENARIOS:
        (run,) = simulate(load_scenario(path))["runs"]
        seen |= {t["state"] for s in run["steps"] for t in s.get("reconciliation", ())}
    assert seen == {"STABLE", "UNREVOKED_PARTITIONS", "UNRELEASED_PARTITIONS"}


@pytest.mark.parametrize("options", BEHAVIOURS, ids=["java", "slow-1", "slow-2-always"])
@pytest.mark.parametrize("path", CONSUMER_SCENARIOS, ids=[p.stem for p in CONSUMER_SCENARIOS])
def test_every_heartbeat_is_what_kafkas_builder_answers(
    path, options, monkeypatch, assignframe_java_oracle
):
    clusters = []
    _, handovers = _played(path, options, monkeypatch, clusters)
    asked = 0
    for handover, counts in zip(handovers, clusters, strict=True):
        ids = {name: str(topic_id(name)) for name in counts}
        for step in handover.steps:
            step_input = input_as_json(
                _member_by_id(step.before, ids),
                _heartbeat_by_id(step.heartbeat, ids),
                {ids[name]: count for name, count in counts.items()},
            )
            ours = output_as_json(_member_by_id(step.after, ids), step.after is step.before)
            assert assignframe_java_oracle.reconcile(step_input) == ours, step_input
            asked += 1
    assert asked > 0


def _by_id(partitions, ids):
    return {TopicPartition(ids[tp.topic], tp.partition): v for tp, v in partitions.items()}


def _member_by_id(member, ids):
    return ConsumerGroupMember(
        member.member_epoch,
        member.previous_member_epoch,
        member.state,
        _by_id(member.assigned, ids),
        _by_id(member.pending_revocation, ids),
        member.subscribed_topic_names,
        member.subscribed_topic_regex,
    )


def _heartbeat_by_id(heartbeat, ids):
    def partitions(value):
        return None if value is None else frozenset(_by_id(dict.fromkeys(value), ids))

    return Heartbeat(
        heartbeat.target_epoch,
        partitions(heartbeat.target),
        partitions(heartbeat.owned),
        _by_id(heartbeat.owner_epochs, ids),
        {ids[name]: name for name in heartbeat.topic_names},
        heartbeat.subscription_changed,
        heartbeat.resolved_regexes,
    )
