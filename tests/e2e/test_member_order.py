"""The coordinator's member order decides ties, on the real broker (Kafka 4.1; 4.3.1 in kafka-43).

``UniformHeterogeneousAssignmentBuilder`` gives a contested partition to the member its
``GroupSpec`` map iterates first. That map is a ``HashMap`` the coordinator fills from its own
member table (a ``TimelineHashMap``), so two member ids in one ``HashMap`` bucket come out in the
table's order, not in ascending id order as Kafka's assignor tests (and the golden data) fill it.
Members with chosen ids (raw ConsumerGroupHeartbeat through ``assignframe_codec``: real clients
pick random ids) make the difference certain: ``member-12`` and ``member-01`` share bucket 11,
ascending order puts ``member-01`` first, the broker's table lists ``member-12`` first. When a
topic both subscribe to appears, its partitions alternate between them starting with the first:
``server:uniform`` must predict the broker's target from the order ConsumerGroupDescribe lists
the members in (``ServerGroupSpec.member_order``), and would not from ascending ids.
"""

from __future__ import annotations

import dataclasses
import time
import uuid

import pytest
from e2e_harness import create_topic
from raw_consumer import RawConsumerMember, describe_consumer_group

from assignframe import ServerGroupSpec, ServerMember, ServerTopic, Uuid
from assignframe.javaorder import java_string_hash
from assignframe.plugins import get_plugin_manager
from assignframe.testing.kafka_node import kafka_version

FIRST_IN_TABLE, FIRST_BY_ID, OTHER = "member-12", "member-01", "member-50"
SETTLE_SECONDS = 90


def _bucket(member_id: str) -> int:
    h = java_string_hash(member_id) & 0xFFFFFFFF
    return (h ^ (h >> 16)) & 15


def _targets(described) -> dict[str, set[tuple[str, int]]]:
    return {m.member_id: {(t.topic_name, p) for t in m.target_assignment.topic_partitions
                          for p in t.partitions} for m in described.members}


def _settled(bootstrap, group, members, wanted=None):
    """The description once every one of ``members`` holds its target at the group's epoch
    (and, with ``wanted``, the targets cover those partitions); None until then."""
    described = describe_consumer_group(bootstrap, group)
    if described.error_code or described.group_state != "Stable":
        return None
    if described.group_epoch != described.assignment_epoch:
        return None
    if {m.member_id for m in described.members} != set(members):
        return None
    for m in described.members:
        held = {(t.topic_id, tuple(t.partitions)) for t in m.assignment.topic_partitions}
        target = {(t.topic_id, tuple(t.partitions)) for t in m.target_assignment.topic_partitions}
        if m.member_epoch != described.group_epoch or held != target:
            return None
    covered = {tp for tps in _targets(described).values() for tp in tps}
    if wanted is not None and not wanted <= covered:
        return None
    return described


def _wait_settled(bootstrap, group, members, wanted=None):
    deadline = time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < deadline:
        errors = {m.member_id: m.errors for m in members if m.errors}
        assert not errors, f"raw members failed: {errors}"
        described = _settled(bootstrap, group, [m.member_id for m in members], wanted)
        if described is not None:
            return described
        time.sleep(0.2)
    raise AssertionError(f"{group} did not settle within {SETTLE_SECONDS} s: "
                         f"{describe_consumer_group(bootstrap, group)}")


@pytest.mark.e2e
def test_the_broker_breaks_ties_in_its_member_tables_order(assignframe_kafka_broker):
    assert _bucket(FIRST_IN_TABLE) == _bucket(FIRST_BY_ID) != _bucket(OTHER)
    assert FIRST_BY_ID < FIRST_IN_TABLE
    broker = assignframe_kafka_broker
    tag = uuid.uuid4().hex[:8]
    group, t0, t1, t2 = (f"member-order-{tag}", f"mo-{tag}-0", f"mo-{tag}-1", f"mo-{tag}-2")
    create_topic(broker, t0, 4)
    create_topic(broker, t1, 1)
    subscriptions = {FIRST_IN_TABLE: [t0, t2], FIRST_BY_ID: [t0, t2], OTHER: [t1]}
    members: list[RawConsumerMember] = []
    try:
        for member_id in (OTHER, FIRST_IN_TABLE, FIRST_BY_ID):
            members.append(RawConsumerMember(broker.bootstrap, group, member_id,
                                             subscriptions[member_id]))
            before = _wait_settled(broker.bootstrap, group, members)
        created = create_topic(broker, t2, 5)
        after = _wait_settled(broker.bootstrap, group, members, wanted=created)
    finally:
        for member in members:
            member.leave()

    # the topics as the broker knows them (every one is in some target now)
    ids = {t.topic_name: t.topic_id for m in after.members
           for t in m.target_assignment.topic_partitions}
    counts = {t0: 4, t1: 1, t2: 5}
    topics = {Uuid.from_string(ids[n]): ServerTopic(Uuid.from_string(ids[n]), n, c)
              for n, c in counts.items()}
    current = {m.member_id: tuple((Uuid.from_string(t.topic_id), tuple(t.partitions))
                                  for t in m.target_assignment.topic_partitions)
               for m in before.members}
    table = tuple(m.member_id for m in after.members)
    spec = ServerGroupSpec(
        {m: ServerMember(m, tuple(subscriptions[m]), current[m]) for m in table},
        topics, member_order=table)
    assert table.index(FIRST_IN_TABLE) < table.index(FIRST_BY_ID), (
        f"Kafka {kafka_version()} lists {table}: this group no longer tells the orders apart")
    by_id = dataclasses.replace(spec, member_order=None)
    assert by_id.member_ids().index(FIRST_BY_ID) < by_id.member_ids().index(FIRST_IN_TABLE)

    plugin = get_plugin_manager().server_assignor("server:uniform")
    names = {topic_id: topic.name for topic_id, topic in topics.items()}

    def predicted(group_spec):
        result = plugin.assign(group_spec)
        return {m: {(names[t], p) for t, p in result.partitions_of(m)} for m in table}

    broker_target = _targets(after)
    # the contested topic starts with the member first in the coordinator's map: 3 of its 5
    assert len(broker_target[FIRST_IN_TABLE] & created) == 3, broker_target
    assert predicted(spec) == broker_target
    assert predicted(by_id) != broker_target
