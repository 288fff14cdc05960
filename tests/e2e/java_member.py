"""Java members of the e2e groups: Kafka's own KafkaConsumer (``shared/java/clients``).

* classic protocol: ``shared/java/clients/run-consumer.sh`` with Java's StickyAssignor or
  CooperativeStickyAssignor;
* consumer protocol (KIP-848, config ``group_protocol: consumer``): ``java/ConsumerProtocolRunner
  .java`` (written for these tests), compiled once per test session with ``javac`` against
  ``shared/java/clients/lib/*``; the broker assigns with ``strategies[0]`` (uniform, range).

Both runners print one JSON line per rebalance callback, holding the member's whole assignment
after it. :func:`start_java_member` pipes that into this file run as a script, which writes the
same event log as ``member.py`` (``assigned`` / ``revoked`` / ``lost`` with the partitions that
changed, plus the whole ``assignment``), stamped the moment each line arrives: one clock with the
other members. The JVM is the member's process (the harness's kill -9 hits it); Kafka's own log
(INFO, timestamped) is its stderr. The runner does not log records or commit, so groups with Java
members are checked on ownership and callbacks, not on consumption.

The runner's member timings are fixed (session 6 s, heartbeat 1 s); they equal the Kafka test
broker's :data:`~assignframe.testing.kafka_node.KAFKA_TIMINGS`, which the other members use.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

CONSUMER_PROTOCOL_SOURCE = Path(__file__).with_name("java") / "ConsumerProtocolRunner.java"

#: assignframe strategy name -> the Java assignor with the same protocol name
JAVA_ASSIGNORS = {
    "sticky": "org.apache.kafka.clients.consumer.StickyAssignor",
    "cooperative-sticky": "org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
}
#: Long enough for any test, short enough that a JVM left by a killed session ends on its own.
POLL_SECONDS = 900
#: Kafka's log (slf4j-simple, stderr) with wall-clock times, to line up with the other logs.
LOG_OPTIONS = (
    "-Dorg.slf4j.simpleLogger.showDateTime=true",
    "-Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd'T'HH:mm:ss.SSS",
)


def run_consumer_script(shared: Path) -> Path:
    """``shared/java/clients/run-consumer.sh``.

    :raises FileNotFoundError: it is missing (the shared directory is too old or incomplete)
    """
    script = shared / "java" / "clients" / "run-consumer.sh"
    if not script.is_file():
        raise FileNotFoundError(
            f"{script} is missing: the Java members need shared/java/clients (Kafka's Java "
            "consumer runner); update the shared directory"
        )
    return script


def clients_lib(shared: Path) -> Path:
    lib = shared / "java" / "clients" / "lib"
    if not (lib / "kafka-clients-4.0.0-SNAPSHOT.jar").is_file():
        raise FileNotFoundError(f"{lib} holds no kafka-clients jar: update the shared directory")
    return lib


@functools.cache
def consumer_protocol_classes(shared: Path) -> Path:
    """ConsumerProtocolRunner compiled (once per process) against Kafka's client jars.

    :raises FileNotFoundError: no ``javac`` (a JDK 17 is needed, not only a runtime)
    """
    from assignframe.testing.kafka_node import broker_java

    javac = broker_java().resolve().parent / "javac"
    if not javac.is_file():
        raise FileNotFoundError(f"no javac beside {broker_java()}: install a JDK 17 (with javac)")
    classes = Path(tempfile.mkdtemp(prefix="consumer-protocol-runner-"))
    atexit.register(shutil.rmtree, classes, ignore_errors=True)
    subprocess.run(
        [str(javac), "-d", str(classes), "-cp", f"{clients_lib(shared)}/*",
         str(CONSUMER_PROTOCOL_SOURCE)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    return classes


def java_command(config: dict[str, Any], shared: Path) -> list[str]:
    """The member's command line: the classic runner's script, or the consumer-protocol runner."""
    from assignframe.testing.kafka_node import broker_java

    (strategy,) = config["strategies"]
    if config.get("group_protocol") == "consumer":
        classpath = f"{clients_lib(shared)}/*:{consumer_protocol_classes(shared)}"
        return [
            str(broker_java()), "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            *LOG_OPTIONS, "-cp", classpath, "ConsumerProtocolRunner", config["bootstrap"],
            config["group"], ",".join(config["topics"]), strategy, config["name"],
        ]  # fmt: skip
    (topic,) = config["topics"]
    return [
        "sh", str(run_consumer_script(shared)), config["bootstrap"], config["group"], topic,
        JAVA_ASSIGNORS[strategy], "true", config["name"],
    ]  # fmt: skip


def start_java_member(
    config: dict[str, Any], shared: Path, stderr: Any
) -> tuple[subprocess.Popen[bytes], subprocess.Popen[bytes]]:
    """Start the JVM and the process that turns its stdout into the member's event log.

    :param config: ``member.py``'s config (``bootstrap``, ``group``, ``topics`` (one),
        ``strategies`` (one of :data:`JAVA_ASSIGNORS`), ``name``, ``log``)
    :returns: (the JVM, the log writer); the writer ends when the JVM's stdout closes
    """
    from assignframe.testing.kafka_node import broker_java

    (strategy,) = config["strategies"]
    env = {
        **os.environ,
        "JAVALAB_JAVA": str(broker_java()),
        "JAVALAB_POLL_SECONDS": str(POLL_SECONDS),
        "CONSUMER_PROTOCOL_RUN_SECONDS": str(POLL_SECONDS),
        "JAVALAB_JAVA_OPTS": " ".join(LOG_OPTIONS),
    }
    command = java_command(config, shared)
    jvm = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, env=env)
    try:
        writer = subprocess.Popen(
            [sys.executable, __file__, config["log"], config["name"], str(jvm.pid), strategy],
            stdin=jvm.stdout,
            stderr=stderr,
        )
    except BaseException:
        jvm.kill()
        jvm.wait(30)
        raise
    finally:
        assert jvm.stdout is not None
        jvm.stdout.close()  # the writer holds it now
    return jvm, writer


def write_events(lines: Any, log: Any) -> None:
    """Turn the runner's lines into events: what changed, and the whole assignment after."""
    owned: set[tuple[str, int]] = set()
    for line in lines:
        try:
            callback = json.loads(line)
        except ValueError:
            continue  # not a callback line
        after = {(topic, partition) for topic, partition in callback["assignment"]}
        changed = after - owned if callback["event"] == "assigned" else owned - after
        owned = after
        member = {"member_id": callback["member_id"]} if "member_id" in callback else {}
        log.write(
            callback["event"],
            partitions=sorted(map(list, changed)),
            assignment=sorted(map(list, after)),
            **member,
        )


def main(argv: list[str]) -> int:
    from member import EventLog

    log_path, name, pid, strategy = argv[1:5]
    log = EventLog(log_path, name)
    log.write("started", pid=int(pid), client="java", strategies=[strategy])
    write_events(sys.stdin, log)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
