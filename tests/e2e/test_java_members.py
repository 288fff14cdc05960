"""Groups mixing Kafka's Java consumer with assignframe (kafka-python through the adapter) and
librdkafka (confluent-kafka) members: joins one at a time, a member leaving, and kill -9 of the
leader, whichever client leads.

After every change the group is checked from every member's own callbacks: every partition owned
by exactly one live member (and only subscribers: every member subscribes the one topic), balanced,
sticky (a member that stays keeps what balance lets it keep), no partition ever owned twice, and
the protocol's callback rules (:func:`e2e_timeline.callback_problems`). Cooperative groups are also
held to KIP-429: a member never revokes a partition it keeps, a member that only gains revokes
nothing, nothing is ``lost`` unless its member died, and a join that moves partitions takes two
generations. Who led each generation comes from the broker's log, for every client.

The Java runner neither logs records nor commits, so these groups are checked on ownership, not
on consumption (test_kafka_python_groups.py and test_mixed_librdkafka.py check consumption).
"""

from __future__ import annotations

import time

import pytest
from e2e_harness import needs_cooperative
from e2e_timeline import assignment_problems, callback_problems, replay

CLIENT_PREFIX = {"java": "j", "kafka-python": "kp", "confluent": "rk"}


def sticky_problems(before, after) -> list[str]:
    """Members present before and after keep min(what they had, what they have now) of their
    partitions: only what balance takes from them moves."""
    problems = []
    for member in before.keys() & after.keys():
        kept = before[member] & after[member]
        if len(kept) != min(len(before[member]), len(after[member])):
            problems.append(f"{member} kept {sorted(kept)} of {sorted(before[member])}")
    return problems


def assert_valid_and_balanced(group, owned):
    assert not assignment_problems(owned, group.partitions), (owned, group.workdir)
    sizes = [len(tps) for tps in owned.values()]
    assert max(sizes) - min(sizes) <= 1, f"unbalanced: {owned}"


class MixedGroup:
    """A group whose members join one by one, checked after every change."""

    def __init__(self, group, strategy: str, cooperative: bool) -> None:
        self.group, self.strategy, self.cooperative = group, strategy, cooperative
        self.counts: dict[str, int] = {}
        self.owned: dict = {}
        self.deadline = group.broker.timings.rebalance_seconds * 4

    def events_since(self, moment, kind, members=None):
        return [
            e
            for e in self.group.events()
            if e["t"] >= moment and e["ev"] == kind and (members is None or e["m"] in members)
        ]

    def join(self, client: str) -> str:
        prefix = CLIENT_PREFIX[client]
        name = f"{prefix}{self.counts.get(prefix, 0)}"
        self.counts[prefix] = self.counts.get(prefix, 0) + 1
        before, started, generations = dict(self.owned), time.time(), self.generations()
        self.group.start(name, client, [self.strategy])
        after = self.settle()
        assert set(after) == set(before) | {name}
        assert not sticky_problems(before, after), sticky_problems(before, after)
        if self.cooperative:
            for member, tps in before.items():  # KIP-429: what stays is never revoked
                revoked = {
                    (t, p)
                    for e in self.events_since(started, "revoked", {member})
                    for t, p in e["partitions"]
                }
                assert revoked == tps - after[member], f"{member} revoked {revoked}"
            if any(before[m] - after[m] for m in before):  # partitions moved: two rounds
                assert len(self.generations() - generations) >= 2, self.group.broker_generations()
        return name

    def settle(self, without=()):
        self.owned = self.group.wait_stable(timeout=self.deadline, without=without)
        assert_valid_and_balanced(self.group, self.owned)
        return self.owned

    def generations(self) -> set[int]:
        return set(self.group.broker_generations())

    def leader(self) -> str:
        """Who led the latest generation, by the broker's log."""
        leaders = self.group.broker_leaders()
        assert leaders, f"the broker logged no assignment for {self.group.name}"
        return leaders[-1][1]

    def leave(self, name: str) -> None:
        before, left_at = dict(self.owned), time.time()
        self.group.stop(name)
        after = self.settle(without=[name])
        self.assert_survivors_kept(before, after, left_at, gone=name)

    def kill_leader(self) -> str:
        leader, led = self.leader(), self.group.broker_leaders()[-1][0]
        before = dict(self.owned)
        killed_at = self.group.kill(leader)
        after = self.settle(without=[leader])
        self.assert_survivors_kept(before, after, killed_at, gone=leader)
        later = [name for generation, name in self.group.broker_leaders() if generation > led]
        assert later and leader not in later, f"after {leader} died the leaders were {later}"
        return leader

    def assert_survivors_kept(self, before, after, since, gone):
        survivors = set(before) - {gone}
        assert set(after) == survivors
        for member in survivors:
            assert after[member] >= before[member], f"{member} lost partitions it had"
        assert not self.events_since(since, "lost", survivors), "a live member lost partitions"
        if self.cooperative:  # members that only gain revoke nothing
            revoked = [e for e in self.events_since(since, "revoked", survivors) if e["partitions"]]
            assert not revoked, f"survivors revoked partitions: {revoked}"

    def finish(self) -> None:
        events = self.group.events()
        assert not replay(events).overlaps, replay(events).overlaps
        problems = callback_problems(events, self.cooperative)
        assert not problems, f"logs in {self.group.workdir}:\n" + "\n".join(problems)
        self.group.stop_all()


def run_group(group, strategy, cooperative, clients):
    """``clients[0]`` joins first and leads; the others join one at a time; the second member
    leaves; a member of the leader's client joins; then the leader is killed with kill -9."""
    mixed = MixedGroup(group, strategy, cooperative)
    leader = mixed.join(clients[0])
    assert mixed.leader() == leader
    joined = [mixed.join(client) for client in clients[1:]]
    mixed.leave(joined[0])
    mixed.join(clients[0])
    assert mixed.leader() == leader, "the first member stopped leading"
    assert mixed.kill_leader() == leader
    mixed.finish()


@pytest.mark.parametrize("first", ["java", "kafka-python"])
def test_eager_sticky_group_of_java_and_kafka_python(new_group, first):
    """Java's StickyAssignor and assignframe's sticky share the protocol name ``sticky`` and the
    user data layout: either side leads, and the other keeps its partitions through it."""
    other = "kafka-python" if first == "java" else "java"
    group = new_group(partitions=6)
    run_group(group, "sticky", False, [first, other, other, first])


@needs_cooperative
@pytest.mark.parametrize("first", ["java", "kafka-python", "confluent"])
def test_cooperative_sticky_group_of_java_kafka_python_and_librdkafka(new_group, first):
    """Java's CooperativeStickyAssignor, assignframe's cooperative-sticky and librdkafka's own
    cooperative-sticky in one group (KIP-429), led by each in turn."""
    others = [client for client in CLIENT_PREFIX if client != first]
    group = new_group(partitions=6)
    run_group(group, "cooperative-sticky", True, [first, *others])
