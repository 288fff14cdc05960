"""Online migration on Apache Kafka 4.1 against assignframe's prediction (KIP-848).

A classic group of two members runs with one strategy; its state is read as ``inspect`` reads it
(DescribeGroups through :mod:`assignframe.cluster`) and handed to the migration prediction
(:func:`assignframe.audit.migration.migration_section`, and
:func:`~assignframe.audit.migration.predict_join` with the joining member). Then a
consumer-protocol member (confluent-kafka, ``group.protocol=consumer``) joins, and what the broker
did is compared with what was predicted:

* converted or not, and why not: KAFKA-18134 (an Assignment carrying user data, from a test
  strategy or from librdkafka's cooperative-sticky: the broker logs "userData from a custom
  assignor would be lost" and answers the joiner GROUP_ID_NOT_FOUND) and ``redundant`` with
  replicas=2 (a partition in two Assignments: the conversion throws "the partition is still
  owned", the joiner gets UNKNOWN_SERVER_ERROR); librdkafka makes either answer fatal for the
  joiner, the group stays classic and its members keep what they own;
* the converted group's type and assignor, the target the broker computed for every member (the
  members' partitions once stable), which partitions moved and to whom;
* the hand-over: no partition owned twice, a moved partition acquired only after its previous
  owner gave it up, records consumed exactly as committed. Times are printed beside the
  prediction's bound, never asserted (wall-clock on a loaded machine is noise);
* downgrade: when the consumer-protocol member leaves, the broker converts the group back to a
  classic group (``group.consumer.migration.policy`` BIDIRECTIONAL, set by the test broker) and
  the classic members rebalance among themselves.
"""

from __future__ import annotations

import time

import pytest
from e2e_harness import assert_history_valid, needs_cooperative, produce
from test_consumer_protocol import ConsumerGroupView

from assignframe.audit.clients import identify_clients
from assignframe.audit.migration import migration_section, predict_join
from assignframe.cluster.config import read_client_config
from assignframe.cluster.inspection import inspect_cluster
from assignframe.cluster.reader import GroupFilter
from assignframe.kip848.convergence import ClientBehaviour
from assignframe.model import TopicPartition
from assignframe.plugins import get_plugin_manager
from assignframe.testing.kafka_node import TEST_PROPERTIES

PARTITIONS = 6
#: strategy family -> (client of the classic members, their strategy, member.py extras)
ALLOWED = {
    "librdkafka-range": ("confluent", "range", {}),
    "librdkafka-roundrobin": ("confluent", "roundrobin", {}),
    "java-cooperative-sticky": ("java", "cooperative-sticky", {}),
    "assignframe-fair": ("kafka-python", "fair", {}),
    "assignframe-cooperative-sticky": ("kafka-python", "cooperative-sticky", {}),
}
USER_DATA_LOST = (
    r"Cannot upgrade classic group {group} to consumer group: "
    r"userData from a custom assignor would be lost\."
)
#: the joining member's heartbeat answer: librdkafka makes either error fatal
GROUP_NOT_FOUND = "ConsumerGroupHeartbeat fatal error: Broker: The group id does not exist"
SERVER_ERROR = "ConsumerGroupHeartbeat fatal error: Unknown broker error"
#: case -> (client, strategy, member.py extras, the prediction's refusal kind, the broker's
#: log, what the joining member hears)
REFUSED = {
    # KAFKA-18134: the coordinator will not drop a custom assignor's Assignment user data
    "assignframe-user-data": (
        "kafka-python", "assignment-user-data", {"plugins": ["migration_plugins"]}, "user_data",
        USER_DATA_LOST, GROUP_NOT_FOUND,
    ),
    # librdkafka's cooperative-sticky writes user data into every Assignment: refused as well
    "librdkafka-cooperative-sticky": (
        "confluent", "cooperative-sticky", {}, "user_data", USER_DATA_LOST, GROUP_NOT_FOUND,
    ),
    # every partition in both members' Assignments: ConsumerGroup.fromClassicGroup throws
    "assignframe-redundant": (
        "kafka-python", "redundant", {"options": {"redundant": {"replicas": 2}}},
        "shared_partition",
        r"Cannot set the epoch of \S+ to \d+ because the partition is still owned",
        SERVER_ERROR,
    ),
}
#: the test broker's consumer-protocol heartbeat (the prediction's default is the broker's 5 s)
TEST_HEARTBEATS = ClientBehaviour(
    heartbeat_interval_ms=int(TEST_PROPERTIES["group.consumer.heartbeat.interval.ms"])
)
CONVERTED = r"\[GroupId {group}\] Converted the classic group to a consumer group\."
DOWNGRADED = r"\[GroupId {group}\] Converted the consumer group to a classic group\."


def group_type(admin: ConsumerGroupView) -> str:
    """CLASSIC or CONSUMER, as the broker describes the group."""
    return str(admin.describe().type).rpartition(".")[2]


def read_snapshot(group, timeout: float = 60.0):
    """The group as ``inspect`` reads it (one pass over the live cluster), read again until the
    coordinator says Stable with every partition in an Assignment: a cooperative group's
    follow-up round can begin right after ``wait_stable`` returns, and while a rebalance
    completes DescribeGroups carries no Assignments (so no user data to refuse the upgrade on)."""
    deadline = time.monotonic() + timeout
    while True:
        inspection = inspect_cluster(
            group.broker.bootstrap, read_client_config(None), GroupFilter(group.name), 30.0
        )
        (verdict,) = [v for v in inspection.verdicts if v.group_id == group.name]
        snapshot = verdict.snapshot
        assigned = {tp for ps in by_member(snapshot).values() for tp in ps} if snapshot else set()
        settled = snapshot is not None and snapshot.group_state == "Stable"
        if settled and len(assigned) == PARTITIONS:
            return snapshot
        assert time.monotonic() < deadline, (
            f"{group.name} not read Stable with all {PARTITIONS} partitions assigned in "
            f"{timeout:.0f} s: {verdict.unreadable or (snapshot and snapshot.group_state)}, "
            f"{len(assigned)} assigned")
        time.sleep(0.5)


def by_member(snapshot) -> dict[str, set[TopicPartition]]:
    return {m: set(a.partitions) for m, a in snapshot.current.assignments.items()}


def start_classic_pair(group, client: str, strategy: str, extra: dict, timeout: float) -> None:
    """c0 alone until it owns every partition, then c1. Started together, c1 can join the
    second generation before its first SyncGroup answer is in: neither member then has an
    assignment to put in its Subscription's user data, and a librdkafka leader's Assignments,
    which carry each member's own user data, carry none (the upgrade is then allowed)."""
    every = {(group.topic, p) for p in range(PARTITIONS)}
    group.start("c0", client, [strategy], **extra)
    wait_owned_by_each(group, ["c0"], every, timeout)
    group.start("c1", client, [strategy], **extra)


def wait_owned_by_each(group, names, partitions, timeout) -> None:
    """Each of ``names`` owns all of ``partitions`` (the redundant group)."""
    group.wait_for(
        f"{names} each owning {len(partitions)} partitions",
        lambda: all(group.live_ownership().get(n) == partitions for n in names),
        timeout,
    )


def consumer_member_id(snapshot, name: str) -> str:
    (member_id,) = [
        m for m in snapshot.members if snapshot.info(m).client_id == name
    ]
    return member_id


def handover_gaps(group, moved: dict, snapshot) -> dict[TopicPartition, float]:
    """Seconds each moved partition had no owner, from the members' callbacks: its previous
    owner's ``revoked`` (or ``lost``) to its new owner's ``assigned``; checked to be in that
    order. Member ids are named by their client ids (the harness's member names)."""
    names = {m: snapshot.info(m).client_id for m in snapshot.members}
    gaps = {}
    for tp, (before, after) in moved.items():
        pair = [tp.topic, tp.partition]
        assigned = [
            e["t"] for e in group.events()
            if e["m"] == names.get(after, after) and e["ev"] == "assigned"
            and pair in e["partitions"]
        ]
        released = [
            e["t"] for e in group.events()
            if e["m"] == names.get(before, before) and e["ev"] in ("revoked", "lost")
            and pair in e["partitions"]
        ]
        assert assigned and released, f"{tp}: no hand-over in the callbacks ({group.workdir})"
        assert released[-1] <= assigned[-1], f"{tp} acquired before it was released"
        gaps[tp] = assigned[-1] - max(r for r in released if r <= assigned[-1])
    return gaps


@pytest.mark.parametrize("family", [
    pytest.param(f, marks=needs_cooperative) if ALLOWED[f][:2] == ("kafka-python",
                                                                   "cooperative-sticky") else f
    for f in ALLOWED
])
def test_online_upgrade_matches_the_prediction(new_group, family):
    client, strategy, extra = ALLOWED[family]
    group = new_group(partitions=PARTITIONS)
    produced = produce(group.broker, group.topic, PARTITIONS, per_partition=5)
    deadline = group.broker.timings.rebalance_seconds * 4
    admin = ConsumerGroupView(group)
    start_classic_pair(group, client, strategy, extra, deadline)
    group.wait_stable(timeout=deadline)
    before = read_snapshot(group)
    assert before.group_type == "classic" and before.protocol == strategy
    pm = get_plugin_manager()
    verdict = migration_section(before, pm, identify_clients(before, pm))
    # the coordinator's own reasons (not the clients'): none, so the group converts
    assert not set(verdict["refused_for"]) - {"client"}, verdict["refusal"]

    group.start("n0", "confluent", ["uniform"], group_protocol="consumer")
    group.wait_for(
        "the broker to convert the group and every member to hold its target",
        lambda: group_type(admin) == "CONSUMER" and _reconciled(admin, group),
        deadline,
    )
    assert len(group.broker_log_lines(CONVERTED)) == 1
    after = read_snapshot(group)
    joined = consumer_member_id(after, "n0")
    predicted = predict_join(before, {joined: (group.topic,)}, pm, behaviour=TEST_HEARTBEATS)
    assert (after.group_type, after.assignor) == ("consumer", predicted["assignor"])
    assert predicted["refusal"] is None
    kinds = {m: after.info(m).member_type for m in after.members}
    assert kinds == {**{m: "classic" for m in before.members}, joined: "consumer"}
    assert by_member(after) == {m: set(a.partitions) for m, a in
                                predicted["target"].assignments.items()}
    owner_before = {tp: m for m, ps in by_member(before).items() for tp in ps}
    moved = {tp: (owner_before[tp], new) for new, owned in by_member(after).items()
             for tp in owned if owner_before.get(tp, new) != new}
    added = {tp: new for new, owned in by_member(after).items() for tp in owned
             if tp not in owner_before}
    assert (moved, added) == (predicted["moved"], predicted["added"])

    if client != "java":  # the Java runner neither logs records nor commits
        group.wait_consumed(produced, timeout=deadline)
    gaps = handover_gaps(group, moved, after)
    classic = {m: sorted(tp.partition for tp in ps) for m, ps in by_member(before).items()}
    print(f"{family}: classic {classic}, joined {joined}")
    print(f"{family}: verdict {verdict['verdict']} {verdict['refused_for']}; moved "
          f"{sorted(f'{tp.topic}-{tp.partition}' for tp in moved)}; unowned "
          f"{', '.join(f'{g:.2f}' for g in sorted(gaps.values()))} s; predicted at most "
          f"{predicted['handover']['max_unowned_ms'] / 1000:.2f} s")

    # downgrade: the last consumer-protocol member leaves, the classic members stay
    group.stop("n0")
    group.wait_for(
        "the broker to convert the group back to classic",
        lambda: group_type(admin) == "CLASSIC",
        deadline,
    )
    assert len(group.broker_log_lines(DOWNGRADED)) == 1
    settled = group.wait_stable(timeout=deadline)
    assert set(settled) == {"c0", "c1"}
    back = read_snapshot(group)
    assert back.group_type == "classic" and back.protocol == strategy
    # the classic rebalance after the downgrade is the members' own strategy's, as the
    # simulator's downgrade has it: assignframe's plugin of that name gives the same
    rebalanced = pm.strategy(strategy).assign(back.subscription())
    assert by_member(back) == {m: set(a.partitions) for m, a in rebalanced.assignments.items()}
    group.stop_all()
    if client == "java":
        assert not group.ownership().overlaps, group.ownership().overlaps
    else:
        assert_history_valid(group, produced)


def _reconciled(admin: ConsumerGroupView, group) -> bool:
    """Every member's assignment is its target, and the members' callbacks say the same."""
    described = admin.describe()
    members = {m.client_id: m for m in described.members}
    if set(members) != {"c0", "c1", "n0"}:
        return False
    if any(m.target_assignment is None for m in members.values()):
        return False
    held = {
        n: {(tp.topic, tp.partition) for tp in m.assignment.topic_partitions}
        for n, m in members.items()
    }
    target = {
        n: {(tp.topic, tp.partition) for tp in m.target_assignment.topic_partitions}
        for n, m in members.items()
    }
    return held == target == group.live_ownership() and all(held.values())


@pytest.mark.parametrize("case", list(REFUSED))
def test_refused_upgrade_leaves_the_group_classic(new_group, case):
    client, strategy, extra, kind, broker_says, joiner_hears = REFUSED[case]
    group = new_group(partitions=PARTITIONS)
    deadline = group.broker.timings.rebalance_seconds * 4
    admin = ConsumerGroupView(group)
    start_classic_pair(group, client, strategy, extra, deadline)
    every = {(group.topic, p) for p in range(PARTITIONS)}
    if strategy == "redundant":
        wait_owned_by_each(group, ["c0", "c1"], every, deadline)
    else:
        group.wait_stable(timeout=deadline)
    before = read_snapshot(group)
    pm = get_plugin_manager()
    verdict = migration_section(before, pm, identify_clients(before, pm))
    assert verdict["verdict"] == "refused" and kind in verdict["refused_for"], verdict
    assert predict_join(before, {"joining": (group.topic,)}, pm)["target"] is None
    owned = group.live_ownership()

    group.start("n0", "confluent", ["uniform"], group_protocol="consumer")
    group.wait_for(
        f"the broker to refuse the upgrade ({broker_says!r} in its log)",
        lambda: group.broker_log_lines(broker_says),
        deadline,
    )
    stderr = group.workdir / "n0.stderr"
    group.wait_for(
        f"n0 to log {joiner_hears!r}",
        lambda: joiner_hears in stderr.read_text(errors="replace"),
        deadline,
    )
    assert not group.broker_log_lines(CONVERTED)
    assert group_type(admin) == "CLASSIC"
    still = read_snapshot(group)
    assert still.group_type == "classic" and by_member(still) == by_member(before)
    assert group.live_ownership(without=["n0"]) == owned
    assert not group.live_ownership().get("n0")
    group.stop_all()
