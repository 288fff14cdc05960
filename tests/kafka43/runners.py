"""The clients-4.3 runners as test members: a real KafkaShareConsumer or Kafka Streams member
(a JVM; the pid is the JVM), its JSON lines read by a thread into a queue, every wait on them
with a deadline (shared/java/clients-4.3/README.md)."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assignframe.testing.paths import shared_path

__all__ = ["JvmMember", "clients43", "describe", "start_runner", "start_stateful_streams",
           "wait_until"]


def clients43() -> Path:
    path = shared_path(Path(__file__)) / "java" / "clients-4.3"
    if not (path / "run-share-consumer.sh").is_file():
        raise AssertionError(f"{path}: no clients-4.3 runners (update the shared directory)")
    return path


class JvmMember:
    """One runner process; :attr:`lines` every JSON line it printed so far."""

    def __init__(self, process: subprocess.Popen, log: Path) -> None:
        self.process, self.log = process, log
        self.lines: list[dict[str, Any]] = []
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                self._queue.put(json.loads(line))
            except ValueError:
                continue
        self._queue.put(None)

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], seconds: float) -> dict:
        """The first line (seen before or arriving within ``seconds``) ``predicate`` accepts."""
        for line in self.lines:
            if predicate(line):
                return line
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            self.lines.append(line)
            if line.get("event") == "error":
                raise AssertionError(f"runner error {line}; log {self.log}")
            if predicate(line):
                return line
        raise AssertionError(f"runner never printed it within {seconds} s; lines {self.lines}; "
                             f"exit {self.process.poll()}; log {self.log}")

    def drain(self) -> list[dict[str, Any]]:
        """Every line so far, without waiting."""
        while True:
            try:
                line = self._queue.get_nowait()
            except queue.Empty:
                return self.lines
            if line is None:
                return self.lines
            self.lines.append(line)

    def last(self, event: str) -> dict[str, Any] | None:
        found = [line for line in self.drain() if line.get("event") == event]
        return found[-1] if found else None

    def kill(self) -> None:
        """kill -9 (a crashed member: no leave), reaped with a deadline."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)
        self._close()

    def _close(self) -> None:
        """The pipe, once the reader saw its end (the JVM has exited)."""
        self._reader.join(timeout=10)
        if not self._reader.is_alive() and self.process.stdout is not None:
            self.process.stdout.close()

    def terminate(self, seconds: float = 30) -> int:
        """SIGTERM: the runner leaves the group and exits (143)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=seconds)
            self._close()
            return code
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(
                f"runner did not exit {seconds} s after SIGTERM ({self.log})") from None


def start_runner(script: str, args: tuple[str, ...], log: Path,
                 env: dict[str, str] | None = None) -> JvmMember:
    with open(log, "wb") as stderr:
        process = subprocess.Popen(
            ["sh", str(clients43() / script), *args], stdout=subprocess.PIPE, stderr=stderr,
            text=True, env={**os.environ, "CLIENTS43_POLL_SECONDS": "600",
                            "CLIENTS43_LOG_LEVEL": "warn", **(env or {})})
    return JvmMember(process, log)


#: The project's own Streams runner with state (tests/kafka43/java), for standby tasks.
STATEFUL_SOURCE = Path(__file__).with_name("java") / "StatefulStreamsRunner.java"


def start_stateful_streams(bootstrap: str, app: str, topic: str, client: str, standbys: int,
                           log: Path) -> JvmMember:
    """A Kafka Streams 4.3.1 member whose sub-topology counts into an in-memory store (so the
    broker gives standby tasks), compiled at first use against clients-4.3's jars; the group
    config ``streams.num.standby.replicas`` set to ``standbys`` first."""
    from assignframe.testing.java43_oracle import compiled_java
    from assignframe.testing.java_oracle import find_java

    runners_jar = clients43() / "lib" / "clients43-runners.jar"  # its manifest lists the rest
    java = find_java()
    classes = compiled_java(STATEFUL_SOURCE, [runners_jar], java)
    command = [java, "-Xms32m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
               "-Dclients43.log.level=warn",
               f"-Dlog4j2.configurationFile={clients43() / 'log4j2.properties'}",
               "-cp", os.pathsep.join([str(classes), str(runners_jar)]),
               "StatefulStreamsRunner", bootstrap, app, topic, client, str(standbys)]
    with open(log, "wb") as stderr:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True)
    return JvmMember(process, log)


def describe(bootstrap: str, kind: str, group: str, seconds: float = 90) -> dict[str, Any]:
    """Kafka's own Admin view of a share or Streams group (describe-group.sh, one JVM)."""
    answer = subprocess.run(["sh", str(clients43() / "describe-group.sh"), bootstrap, kind, group],
                            capture_output=True, text=True, timeout=seconds)
    lines = answer.stdout.strip().splitlines()
    if not lines:
        raise AssertionError(f"describe-group.sh printed nothing: {answer.stderr[-2000:]}")
    return json.loads(lines[-1])


def wait_until(what: str, probe: Callable[[], Any], seconds: float, pause: float = 0.5) -> Any:
    """Call ``probe`` until it returns something truthy; fail naming ``what`` (and the last
    value) after ``seconds``."""
    deadline = time.monotonic() + seconds
    last = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(pause)
    raise AssertionError(f"never {what} within {seconds} s (last: {last!r})")
