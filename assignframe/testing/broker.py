"""The broker tests run against: Apache Kafka 4.1.0, started here, or one already running.

From pytest, use the session-scoped ``assignframe_kafka_broker`` fixture of assignframe's pytest
plugin: a :class:`Broker` from :func:`running_broker`. It starts one Kafka node
(:mod:`assignframe.testing.kafka_node`: ``shared/java/broker/start.sh``, Java 17) in a fresh
node directory on free 127.0.0.1 ports, and stops it at the end of the session (SIGTERM, SIGKILL
after 30 s; a reaper process does it if the session dies first). Set ``ASSIGNFRAME_BOOTSTRAP``
(``host:port``) to use a broker that is already running instead (assumed to be Apache Kafka with
default settings; it is left running).

What tests take from the broker, never from constants of their own: :attr:`Broker.timings`
(members' session timeout and heartbeat, and how long a rebalance may take),
:attr:`Broker.producer_settings`, :attr:`Broker.log_path` for failure messages, and
:meth:`Broker.restart`. Tansu (:mod:`assignframe.testing.tansu`) is kept for the few tests that
need a broker unlike Kafka. By hand::

    python scripts/broker.py                 # Kafka on 127.0.0.1:9092 until Ctrl-C
    python scripts/broker.py --tansu         # Tansu (no Java needed)
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from .broker_base import (
    HOST,
    Broker,
    GroupTimings,
    LocalBrokerError,
    free_port,
    wait_for_port,
)
from .kafka_node import KAFKA_TIMINGS, KafkaNode, find_broker_dist

__all__ = [
    "BOOTSTRAP_ENV",
    "Broker",
    "LocalBrokerError",
    "GroupTimings",
    "external_broker",
    "free_port",
    "main",
    "running_broker",
    "start_kafka",
    "wait_for_port",
]

BOOTSTRAP_ENV = "ASSIGNFRAME_BOOTSTRAP"


def start_kafka(
    directory: Path,
    *,
    shared_from: str | os.PathLike[str] | None = None,
    port: int | None = None,
) -> Broker:
    """Start an Apache Kafka node in ``directory`` (a new one, or one to start again).

    :param shared_from: where to look for ``shared/`` from (default: the working directory)
    :param port: the broker port of a new node (default: a free one)
    :raises LocalBrokerError: no Java 17, no shared/java/broker, or it did not start (with its logs)
    """
    node = KafkaNode(find_broker_dist(shared_from), directory, broker_port=port)
    port = node.start()
    return Broker(
        HOST,
        port,
        "kafka",
        KAFKA_TIMINGS,
        log_path=node.log_path,
        handle=node,
        properties=node.properties,
    )


def external_broker() -> Broker | None:
    """The broker named by ``$ASSIGNFRAME_BOOTSTRAP`` (``host:port``), or None."""
    bootstrap = os.environ.get(BOOTSTRAP_ENV, "").strip()
    if not bootstrap:
        return None
    host, _, port = bootstrap.rpartition(":")
    if not port.isdigit():
        raise LocalBrokerError(f"{BOOTSTRAP_ENV}={bootstrap!r} is not host:port")
    return Broker(host or HOST, int(port), "external", KAFKA_TIMINGS)


@contextlib.contextmanager
def running_broker(
    node_dir: Path, *, shared_from: str | os.PathLike[str] | None = None
) -> Iterator[Broker]:
    """A broker for the ``with`` block: the external one if configured, else a new Kafka node in
    ``node_dir``, stopped when the block ends (however it ends)."""
    broker = external_broker() or start_kafka(node_dir, shared_from=shared_from)
    try:
        yield broker
    finally:
        broker.stop()


def main(argv: list[str] | None = None) -> int:
    """Run a broker in the foreground until Ctrl-C (``python scripts/broker.py --help``)."""
    parser = argparse.ArgumentParser(description="Run a test broker on 127.0.0.1 until Ctrl-C")
    parser.add_argument("--port", type=int, default=9092, help="port to listen on (default 9092)")
    parser.add_argument("--dir", type=Path, help="Kafka node directory (default: a temporary one)")
    parser.add_argument("--tansu", action="store_true", help="run Tansu instead of Apache Kafka")
    parser.add_argument(
        "--shared", type=Path, help="where to look for shared/ from (default: working directory)"
    )
    args = parser.parse_args(argv)
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.set())
    with contextlib.ExitStack() as stack:
        try:
            broker = _start_by_hand(args, stack)
        except LocalBrokerError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        stack.callback(broker.stop)
        print(f"{broker.describe()}; Ctrl-C stops it", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            stopping.wait()
    return 0


def _start_by_hand(args: argparse.Namespace, stack: contextlib.ExitStack) -> Broker:
    if args.tansu:
        from .tansu import start_tansu

        return start_tansu(args.port)
    directory = args.dir or Path(stack.enter_context(tempfile.TemporaryDirectory())) / "node"
    return start_kafka(directory, shared_from=args.shared, port=args.port)


if __name__ == "__main__":
    sys.exit(main())
