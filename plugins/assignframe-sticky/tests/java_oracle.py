"""Apache Kafka's own StickyAssignor / CooperativeStickyAssignor, run in a JVM beside the tests.

``tests/java/StickyAssignorOracle.java`` is compiled here with ``javac`` against the kafka-clients
jar in ``../shared/java/clients/lib`` and kept running; each call sends one group (one line) and
reads Java's assignment back. A missing JDK or jar fails loudly: these tests compare with the
real thing or not at all.
"""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from assignframe import Cluster, GroupAssignment
from assignframe.testing import shared_path

__all__ = ["JavaMember", "JavaStickyOracle"]

SOURCE = Path(__file__).parent / "java" / "StickyAssignorOracle.java"
#: A JVM answers in milliseconds; this only guards against a hung process on a loaded machine.
ANSWER_TIMEOUT = 120.0


class JavaMember(NamedTuple):
    """One member as the oracle describes it: what it subscribes and what it owned before."""

    topics: tuple[str, ...]
    rack: str | None
    generation: int
    owned: tuple[tuple[str, int], ...]


def _jdk_tool(name: str) -> str:
    home = os.environ.get("JAVA_HOME")
    found = str(Path(home) / "bin" / name) if home else shutil.which(name)
    if not found or not Path(found).exists():
        raise RuntimeError(f"{name} not found (JAVA_HOME or PATH): the Java comparison needs a JDK")
    return found


class JavaStickyOracle:
    """A running JVM with Java's sticky assignors; :meth:`close` ends it."""

    def __init__(self, build_dir: Path):
        lib = shared_path(__file__) / "java" / "clients" / "lib"
        if not any(lib.glob("kafka-clients-*.jar")):
            raise RuntimeError(f"no kafka-clients jar in {lib}")
        classpath = f"{lib}{os.sep}*"
        subprocess.run(
            [_jdk_tool("javac"), "-cp", classpath, "-d", str(build_dir), str(SOURCE)],
            check=True,
            capture_output=True,
        )
        self._process = subprocess.Popen(
            [_jdk_tool("java"), "-cp", f"{build_dir}{os.pathsep}{classpath}", SOURCE.stem],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,  # Kafka's own log lines
        )
        self._selector = selectors.DefaultSelector()
        assert self._process.stdout is not None
        self._selector.register(self._process.stdout, selectors.EVENT_READ)
        self._pending = b""

    def assign(
        self, assignor: str, cluster: Cluster, members: Mapping[str, JavaMember]
    ) -> GroupAssignment:
        """Java's leader result for ``members`` (``assignor``: sticky or cooperative-sticky)."""
        assert self._process.stdin is not None
        self._process.stdin.write(_request(assignor, cluster, members).encode() + b"\n")
        self._process.stdin.flush()
        answer = self._read_line()
        if answer.startswith("error "):
            raise AssertionError(f"Java's {assignor} failed: {answer[6:]}")
        return GroupAssignment.from_partitions(_parse_answer(answer))

    def _read_line(self) -> str:
        deadline = time.monotonic() + ANSWER_TIMEOUT
        assert self._process.stdout is not None
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                raise TimeoutError(f"Java's sticky oracle gave no answer in {ANSWER_TIMEOUT} s")
            chunk = os.read(self._process.stdout.fileno(), 65536)
            if not chunk:
                raise RuntimeError(f"Java's sticky oracle exited ({self._process.wait()})")
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line.decode()

    def close(self) -> None:
        """End the JVM (it exits when its input closes) and release the pipes."""
        self._selector.close()
        for pipe in (self._process.stdin, self._process.stdout):
            if pipe is not None:
                pipe.close()
        self._process.wait(timeout=30)


def _request(assignor: str, cluster: Cluster, members: Mapping[str, JavaMember]) -> str:
    racks = cluster.partition_racks or {}
    topics = []
    for topic, count in sorted(cluster.partitions_per_topic.items()):
        per_partition = racks.get(topic, ())
        replicas = [
            ",".join(per_partition[p]) if p < len(per_partition) and per_partition[p] else "-"
            for p in range(count)
        ]
        topics.append(f"{topic}={'/'.join(replicas)}")
    described = [
        f"{member_id}:{m.rack or ''}:{m.generation}:{','.join(m.topics)}:"
        + ",".join(f"{t}-{p}" for t, p in m.owned)
        for member_id, m in sorted(members.items())
    ]
    return f"{assignor}|{';'.join(topics)}|{';'.join(described)}"


def _parse_answer(answer: str) -> dict[str, list[tuple[str, int]]]:
    result: dict[str, list[tuple[str, int]]] = {}
    for member in answer.split(";"):
        member_id, _, partitions = member.partition("=")
        result[member_id] = [
            (tp.rsplit("-", 1)[0], int(tp.rsplit("-", 1)[1])) for tp in partitions.split(",") if tp
        ]
    return result
