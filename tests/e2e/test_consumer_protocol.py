"""Consumer-protocol (KIP-848) groups on Apache Kafka (4.1; 4.3.1 in the kafka-43 env):
librdkafka members and a Java KafkaConsumer (``java/ConsumerProtocolRunner.java``) with
``group.protocol=consumer``. The broker
computes every target assignment with its own ``uniform`` or ``range`` assignor
(``group.remote.assignor``); assignframe's server-assignor plugins (``server:uniform``,
``server:range``) must predict each of them, epoch by epoch: from the broker's previous target (as
the coordinator feeds its assignor) and, chained, from their own previous results alone. Ties
between members in one HashMap bucket follow the order the coordinator filled its map in (its
member table's, as ConsumerGroupDescribe lists it; a member joining on the heartbeat that computes
the target last): random member ids make that matter in about one run of several
(``test_member_order.py`` makes it certain).

Members join one at a time with different subscriptions (two topics), one leaves and one is
killed with kill -9 (the Java one: the broker fences it after the consumer-protocol session
timeout the test broker sets, 6 s). After each change the test waits until the broker computed
exactly one new target assignment (its log: "Computed a new target assignment for epoch N") and
every member reconciled to it (ConsumerGroupDescribe: assignment == target), then checks that the
members' own callbacks show the same ownership. Records are consumed exactly as committed
throughout (the Java runner neither logs records nor commits: what it read is read again by the
next owner).
"""

from __future__ import annotations

import json

import pytest
from e2e_harness import assert_history_valid, create_topic, produce

from assignframe.javaorder import Uuid
from assignframe.plugins import get_plugin_manager
from assignframe.replay.server import replay_server_scenario
from assignframe.testing.kafka_node import kafka_version

#: member -> (its client, the topics (by suffix) it subscribes), in joining order
MEMBERS = {
    "c0": ("confluent", ["a", "b"]),
    "c1": ("confluent", ["a"]),
    "c2": ("java", ["a", "b"]),
    "c3": ("confluent", ["b"]),
}
PARTITIONS = {"a": 6, "b": 4}
TARGET_COMPUTED = r"\[GroupId {group}\] Computed a new target assignment for epoch (\d+) "


class ConsumerGroupView:
    """What the broker says of one consumer-protocol group (confluent-kafka's AdminClient)."""

    def __init__(self, group) -> None:
        from confluent_kafka.admin import AdminClient

        self.group = group
        self.admin = AdminClient({"bootstrap.servers": group.broker.bootstrap})
        self.settled = None  # the last description reconciled() judged settled

    def describe(self):
        futures = self.admin.describe_consumer_groups([self.group.name], request_timeout=10)
        return futures[self.group.name].result()

    def topic_ids(self, topics) -> dict[str, str]:
        from confluent_kafka import TopicCollection

        futures = self.admin.describe_topics(TopicCollection(list(topics)), request_timeout=10)
        ids = {name: future.result().topic_id for name, future in futures.items()}
        # confluent-kafka prints ids in standard base64; Kafka's own form is URL-safe
        return {
            name: str(Uuid(i.get_most_significant_bits(), i.get_least_significant_bits()))
            for name, i in ids.items()
        }

    def targets(self, description) -> dict[str, tuple[str, list[list]]]:
        """member id -> (client id, its target assignment in the broker's order)."""
        return {
            m.member_id: (m.client_id, _pairs(m.target_assignment.topic_partitions))
            for m in description.members
        }

    def reconciled(self, names: set[str], epochs: int) -> bool:
        """The broker computed ``epochs`` targets so far, says the group is Stable (its target
        is for its current epoch: a member fenced after the last target bumps the epoch, and
        the group is Assigning until the next target), exactly ``names`` hold theirs, and their
        own callbacks say they do. The description it judged is kept in :attr:`settled`."""
        if len(self.group.broker_log_lines(TARGET_COMPUTED)) != epochs:
            return False
        description = self.describe()
        if str(description.state).rpartition(".")[2] != "STABLE":
            return False
        members = {m.client_id: m for m in description.members}
        if set(members) != names or any(m.target_assignment is None for m in members.values()):
            return False
        held = {name: _held(m.assignment) for name, m in members.items()}
        target = {name: _held(m.target_assignment) for name, m in members.items()}
        self.settled = description
        return held == target == self.group.live_ownership()


def _pairs(topic_partitions) -> list[list]:
    return [[tp.topic, tp.partition] for tp in topic_partitions]


def _held(assignment) -> set[tuple[str, int]]:
    return {(tp.topic, tp.partition) for tp in assignment.topic_partitions}


def make_round(index, event, targets, previous, subscriptions):
    """One assign.jsonl round: the members' subscriptions and the broker's previous target as
    ``current`` (what the coordinator hands its assignor), the broker's new target as Java's
    ``result``, and ``member_order``: the order ConsumerGroupDescribe lists the members, which is
    the order of the coordinator's member table, the order it fills ``GroupSpec``'s map in."""
    members = {
        member_id: {
            "instance_id": None,
            "rack": None,
            "topics": subscriptions[name],
            "current": previous.get(member_id, (name, []))[1],
        }
        for member_id, (name, _) in targets.items()
    }
    result = {member_id: pairs for member_id, (_, pairs) in targets.items()}
    return {"round": index, "event": event, "members": members, "result": result,
            "member_order": list(targets)}


def coordinator_orders(round_, targets):
    """The orders the coordinator can have filled ``GroupSpec``'s map in for this round: its
    member table's, and, when a member joined, that member last (the target computed on its
    joining heartbeat, before the table holds it: always on 4.1; on 4.3 only when the group's
    last target is older than ``group.consumer.assignment.interval.ms``, else a later heartbeat
    computes it from the table). The two differ only for members sharing a HashMap bucket."""
    table = round_["member_order"]
    orders = [table]
    joiner = round_["event"].removesuffix(" joins")
    if joiner != round_["event"]:
        (joined,) = [m for m, (name, _) in targets.items() if name == joiner]
        last = [m for m in table if m != joined] + [joined]
        if last != table:
            orders.insert(0, last)
    return orders


def replay_as_the_broker_ran(scenario, plugin, orders):
    """Replay ``scenario`` (unchained, then chained) with, per round, one of the coordinator's
    possible member orders; the orders of the first combination Kafka's targets agree with are
    written into ``scenario``. Returns, per chain mode, the rounds that differ for every
    combination (empty: the plugin predicted every target the broker computed)."""
    import itertools

    rounds = scenario["rounds"]
    wrong = {}
    for chain in (False, True):
        best = None
        for combination in itertools.product(*orders):
            for round_, order in zip(rounds, combination, strict=True):
                round_["member_order"] = order
            replay = replay_server_scenario(scenario, plugin, chain=chain)
            differ = {
                r.round.index: (r.round.event, r.result, r.round.java["result"])
                for r in replay.rounds
                if not r.matches_java
            }
            if best is None or len(differ) < len(best[1]):
                best = (combination, differ)
            if not differ:
                break
        for round_, order in zip(rounds, best[0], strict=True):
            round_["member_order"] = order
        wrong[chain] = best[1]
    return wrong


@pytest.mark.parametrize("assignor", ["uniform", "range"])
def test_server_assignor_plugins_predict_every_target_the_broker_computed(new_group, assignor):
    group = new_group(partitions=PARTITIONS["a"])
    topics = {"a": group.topic, "b": f"{group.topic}-b"}
    group.partitions |= create_topic(group.broker, topics["b"], PARTITIONS["b"])
    produced = {
        **produce(group.broker, topics["a"], PARTITIONS["a"], per_partition=5),
        **produce(group.broker, topics["b"], PARTITIONS["b"], per_partition=5),
    }
    view = ConsumerGroupView(group)
    subscriptions = {name: [topics[t] for t in wanted] for name, (_, wanted) in MEMBERS.items()}
    deadline = group.broker.timings.rebalance_seconds * 4
    rounds, previous, live = [], {}, set()

    orders = []  # per round, the member orders the coordinator can have used

    def changed(event: str) -> None:
        epochs = len(rounds) + 1
        group.wait_for(
            f"target #{epochs} held by {sorted(live)}, by the broker and by their callbacks",
            lambda: view.reconciled(live, epochs),
            deadline,
        )
        targets = view.targets(view.settled)  # the description that was judged settled
        rounds.append(make_round(len(rounds), event, targets, previous, subscriptions))
        orders.append(coordinator_orders(rounds[-1], targets))
        previous.clear()
        previous.update(targets)

    for name, wanted in subscriptions.items():
        group.start(name, MEMBERS[name][0], [assignor], topics=wanted, group_protocol="consumer")
        live.add(name)
        changed(f"{name} joins")
    group.stop("c1")
    live.discard("c1")
    changed("c1 leaves")
    group.kill("c2")
    live.discard("c2")
    changed("c2 killed")

    described = view.describe()
    assert (str(described.type), described.partition_assignor) == (
        "ConsumerGroupType.CONSUMER",
        assignor,
    )
    group.wait_consumed(produced, timeout=deadline)
    group.stop_all()
    assert_history_valid(group, produced)
    ids = view.topic_ids(topics.values())
    scenario = {
        "id": f"kafka-{kafka_version()}-{assignor}",
        "assignor": assignor,
        "group_type": "consumer",
        "topics": {
            name: {"id": ids[name], "partitions": PARTITIONS[suffix]}
            for suffix, name in topics.items()
        },
        "rounds": rounds,
    }
    plugin = get_plugin_manager().server_assignor(f"server:{assignor}")
    wrong = replay_as_the_broker_ran(scenario, plugin, orders)
    recorded = group.workdir / "scenario.jsonl"  # assignframe replay reads it
    recorded.write_text(json.dumps(scenario) + "\n")
    for chain, rounds_wrong in wrong.items():
        assert not rounds_wrong, (f"server:{assignor} (chain={chain}) != Kafka {kafka_version()} "
                                  f"({recorded}, member orders {orders}): {rounds_wrong}")
    if kafka_version() == "4.1":  # no assignment interval: a join's own heartbeat computes
        joined_last = [r["member_order"] == o[0] for r, o in zip(rounds, orders, strict=True)]
        assert all(joined_last), f"4.1 computed a target after a join's heartbeat: {orders}"
