"""What every test broker shares: its handle for tests, its group timings, ports, and how its
process is stopped for sure.

A broker this session starts runs in a process group of its own (``start_new_session``), so the
whole tree (a launcher script and the JVM it backgrounds) is signalled at once, and the process
group id cannot be reused while any of them lives. A small reaper process stops
that group when the test session goes away without stopping it (Ctrl-C that tox escalates to
SIGKILL, a killed pytest), so no broker outlives its session. The reaper is this file run as a
script (``python broker_base.py PGID TIMEOUT``): it imports nothing but the standard library.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

__all__ = [
    "HOST",
    "Broker",
    "LocalBrokerError",
    "BrokerHandle",
    "GroupTimings",
    "ProcessGroup",
    "free_port",
    "tail",
    "wait_for_port",
]

HOST = "127.0.0.1"


class LocalBrokerError(RuntimeError):
    """The broker (or what it needs: Java, its files) is missing, or it did not start or stop in
    time; the message says what and where to look."""


@dataclass(frozen=True)
class GroupTimings:
    """The classic-group timings tests give their members on a broker, and what they may wait.

    :param session_timeout_ms: members' ``session.timeout.ms``: how long a killed member holds
        its partitions
    :param heartbeat_interval_ms: members' ``heartbeat.interval.ms``: how soon a member hears of a
        rebalance
    :param rebalance_seconds: one rebalance's worst case on an idle machine, a dead member's
        session timeout included; tests wait a multiple of it (a deadline, never a speed claim)
    """

    session_timeout_ms: int
    heartbeat_interval_ms: int
    rebalance_seconds: float


class BrokerHandle(Protocol):
    """A broker process this session started."""

    def stop(self, timeout: float = ...) -> None: ...

    def restart(self) -> None: ...


@dataclass(frozen=True)
class Broker:
    """A broker tests can talk to.

    :param host: the address it listens on (127.0.0.1 for one this session started)
    :param port: its port
    :param kind: ``"kafka"`` (Apache Kafka started here), ``"tansu"`` or ``"external"``
        (``$ASSIGNFRAME_BOOTSTRAP``, assumed to be Apache Kafka)
    :param timings: the member timings that suit it (see :class:`GroupTimings`)
    :param producer_settings: kafka-python ``KafkaProducer`` settings it needs (none for Kafka)
    :param log_path: its log, named in failures (None for an external broker)
    :param handle: the process this session started (None for an external broker)
    :param properties: broker properties this session set (``server.properties`` additions)
    """

    host: str
    port: int
    kind: str
    timings: GroupTimings
    producer_settings: Mapping[str, Any] = field(default_factory=dict)
    log_path: Path | None = None
    handle: BrokerHandle | None = None
    properties: Mapping[str, str] = field(default_factory=dict)

    @property
    def bootstrap(self) -> str:
        """``host:port``, as clients take it in ``bootstrap_servers``."""
        return f"{self.host}:{self.port}"

    def stop(self, timeout: float = 30.0) -> None:
        """Stop it if this session started it; an external broker is left alone."""
        if self.handle is not None:
            self.handle.stop(timeout)

    def restart(self) -> None:
        """Stop it and start it again from the same state (same address, same data).

        :raises LocalBrokerError: this session did not start it, or it cannot keep its data
        """
        if self.handle is None:
            raise LocalBrokerError(f"{self.bootstrap} is external: this session cannot restart it")
        self.handle.restart()

    def describe(self) -> str:
        """One line for failure reports: what it is, where it listens, where its log is."""
        log = f", log {self.log_path}" if self.log_path else ""
        return f"{self.kind} broker at {self.bootstrap}{log}"


def free_port(host: str = HOST) -> int:
    """A TCP port nothing listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def wait_for_port(
    host: str, port: int, timeout: float, process: subprocess.Popen | None = None
) -> None:
    """Return once ``host:port`` accepts connections.

    :raises LocalBrokerError: ``process`` exited first, or ``timeout`` seconds passed
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise LocalBrokerError(f"broker exited with code {process.returncode} before listening")
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
            return
        time.sleep(0.05)
    raise LocalBrokerError(f"nothing listens on {host}:{port} after {timeout:.0f}s")


def tail(path: Path | None, lines: int = 30) -> str:
    """The last ``lines`` lines of a log (for error messages); empty when there is none."""
    if path is None or not path.is_file():
        return ""
    with open(path, "rb") as log:
        log.seek(0, os.SEEK_END)
        log.seek(max(0, log.tell() - 200 * lines))
        text = log.read().decode("utf-8", errors="replace")
    return "\n".join(text.splitlines()[-lines:])


def _group_alive(pgid: int) -> bool:
    """Whether any process of group ``pgid`` still runs (zombies do not count: an orphaned JVM
    may wait to be reaped by an init that never does)."""
    proc = Path("/proc")
    if not proc.is_dir():  # not Linux: ask the kernel, zombies included
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    for stat in proc.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone while we looked
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


class ProcessGroup:
    """A process started in a session of its own, stopped with its whole group.

    A reaper process watches a pipe from this one: when the pipe closes without :meth:`stop`
    having run (this process died), the reaper stops the group itself.
    """

    def __init__(self, command: list[str], *, stop_timeout: float = 30.0, **popen: Any) -> None:
        self.process = subprocess.Popen(command, start_new_session=True, **popen)
        self.pgid = self.process.pid  # a session leader's pid is its group id
        self._reaper = subprocess.Popen(
            [sys.executable, __file__, str(self.pgid), str(stop_timeout)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C in the terminal must not take it down first
        )

    @property
    def alive(self) -> bool:
        return _group_alive(self.pgid)

    def signal(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pgid, signum)

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM to the group, SIGKILL to whatever is left after ``timeout`` seconds.

        :raises LocalBrokerError: something survived SIGKILL (a process stuck in the kernel)
        """
        try:
            _stop_group(self.pgid, timeout)
            if self.alive:
                raise LocalBrokerError(f"process group {self.pgid} survived SIGKILL")
        finally:
            self._release_reaper()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(5)  # the launcher is our child: reap it

    def _release_reaper(self) -> None:
        if self._reaper.stdin is not None and not self._reaper.stdin.closed:
            self._reaper.stdin.close()  # the group is gone: the reaper finds nothing and exits
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._reaper.wait(15)


def _stop_group(pgid: int, timeout: float) -> None:
    """SIGTERM, then SIGKILL after ``timeout`` seconds: the reaper's job once its pipe closed."""
    for signum, patience in ((signal.SIGTERM, timeout), (signal.SIGKILL, 10.0)):
        if not _group_alive(pgid):
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signum)
        deadline = time.monotonic() + patience
        while _group_alive(pgid) and time.monotonic() < deadline:
            time.sleep(0.2)


def _reap(argv: list[str]) -> int:
    """The reaper: wait until the test session's end of the pipe closes, then stop the group."""
    pgid, timeout = int(argv[1]), float(argv[2])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # only the pipe decides
    while sys.stdin.buffer.read(4096):
        pass
    _stop_group(pgid, timeout)
    return 0


if __name__ == "__main__":
    sys.exit(_reap(sys.argv))
