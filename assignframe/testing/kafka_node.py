"""Apache Kafka for tests: one KRaft node (broker + controller) on 127.0.0.1, 4.1.0 or 4.3.1.

The broker is ``shared/java/broker`` (Kafka 4.1.0, the default) or ``shared/java/broker-4.3``
(Kafka 4.3.1: share and Streams groups on; chosen by ``version="4.3"`` or
``$ASSIGNFRAME_KAFKA_VERSION=4.3``, which the ``cluster-43`` tox env sets), found like the
golden data (``$ASSIGNFRAME_SHARED`` or a ``shared/`` beside the checkout, see
:mod:`assignframe.testing.paths`), started with its own ``sh start.sh DIR``: free ports, a node
directory of its own, ``DIR/server.out`` as its log. It needs a Java 17 runtime
(``$JAVA_HOME/bin/java`` or ``java`` on PATH). Whatever is missing fails loudly with one message
saying what to install or set; nothing is skipped.

:data:`TEST_PROPERTIES` are what the node gets on top of ``start.sh``'s defaults: Kafka's classic
minimum session timeout (6 s) is lowered so tests may use shorter ones, and consumer-protocol
groups (KIP-848) get a 6 s session and 0.5 s heartbeat instead of 45 s / 5 s, so their tests
notice joins and deaths about as fast as classic groups do; online migration is allowed both
ways (``group.consumer.migration.policy=bidirectional``, Kafka 4.1's default, stated). A 4.3
node also gets :data:`SHARE_STREAMS_PROPERTIES`: share and Streams groups' 6 s session and 1 s
heartbeat (Kafka's minimums are 45 s / 5 s), so a member killed with ``kill -9`` is fenced in
seconds.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

from .broker_base import HOST, GroupTimings, LocalBrokerError, ProcessGroup, tail
from .paths import shared_path

__all__ = [
    "KAFKA_TIMINGS",
    "KAFKA_VERSIONS",
    "SHARE_STREAMS_PROPERTIES",
    "TEST_PROPERTIES",
    "VERSION_ENV",
    "KafkaNode",
    "broker_java",
    "find_broker_dist",
    "kafka_version",
    "node_properties",
]

#: Kafka version -> its folder under shared/java
KAFKA_VERSIONS = {"4.1": "broker", "4.3": "broker-4.3"}
#: the environment variable that picks the tests' Kafka version (default 4.1)
VERSION_ENV = "ASSIGNFRAME_KAFKA_VERSION"

#: Added to the node's server.properties (through start.sh's EXTRA_PROPS).
TEST_PROPERTIES: dict[str, str] = {
    "group.min.session.timeout.ms": "500",
    "group.consumer.min.session.timeout.ms": "1000",
    "group.consumer.session.timeout.ms": "6000",
    "group.consumer.min.heartbeat.interval.ms": "100",
    "group.consumer.heartbeat.interval.ms": "500",
    # Kafka 4.1's default, stated: classic groups convert online to consumer groups when a
    # consumer-protocol member joins, and back when the last one leaves (KIP-848)
    "group.consumer.migration.policy": "bidirectional",
}

#: Added on a 4.3 node: share and Streams groups' timings (shared/java/clients-4.3/README.md)
SHARE_STREAMS_PROPERTIES: dict[str, str] = {
    f"group.{kind}.{key}": value
    for kind in ("share", "streams")
    for key, value in (("session.timeout.ms", "6000"), ("min.session.timeout.ms", "6000"),
                       ("heartbeat.interval.ms", "1000"), ("min.heartbeat.interval.ms", "1000"))
}


def kafka_version(version: str | None = None) -> str:
    """``version``, else ``$ASSIGNFRAME_KAFKA_VERSION``, else 4.1.

    :raises LocalBrokerError: a version the shared brokers do not have
    """
    chosen = version or os.environ.get(VERSION_ENV, "").strip() or "4.1"
    if chosen not in KAFKA_VERSIONS:
        raise LocalBrokerError(f"no test broker for Kafka {chosen!r} ({VERSION_ENV}); expected "
                          f"{' or '.join(KAFKA_VERSIONS)}")
    return chosen


def node_properties(version: str | None = None) -> dict[str, str]:
    """What a node of ``version`` (see :func:`kafka_version`) gets on top of start.sh's defaults."""
    if kafka_version(version) == "4.3":
        return {**TEST_PROPERTIES, **SHARE_STREAMS_PROPERTIES}
    return dict(TEST_PROPERTIES)

#: Classic members' timings on Kafka: the Java consumer runner's own (6 s / 1 s), so members of
#: every client in one group time out alike. Kafka answers a JoinGroup as soon as every known
#: member rejoined (start.sh sets group.initial.rebalance.delay.ms=0); members hear of a rebalance
#: at their next heartbeat, and a dead one holds it up for its session timeout.
KAFKA_TIMINGS = GroupTimings(
    session_timeout_ms=6000, heartbeat_interval_ms=1000, rebalance_seconds=10
)

JAVA_NEEDED = (
    "the test broker (Apache Kafka, shared/java/broker*) needs a Java 17 runtime: "
    "install one (Debian: apt-get install openjdk-17-jdk-headless) or set JAVA_HOME"
)


def broker_java() -> Path:
    """The ``java`` that start.sh will run (``$JAVA_HOME/bin/java``, else PATH), checked to be 17+.

    :raises LocalBrokerError: there is none, or it is older than 17
    """
    home = os.environ.get("JAVA_HOME")
    candidate = Path(home) / "bin" / "java" if home else None
    if candidate is None or not candidate.is_file():
        found = shutil.which("java")
        if found is None:
            raise LocalBrokerError(f"no java found; {JAVA_NEEDED}")
        candidate = Path(found)
    try:
        answer = subprocess.run(
            [str(candidate), "-version"], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise LocalBrokerError(f"{candidate} -version failed ({error}); {JAVA_NEEDED}") from error
    match = re.search(r'version "(\d+)', answer.stderr)
    if match is None or int(match.group(1)) < 17:
        version = answer.stderr.splitlines()[:1] or ["no version printed"]
        raise LocalBrokerError(f"{candidate} is {version[0]!r}; {JAVA_NEEDED}")
    return candidate


def find_broker_dist(start: str | os.PathLike[str] | None = None,
                     version: str | None = None) -> Path:
    """``shared/java/broker`` or ``broker-4.3`` (its start.sh checked).

    :param start: where to look for ``shared/`` from (see :func:`~assignframe.testing.shared_path`)
    :param version: ``4.1`` or ``4.3`` (default: :func:`kafka_version`)
    :raises LocalBrokerError: no shared directory, or it holds no broker of that version
    """
    version = kafka_version(version)
    try:
        shared = shared_path(start)
    except FileNotFoundError as error:
        raise LocalBrokerError(f"no test broker: {error}") from error
    dist = shared / "java" / KAFKA_VERSIONS[version]
    if not (dist / "start.sh").is_file():
        raise LocalBrokerError(
            f"no test broker: {dist}/start.sh is missing (shared/java/{KAFKA_VERSIONS[version]} "
            f"holds Apache Kafka {version} built for these tests; update the shared directory)"
        )
    return dist


class KafkaNode:
    """One Kafka node started by ``start.sh`` in ``directory``; :meth:`restart` starts it again
    from the same directory (same cluster id, ports, topics, groups and offsets).

    :param dist: ``shared/java/broker`` or ``broker-4.3`` (:func:`find_broker_dist`)
    :param directory: the node directory (created; reuse it only to restart the same node)
    :param properties: lines for server.properties (formatting time only: start.sh keeps the
        first server.properties of a directory; default: :func:`node_properties` of the
        dist's version)
    :param broker_port: the broker port of a new node (default: a free one; a restart keeps the
        node's own)
    :param controller_port: the controller port of a new node (default: a free one); set it with
        ``broker_port`` when ``properties`` redefine ``listeners`` (more listeners, security)
    :param start_timeout: seconds start.sh may take to see the broker answer
    """

    def __init__(
        self,
        dist: Path,
        directory: Path,
        properties: dict[str, str] | None = None,
        *,
        broker_port: int | None = None,
        controller_port: int | None = None,
        start_timeout: int = 120,
    ) -> None:
        self.dist, self.directory = dist, directory
        self.properties = dict(node_properties(self.version) if properties is None
                               else properties)
        self.start_timeout = start_timeout
        self.port = broker_port
        self.controller_port = controller_port
        self._group: ProcessGroup | None = None

    @property
    def version(self) -> str:
        """``4.3`` for ``shared/java/broker-4.3``, else ``4.1``."""
        return "4.3" if self.dist.name == KAFKA_VERSIONS["4.3"] else "4.1"

    @property
    def log_path(self) -> Path:
        """The broker's stdout and stderr (``DIR/server.out``); Kafka's log4j files are in
        ``DIR/logs/``."""
        return self.directory / "server.out"

    @property
    def bootstrap(self) -> str:
        """``127.0.0.1:PORT`` once started, as clients take it."""
        return f"{HOST}:{self.port}"

    @property
    def running(self) -> bool:
        return self._group is not None and self._group.alive

    def start(self) -> int:
        """Run start.sh and return the broker port once the broker answers.

        :raises LocalBrokerError: start.sh failed or took too long (with both logs' last lines); the
            node is stopped before this is raised
        """
        java = broker_java()
        if self.running:
            raise LocalBrokerError(f"{self.describe()} is already running")
        self.directory.mkdir(parents=True, exist_ok=True)
        extra = self.directory / "extra.properties"
        extra.write_text("".join(f"{key}={value}\n" for key, value in self.properties.items()))
        launch_log = self.directory / "start.log"
        with open(launch_log, "ab") as stderr:
            self._group = ProcessGroup(
                ["sh", str(self.dist / "start.sh"), str(self.directory),
                 *([str(self.port)] if self.port else []),
                 *([str(self.controller_port)] if self.port and self.controller_port else [])],
                stdout=subprocess.PIPE,
                stderr=stderr,
                # kafka-run-class.sh runs $JAVA, else whatever java is first on PATH
                env={**os.environ, "JAVA": str(java), "EXTRA_PROPS": str(extra),
                     "START_TIMEOUT": str(self.start_timeout)},
            )  # fmt: skip
        try:
            self.port = self._await_start(launch_log)
        except BaseException:  # Ctrl-C included: never leave a half-started JVM behind
            self.stop()
            raise
        return self.port

    def _await_start(self, launch_log: Path) -> int:
        assert self._group is not None
        launcher = self._group.process
        try:
            out, _ = launcher.communicate(timeout=self.start_timeout + 60)  # + formatting
        except subprocess.TimeoutExpired:
            failure = self._start_failure("start.sh did not finish", launch_log)
            raise LocalBrokerError(failure) from None
        address = out.decode().strip().splitlines()[-1:] if out else []
        if launcher.returncode != 0 or not address or not address[0].startswith(f"{HOST}:"):
            raise LocalBrokerError(
                self._start_failure(f"start.sh exited {launcher.returncode}", launch_log)
            )
        return int(address[0].rpartition(":")[2])

    def _start_failure(self, what: str, launch_log: Path) -> str:
        return (
            f"Kafka node in {self.directory}: {what}\n"
            f"--- {launch_log} ---\n{tail(launch_log)}\n"
            f"--- {self.log_path} ---\n{tail(self.log_path)}"
        )

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM (Kafka's controlled shutdown), SIGKILL after ``timeout`` seconds."""
        if self._group is not None:
            group, self._group = self._group, None
            group.stop(timeout)
            # The orphaned JVM may stay a zombie until init reaps it, and start.sh takes a
            # zombie's pid for a running node: the pid file goes with the node.
            (self.directory / "kafka.pid").unlink(missing_ok=True)

    def kill(self) -> None:
        """SIGKILL, as a crash: no controlled shutdown (the next start recovers its logs)."""
        if self._group is not None:
            self._group.signal(signal.SIGKILL)
            self.stop(timeout=10)

    def restart(self) -> None:
        """Stop, then start again from the same directory (start.sh reuses its ports).

        :raises LocalBrokerError: it came back on another port, or did not come back
        """
        port = self.port
        self.stop()
        if self.start() != port:
            raise LocalBrokerError(f"{self.describe()} came back on port {self.port}, not {port}")

    def describe(self) -> str:
        return (f"Kafka {self.version} node {HOST}:{self.port} in {self.directory} "
                f"(log {self.log_path})")
