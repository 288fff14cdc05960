"""Apache Kafka 4.3.1's own share and Streams assignors as a differential oracle.

``java/Kafka43Oracle.java`` (beside this module; its header documents the requests) is compiled
with ``javac`` at first use against ``shared/java/broker-4.3/libs`` (the 4.3.1 broker's own jars:
``kafka-group-coordinator-4.3.1.jar`` holds ``SimpleAssignor`` and ``StickyTaskAssignor``) and the
third-party jars ``broker-4.3`` shares with ``broker/`` (``libs-shared.sha256``), into a cache
directory keyed by the source and the jars (``$ASSIGNFRAME_JAVA43_CACHE``, default under the
system temp directory): ``shared/`` stays read-only. It then runs like :class:`JavaOracle`, one
JVM per session (the pytest plugin's ``assignframe_java43_oracle`` fixture)::

    with running_kafka43_oracle() as oracle:
        oracle.assign("simple", round_)                  # a kip848 round, group type share
        oracle.streams_assign({"subtopologies": {...}, "members": [...], "configs": {...}})

Nothing skips: a missing ``shared/java/broker-4.3``, ``java`` or ``javac``, a compile error or a
compile that outlasts its deadline raises :class:`~assignframe.testing.java_oracle.JavaOracleError`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .java_oracle import JavaOracle, JavaOracleError, find_java
from .paths import shared_path

__all__ = [
    "CACHE_ENV",
    "KAFKA_VERSION",
    "Kafka43Oracle",
    "compiled_java",
    "compiled_oracle",
    "kafka43_classpath",
    "running_kafka43_oracle",
]

#: The Kafka release whose assignors the oracle runs (checked against the jar's own version).
KAFKA_VERSION = "4.3.1"
CACHE_ENV = "ASSIGNFRAME_JAVA43_CACHE"
ORACLE_SOURCE = Path(__file__).with_name("java") / "Kafka43Oracle.java"
#: javac takes a few seconds; on a loaded machine much longer, never forever.
COMPILE_TIMEOUT = 600.0


def kafka43_classpath(shared: Path | None = None) -> list[Path]:
    """The broker-4.3 jars and the third-party jars it shares with ``broker/``.

    :raises JavaOracleError: the shared directory, ``broker-4.3`` or one of the jars is missing
    """
    try:
        root = shared or shared_path(Path(__file__))
    except FileNotFoundError as exc:
        raise JavaOracleError(f"the Kafka 4.3.1 oracle needs the shared directory: {exc}") from None
    broker = root / "java" / "broker-4.3"
    listing = broker / "libs-shared.sha256"
    if not listing.is_file():
        raise JavaOracleError(
            f"{listing} is missing: the Kafka 4.3.1 oracle runs on shared/java/broker-4.3 "
            "(see shared/java/README.md)"
        )
    jars = sorted((broker / "libs").glob("*.jar"))
    for line in listing.read_text(encoding="utf-8").splitlines():
        if line.strip():
            jars.append((broker / line.split()[-1]).resolve())
    missing = [jar for jar in jars if not jar.is_file()]
    if missing or not any(j.name == f"kafka-group-coordinator-{KAFKA_VERSION}.jar" for j in jars):
        raise JavaOracleError(
            f"the Kafka 4.3.1 oracle's jars are incomplete under {broker}: missing "
            f"{[str(m) for m in missing] or 'kafka-group-coordinator-' + KAFKA_VERSION + '.jar'}"
        )
    return jars


def _javac(java: str) -> str:
    beside = Path(java).resolve().parent / "javac"
    if os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("javac")
    if found is None:
        raise JavaOracleError(
            "no javac: the Kafka 4.3.1 oracle is compiled at first use; install a JDK 17 "
            "(Debian: openjdk-17-jdk-headless) or point JAVA_HOME at one"
        )
    return found


def compiled_oracle(classpath: list[Path], java: str | None = None) -> Path:
    """The directory holding ``Kafka43Oracle.class``, compiled now unless cached.

    :raises JavaOracleError: javac is missing, failed, or outlasted :data:`COMPILE_TIMEOUT`
    """
    return compiled_java(ORACLE_SOURCE, classpath, java)


def compiled_java(source: Path, classpath: list[Path], java: str | None = None) -> Path:
    """The directory holding ``source``'s classes (one ``.java`` file), compiled against
    ``classpath`` now unless cached (by the source's and the jars' identity).

    :raises JavaOracleError: javac is missing, failed, or outlasted :data:`COMPILE_TIMEOUT`
    """
    digest = hashlib.sha256(source.read_bytes())
    for jar in classpath:
        digest.update(f"{jar}:{jar.stat().st_size}:{jar.stat().st_mtime_ns}".encode())
    cache = Path(os.environ.get(CACHE_ENV) or Path(tempfile.gettempdir()) / "assignframe-java43")
    target = cache / digest.hexdigest()[:16]
    if (target / f"{source.stem}.class").is_file():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix="building-", dir=cache))
    command = [_javac(java or find_java()), "-nowarn", "-d", str(building)]
    command += ["-cp", os.pathsep.join(map(str, classpath)), str(source)]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=COMPILE_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        shutil.rmtree(building, ignore_errors=True)
        raise JavaOracleError(f"javac did not finish within {COMPILE_TIMEOUT:.0f} s") from None
    if done.returncode != 0:
        shutil.rmtree(building, ignore_errors=True)
        raise JavaOracleError(f"javac failed on {source.name}:\n{done.stderr[-4000:]}")
    with contextlib.suppress(OSError):  # another process may have finished the same build first
        building.rename(target)
    shutil.rmtree(building, ignore_errors=True)
    return target


class Kafka43Oracle(JavaOracle):
    """One running ``Kafka43Oracle`` JVM (Kafka 4.3.1's share and Streams assignors)."""

    def __init__(self, shared: Path | None = None, timeout: float | None = None) -> None:
        self.classpath = kafka43_classpath(shared)
        super().__init__(ORACLE_SOURCE, timeout)

    def command(self) -> list[str]:
        java = find_java()
        classes = compiled_oracle(self.classpath, java)
        path = os.pathsep.join([str(classes), *map(str, self.classpath)])
        return [java, "-Xss4m", "-cp", path, "Kafka43Oracle"]

    def start(self) -> Kafka43Oracle:
        super().start()
        if self.info.get("kafka_version") != KAFKA_VERSION:
            self.close()
            raise JavaOracleError(
                f"the oracle runs Kafka {self.info.get('kafka_version')}, not {KAFKA_VERSION}"
            )
        return self

    def assign(self, assignor: str, round_: Mapping[str, Any]) -> dict[str, Any]:
        """4.3.1's ``SimpleAssignor`` (``assignor`` must be ``simple``) on a kip848 round, as
        :meth:`JavaOracle.assign` takes it."""
        if assignor != "simple":
            raise JavaOracleError(
                f"the Kafka 4.3.1 oracle runs the share assignor only, not {assignor}"
            )
        request = {k: v for k, v in round_.items() if k != "group_type"}
        return self.request({**request, "op": "share_assign"})

    def streams_assign(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """4.3.1's ``StickyTaskAssignor``: ``{"result": {member: {"active", "standby",
        "warmup"}}}`` (see the Java source's header for the request)."""
        return self.request({**request, "op": "streams_assign"})


@contextlib.contextmanager
def running_kafka43_oracle(
    shared: Path | None = None, timeout: float | None = None
) -> Iterator[Kafka43Oracle]:
    """A started :class:`Kafka43Oracle` for the ``with`` block; its JVM is stopped at the end."""
    oracle = Kafka43Oracle(shared, timeout).start()
    try:
        yield oracle
    finally:
        oracle.close()
