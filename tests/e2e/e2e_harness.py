"""Topics, records and member processes for the e2e tests.

Members are real processes (``member.py``) talking to the real broker over 127.0.0.1. The harness
starts, stops, kills and freezes them, records when it did (as ``killed`` / ``paused`` /
``resumed`` events in its own log, on the same clock as the members'), and waits on what the
members' logs say.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from e2e_timeline import (
    Ownership,
    Partition,
    assignment_problems,
    consumption_problems,
    read_events,
    replay,
)
from java_member import start_java_member

from assignframe.kafka_python import KAFKA_PYTHON_VERSION
from assignframe.testing.broker import Broker
from assignframe.testing.paths import shared_path

MEMBER_SCRIPT = Path(__file__).with_name("member.py")

#: kafka-python 2.x has no cooperative rebalance; the adapter refuses cooperative strategies there.
needs_cooperative = pytest.mark.skipif(
    KAFKA_PYTHON_VERSION < (3,), reason="kafka-python 2.x has no cooperative rebalance"
)
COOPERATIVE_STICKY = pytest.param("cooperative-sticky", marks=needs_cooperative)


# --------------------------------------------------------------------------------------------
# topics and records (kafka-python, test-side only)
# --------------------------------------------------------------------------------------------


def create_topic(broker: Broker, name: str, partitions: int) -> set[Partition]:
    from kafka.admin import KafkaAdminClient, NewTopic

    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap, client_id="e2e-admin")
    try:
        admin.create_topics([NewTopic(name, partitions, 1)])
    finally:
        admin.close()
    return {(name, p) for p in range(partitions)}


def producer(broker: Broker) -> Any:
    from kafka import KafkaProducer

    return KafkaProducer(
        bootstrap_servers=broker.bootstrap,
        client_id="e2e-producer",
        **broker.producer_settings,
    )


def produce(
    broker: Broker, topic: str, partitions: int, per_partition: int
) -> dict[Partition, int]:
    """``per_partition`` records into every partition, one record per produce request."""
    client = producer(broker)
    try:
        for index in range(per_partition):
            for partition in range(partitions):
                client.send(topic, f"{partition}:{index}".encode(), partition=partition).get(
                    timeout=10
                )
    finally:
        client.close()
    return {(topic, p): per_partition for p in range(partitions)}


class BackgroundProducer:
    """Keeps producing one record per partition every ``interval`` seconds until stopped."""

    def __init__(self, broker: Broker, topic: str, partitions: int, interval: float = 0.1) -> None:
        self.counts = {(topic, p): 0 for p in range(partitions)}
        self._client = producer(broker)
        self._topic, self._interval = topic, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> BackgroundProducer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)
        self._client.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            for topic, partition in self.counts:
                self._client.send(topic, b"x", partition=partition).get(timeout=10)
                self.counts[(topic, partition)] += 1
            self._stop.wait(self._interval)


# --------------------------------------------------------------------------------------------
# members
# --------------------------------------------------------------------------------------------


@dataclass
class MemberProcess:
    """A member: its process (for a Java member, the JVM), and processes serving it (the Java
    member's log writer), which end with it."""

    name: str
    client: str
    strategies: list[str]
    log: Path
    process: subprocess.Popen[bytes]
    helpers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    stopped: bool = False  # the harness asked it to stop (SIGTERM)

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def terminate(self) -> None:
        self.stopped = True
        self.process.send_signal(signal.SIGCONT)
        self.process.send_signal(signal.SIGTERM)

    def wait(self, timeout: float) -> None:
        """Wait for it (SIGKILL after ``timeout`` seconds), then for its helpers."""
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(30)  # SIGKILL: only a process stuck in the kernel outlasts this
        for helper in self.helpers:
            helper.wait(timeout)


@dataclass
class Group:
    """One consumer group of member processes, and everything they logged.

    :param workdir: where member logs, stderr files and the harness log go
    """

    broker: Broker
    name: str
    topic: str
    workdir: Path
    partitions: set[Partition] = field(default_factory=set)
    members: dict[str, MemberProcess] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._harness_log = self.workdir / "harness.jsonl"

    # -- processes -----------------------------------------------------------------------

    def start(
        self, name: str, client: str, strategies: Iterable[str], **extra: Any
    ) -> MemberProcess:
        config = {
            "client": client, "name": name, "bootstrap": self.broker.bootstrap, "group": self.name,
            "topics": [self.topic], "strategies": list(strategies),
            "session_timeout_ms": self.broker.timings.session_timeout_ms,
            "heartbeat_interval_ms": self.broker.timings.heartbeat_interval_ms,
            "log": str(self.workdir / f"{name}.jsonl"), **extra,
        }  # fmt: skip
        helpers = []
        stderr = open(self.workdir / f"{name}.stderr", "ab")
        try:
            if client == "java":
                process, writer = start_java_member(config, shared_path(MEMBER_SCRIPT), stderr)
                helpers.append(writer)
            else:
                process = subprocess.Popen(
                    [sys.executable, str(MEMBER_SCRIPT), json.dumps(config)],
                    stdout=stderr,
                    stderr=stderr,
                    env={**os.environ, "PYTHONUNBUFFERED": "1"},
                )
        finally:
            stderr.close()
        member = MemberProcess(
            name, client, list(strategies), Path(config["log"]), process, helpers
        )
        self.members[name] = member
        return member

    def stop(self, name: str, timeout: float = 30) -> None:
        """SIGTERM: the member closes its consumer (LeaveGroup) and exits."""
        member = self.members[name]
        member.terminate()
        member.wait(timeout)

    def stop_all(self, timeout: float = 30) -> None:
        running = [m for m in self.members.values() if m.alive]
        for member in running:
            member.terminate()
        for member in self.members.values():
            member.wait(timeout)

    def kill(self, name: str) -> float:
        """kill -9; returns (and logs) the moment the process was gone."""
        member = self.members[name]
        member.process.kill()
        member.process.wait(30)  # SIGKILL: only a process stuck in the kernel outlasts this
        return self._note("killed", name)

    def pause(self, name: str) -> float:
        self.members[name].process.send_signal(signal.SIGSTOP)
        return self._note("paused", name)

    def resume(self, name: str) -> float:
        moment = self._note("resumed", name)
        self.members[name].process.send_signal(signal.SIGCONT)
        return moment

    def _note(self, event: str, name: str) -> float:
        moment = time.time()
        with open(self._harness_log, "a", encoding="utf-8") as log:
            log.write(json.dumps({"t": moment, "m": name, "ev": event}) + "\n")
        return moment

    # -- what happened ---------------------------------------------------------------------

    def events(self) -> list[dict[str, Any]]:
        return read_events([m.log for m in self.members.values()] + [self._harness_log])

    def ownership(self, excused: dict[str, tuple[float, float]] | None = None) -> Ownership:
        return replay(self.events(), excused)

    def live_ownership(self, without: Iterable[str] = ()) -> dict[str, set[Partition]]:
        """member -> partitions, for running members not in ``without``."""
        owned = self.ownership().by_member()
        skipped = set(without)
        return {
            name: owned.get(name, set())
            for name, m in self.members.items()
            if m.alive and name not in skipped
        }

    def leader_events(self, since: float = 0.0) -> list[dict[str, Any]]:
        return [e for e in self.events() if e["ev"] == "leader" and e["t"] >= since]

    def leader(self) -> str:
        """The member that computed the latest assignment."""
        leaders = self.leader_events()
        assert leaders, f"no kafka-python member has led yet; logs in {self.workdir}"
        return leaders[-1]["m"]

    def broker_log_lines(self, pattern: str) -> list[re.Match[str]]:
        """Matches of ``pattern`` (``{group}`` stands for this group's name) in the broker's log:
        what the coordinator did, for members of any client."""
        path = self.broker.log_path
        assert path is not None, f"{self.broker.describe()}: its log is not available here"
        regex = re.compile(pattern.replace("{group}", re.escape(self.name)))
        return list(regex.finditer(path.read_text(errors="replace")))

    def broker_leaders(self) -> list[tuple[int, str]]:
        """(generation, the leader's name) of every assignment the broker received."""
        found = self.broker_log_lines(
            r"Assignment received from leader (\S+) for group {group} for generation (\d+)\."
        )
        return [(int(m[2]), member_name(m[1])) for m in found]

    def broker_generations(self) -> list[int]:
        """Every generation the broker stabilized (its join phase ended), in order."""
        found = self.broker_log_lines(r"Stabilized group {group} generation (\d+) ")
        return [int(m[1]) for m in found]

    def first_event(
        self, member: str, kinds: Iterable[str], since: float, timeout: float
    ) -> dict[str, Any]:
        """Wait for ``member``'s first event of one of ``kinds`` after ``since``, and return it."""
        kinds = set(kinds)
        found: list[dict[str, Any]] = []

        def happened() -> bool:
            found[:] = [
                e for e in self.events() if e["m"] == member and e["ev"] in kinds and e["t"] > since
            ]
            return bool(found)

        self.wait_for(f"{member} to log one of {sorted(kinds)}", happened, timeout)
        return found[0]

    def failures(self) -> list[str]:
        """Members that exited on their own with an error, with the end of their stderr."""
        failed = []
        for member in self.members.values():
            code = member.process.poll()
            # a JVM stopped by SIGTERM exits 143 (128 + 15) after closing its consumer
            if code not in (None, 0, -signal.SIGKILL) and not (member.stopped and code == 143):
                tail = (self.workdir / f"{member.name}.stderr").read_text(errors="replace")[-3000:]
                failed.append(f"{member.name} exited {code}:\n{tail}")
        return failed

    # -- waiting -----------------------------------------------------------------------------

    def wait_for(self, description: str, condition: Callable[[], bool], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            failures = self.failures()
            assert not failures, "\n".join(failures)
            if condition():
                return
            time.sleep(0.1)
        raise AssertionError(
            f"timed out after {timeout:.0f}s waiting for {description}; "
            f"live ownership: {self.live_ownership()}; logs in {self.workdir}; "
            f"{self.broker.describe()}"
        )

    def wait_stable(
        self, timeout: float = 30, quiet: float = 1.5, without: Iterable[str] = ()
    ) -> dict[str, set[Partition]]:
        """Wait until the live members (except ``without``) own every partition exactly once,
        each owns something (when there are enough partitions), and nothing changed for
        ``quiet`` seconds."""
        last: list[Any] = [None, 0.0]
        without = set(without)

        def settled() -> bool:
            owned = self.live_ownership(without)
            idle = len(self.partitions) >= len(owned) and not all(owned.values())
            if idle or assignment_problems(owned, self.partitions):
                last[0] = None
                return False
            if owned != last[0]:
                last[:] = [owned, time.monotonic()]
            return time.monotonic() - last[1] >= quiet

        self.wait_for("a stable assignment", settled, timeout)
        return last[0]

    def wait_consumed(self, produced: dict[Partition, int], timeout: float = 30) -> None:
        """Wait until every produced record was consumed and its offset committed."""

        def done() -> bool:
            committed: dict[Partition, int] = {}
            for event in self.events():
                if event["ev"] == "commit":
                    for key, offset in event["offsets"].items():
                        topic, _, partition = key.rpartition(":")
                        tp = (topic, int(partition))
                        committed[tp] = max(committed.get(tp, 0), offset)
            return all(committed.get(tp, 0) >= count for tp, count in produced.items())

        self.wait_for("every record consumed and committed", done, timeout)


# --------------------------------------------------------------------------------------------
# the checks every test ends with
# --------------------------------------------------------------------------------------------


def assert_history_valid(
    group: Group,
    produced: dict[Partition, int],
    excused: dict[str, tuple[float, float]] | None = None,
) -> None:
    """No partition ever had two owners, and records were consumed exactly as committed."""
    events = group.events()
    overlaps = replay(events, excused).overlaps
    assert not overlaps, f"partitions owned twice (logs in {group.workdir}):\n" + "\n".join(
        overlaps
    )
    problems = consumption_problems(events, produced, excused)
    assert not problems, f"consumption broke (logs in {group.workdir}):\n" + "\n".join(problems)


_MEMBER_ID = re.compile(r"^(.*)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def member_name(member_id: str) -> str:
    """The member's name (its client id) from a classic member id: Kafka makes them
    ``<client.id>-<UUID>`` for every client, and the harness sets client ids to member names."""
    match = _MEMBER_ID.match(member_id)
    return match[1] if match else member_id


def by_member_id(group: Group) -> dict[str, str]:
    """member id -> member name, from the members' ``assigned`` events."""
    return {
        e["member_id"]: e["m"]
        for e in group.events()
        if e["ev"] == "assigned" and e.get("member_id")
    }


def leader_assignment(event: dict[str, Any], names: dict[str, str]) -> dict[str, set[Partition]]:
    """A ``leader`` event's assignment, keyed by member name."""
    return {names.get(m, m): {(t, p) for t, p in tps} for m, tps in event["assignment"].items()}
