"""kafka-python as a transport only: connections, SASL/SSL, reconnects, and raw frames.

kafka-python (3.x) connects, authenticates and negotiates; the bytes of every request this
package sends are built by :mod:`assignframe_codec` (``encode_frame``) and every response body
is handed back undecoded, to be read by the codec too. kafka-python's own message classes never
parse a body of ours: :class:`_CodecRequest` brings its own response reader, which only takes the
response header off (through the codec) and keeps the body's bytes.

Each request sent is logged in :attr:`Transport.sent` (api, version, node), which the benchmark
counts and the read-only test checks beside what the socket carried.
"""

from __future__ import annotations

import logging
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import assignframe_codec as codec

from ..errors import BrokerError
from .config import ClientConfig
from .probe import (
    SASL_UNANSWERED,
    client_failure,
    decided,
    deciding_reason,
    is_refusal,
    kafka_listener,
)

__all__ = ["BrokerNode", "Transport", "TransportError", "failure_text", "kafka_python_version"]

log = logging.getLogger("assignframe.cluster")

#: kafka-python releases whose network layer (kafka.net) this transport drives
MIN_KAFKA_PYTHON = (3, 0)


class TransportError(BrokerError):
    """A broker could not be reached, or a request to it failed or timed out."""


@dataclass(frozen=True)
class BrokerNode:
    """A broker of the cluster, as Metadata named it."""

    node_id: int
    host: str
    port: int
    rack: str | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


def failure_text(exc: BaseException) -> str:
    """``Name: reason`` of a client's exception, the name said once (kafka-python's errors
    already start their ``str()`` with it: ``KafkaTimeoutError: Unable to bootstrap ...``)."""
    name = type(exc).__name__
    reason = str(exc).strip()
    if reason == name or reason.startswith(f"{name}:"):
        reason = reason[len(name):].lstrip(":").strip()
    return f"{name}: {reason}" if reason else name


def kafka_python_version() -> tuple[int, ...] | None:
    """The installed kafka-python's version (None when it is not installed), from its package
    metadata: importing kafka costs a quarter of a second, and a failing command should not."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("kafka-python")
    except PackageNotFoundError:
        return None
    return tuple(int(part) for part in found.split(".")[:2] if part.isdigit())


def _require_kafka_python(found: tuple[int, ...] | None) -> None:
    """The error of a kafka-python that is missing (``found`` None) or older than 3.0."""
    if found is None or found < MIN_KAFKA_PYTHON:
        have = "not installed" if found is None else ".".join(map(str, found))
        raise TransportError(
            f"reading a live cluster needs kafka-python >= 3.0 (installed: {have}); "
            "pip install 'assignframe[cluster]'")


class _BootstrapReasons(list):
    """While connecting: the reasons kafka-python logs for each failed bootstrap connection,
    kept in order, not printed unless ``-v`` asked for kafka-python's log.

    Two loggers say them: the manager ("Bootstrap connection to bootstrap-0 failed: REASON
    (backoff ...)") and the connection ("<KafkaConnection node_id=N ...>: Connection lost:
    REASON"). Only the second sees a broker's refusal when the refusal and the broker's close
    of the connection are read together (the close fails the connection first, the manager
    says "socket disconnected"). And Kafka often closes a connection whose authentication
    failed without sending the refusal at all: a connection lost right after its
    SaslAuthenticate request is kept as :data:`~.probe.SASL_UNANSWERED` (the connection's
    debug line says what it sent last; it is read, never kept, and printed only with ``-v``).
    """

    #: called once when the reasons so far decide the failure (:func:`.probe.decided`)
    on_decided: Callable[[], None] | None = None

    _BOOTSTRAP = re.compile(r"Bootstrap connection to \S+ failed: (.*?)(?: \(backoff [^)]*\))?$")
    _SENT = re.compile(r"<KafkaConnection node_id=(\S+) .*?> Request \d+: (\w+)")
    _LOST = re.compile(r"<KafkaConnection node_id=(\S+) .*?>: Connection lost: (.*)$")
    _LOGGERS = ("kafka.net.manager", "kafka.net.connection")

    def __enter__(self) -> _BootstrapReasons:
        self._last_sent: dict[str, str] = {}
        #: the reasons of each finished try (the manager's line ends a try; the connection's
        #: lines before it belong to it), for :func:`.probe.decided`
        self._tries: list[list[str]] = []
        self._this_try: list[str] = []
        self._saved: dict[str, tuple[int, bool, logging.Handler]] = {}
        for name in self._LOGGERS:
            logger = logging.getLogger(name)
            handler = logging.Handler(logging.DEBUG)
            handler.emit = self._take  # type: ignore[method-assign]
            self._saved[name] = (logger.level, logger.propagate, handler)
            if logger.getEffectiveLevel() > logging.WARNING:  # quiet: keep them, print nothing
                logger.propagate = False
                logger.setLevel(logging.DEBUG)
            else:  # someone shows this log: show no more of it than they asked for
                logger.setLevel(min(logger.getEffectiveLevel(), logging.WARNING))
            logger.addHandler(handler)
        return self

    def _take(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if record.name == "kafka.net.manager":
            found = self._BOOTSTRAP.match(message)
            if found:
                self.append(found[1])
                self._tries.append([*self._this_try, found[1]])
                self._this_try = []
                if self.on_decided is not None and decided(self._tries):
                    on_decided, self.on_decided = self.on_decided, None
                    on_decided()
        elif (sent := self._SENT.match(message)) is not None:
            self._last_sent[sent[1]] = sent[2]
        elif (lost := self._LOST.match(message)) is not None:
            unanswered = (self._last_sent.pop(lost[1], None) == "SaslAuthenticateRequest"
                          and not is_refusal(lost[2]))
            reason = f"{SASL_UNANSWERED}: {lost[2]}" if unanswered else lost[2]
            self.append(reason)
            self._this_try.append(reason)

    def __exit__(self, *exc: object) -> None:
        for name, (level, propagate, handler) in self._saved.items():
            logger = logging.getLogger(name)
            logger.removeHandler(handler)
            logger.setLevel(level)
            logger.propagate = propagate


class _RawBody:
    """A response body as bytes, for the codec to read (kafka-python only routes it)."""

    __slots__ = ("body",)
    throttle_time_ms = 0  # kafka-python reads it; the codec reads the real one

    def __init__(self, body: bytes) -> None:
        self.body = body


class _CodecRequest:
    """What kafka-python's connection needs of a request, its bytes made by the codec.

    kafka-python 3.x calls ``with_header``, ``encode(framed=True, header=True)`` and
    ``expect_response``, keeps ``header`` in flight and asks it for the response reader
    (``get_response_class``): this object is its own header and its own reader.
    """

    def __init__(self, kind: str, body: Any, version: int) -> None:
        self.kind, self.body, self.API_VERSION = kind, body, version
        self.API_KEY = codec.api_key(kind.removesuffix("Request"))
        self.api_key, self.api_version = self.API_KEY, version
        self.correlation_id = 0
        self._client_id: str | None = None
        self.header = self

    def with_header(self, correlation_id: int = 0, client_id: str | None = None) -> None:
        self.correlation_id, self._client_id = correlation_id, client_id

    def encode(self, framed: bool = True, header: bool = True) -> bytes:
        head = {"correlation_id": self.correlation_id, "client_id": self._client_id}
        return codec.encode_frame(self.kind, head, self.body, self.API_VERSION)

    def expect_response(self) -> bool:
        return True

    def get_response_class(self) -> _CodecRequest:
        return self

    def parse_header(self, buffer: Any) -> Any:
        """Read the response header (the codec's) and leave ``buffer`` at the body."""
        data = bytes(buffer)
        header, start = codec.decode_response_header(data, self.API_KEY, self.API_VERSION, 0)
        buffer.seek(start)
        return header

    def decode(self, buffer: Any) -> _RawBody:
        return _RawBody(buffer.read())

    def __repr__(self) -> str:
        return f"{self.kind} v{self.API_VERSION}"


class Transport:
    """Connections to one cluster through kafka-python; frames in and out through the codec.

    :param bootstrap: ``host:port[,host:port...]``
    :param config: client settings (security) from ``--command-config``
    :param timeout_s: the deadline of each request and of the first connection
    """

    def __init__(self, bootstrap: str, config: ClientConfig, timeout_s: float) -> None:
        from importlib.util import find_spec

        # missing is said at once; the version once a broker answered (reading package
        # metadata costs 30-40 ms of CPU, which a broker that refuses should not)
        if find_spec("kafka") is None:
            _require_kafka_python(None)
        self.bootstrap, self.config, self.timeout_s = bootstrap, config, timeout_s
        self.sent: Counter[tuple[str, int, str]] = Counter()
        self._client: Any = None
        #: the bootstrap address that answered as Kafka, which the connection went through
        self.listener: str | None = None
        try:
            self._connect(max(1, int(timeout_s * 1000)))
        except BaseException:  # Ctrl-C while connecting leaves no client thread behind
            self.close()
            raise

    def _connect(self, timeout_ms: int) -> None:
        """Probe the bootstrap addresses (:mod:`.probe`: what listens there), then let
        kafka-python connect through the first that answered as Kafka (the cluster's metadata
        names the other brokers): an address that is down is not tried again. A failure is said
        as what it means, not "Unable to bootstrap"."""
        started = time.monotonic()
        protocol = str(self.config.settings.get("security_protocol", "PLAINTEXT"))
        listener, problem = kafka_listener(self.bootstrap, protocol, started + self.timeout_s)
        if listener is None:
            raise TransportError(problem or f"cannot connect to {self.bootstrap}")
        self.listener = listener
        _require_kafka_python(kafka_python_version())
        from kafka.net.compat import KafkaNetClient  # only once a broker answered as Kafka

        settings = {"client_id": "assignframe-inspect", **self.config.kafka_python_settings()}
        self._client = KafkaNetClient(
            bootstrap_servers=[listener],
            client_software_name="assignframe",
            request_timeout_ms=timeout_ms,
            socket_connection_setup_timeout_ms=timeout_ms,
            reconnect_backoff_max_ms=min(timeout_ms, 5000),
            receive_message_max_bytes=100 * 1024 * 1024,
            **settings,
        )
        left_ms = max(1, timeout_ms - int((time.monotonic() - started) * 1000))
        with _BootstrapReasons() as reasons:
            reasons.on_decided = self._stop_bootstrap
            try:
                self._client.check_version(timeout_ms=left_ms)
            except Exception as exc:  # kafka-python raises its own tree and plain OSErrors
                self.close()
                why = (client_failure(deciding_reason(reasons), self.config.settings) if reasons
                       else failure_text(exc))
                raise TransportError(self.config.redact(
                    f"cannot connect to {self.bootstrap}: {why}")) from None
        log.debug("connected to %s in %.2f s", self.bootstrap, time.monotonic() - started)

    def _stop_bootstrap(self) -> None:
        """End kafka-python's bootstrap now: it would try again until the timeout, and each try
        would fail the same way (a wrong password waited out the whole ``--timeout``). Its
        connection manager's ``close`` ends the bootstrap loop, which then fails as a timeout;
        the reasons kept say why. (kafka-python 3.x's manager; without one, the timeout ends
        it as before.)"""
        manager = getattr(self._client, "_manager", None)
        if manager is not None:
            log.debug("the bootstrap's failures decide it: not trying again until the timeout")
            manager.close()

    def brokers(self) -> dict[int, BrokerNode]:
        """The brokers kafka-python's metadata knows (node id -> broker)."""
        return {b.node_id: BrokerNode(b.node_id, b.host, b.port, getattr(b, "rack", None))
                for b in self._client.cluster.brokers()}

    def any_node(self) -> int | str:
        node = self._client.least_loaded_node(bootstrap_fallback=True)
        if node is None:
            raise TransportError(f"no broker of {self.bootstrap} is reachable")
        return int(node) if str(node).isdigit() else str(node)

    def send(self, node: int | str, kind: str, body: Any, version: int) -> Any:
        """Send ``body`` (a codec request of ``kind`` at ``version``) to ``node``; the decoded
        response (``kind`` with ``Response`` for ``Request``).

        :raises TransportError: unreachable, timed out, or the broker closed the connection
        :raises assignframe_codec.CodecError: the response is not what the schema allows
        """
        request = _CodecRequest(kind, body, version)
        self.sent[(kind.removesuffix("Request"), version, str(node))] += 1
        try:
            raw = self._client.send_and_receive(node, request,
                                                timeout_ms=int(self.timeout_s * 1000))
        except Exception as exc:
            where = self.brokers().get(node) if isinstance(node, int) else None
            target = f"broker {node}" + (f" ({where.address})" if where else "")
            raise TransportError(self._why(f"{request} to {target} failed", exc)) from None
        return codec.decode(kind.removesuffix("Request") + "Response", raw.body, version)

    def requests_per_api(self) -> dict[str, int]:
        counts: Counter[str] = Counter()
        for (api, _, _), n in self.sent.items():
            counts[api] += n
        return dict(counts)

    def _why(self, what: str, exc: BaseException) -> str:
        return self.config.redact(f"{what}: {failure_text(exc)}")

    def close(self) -> None:
        if self._client is None:  # the probe failed: no client was made
            return
        try:
            self._client.close()
        except Exception:  # closing a half-open client must not hide the real error
            log.debug("closing the kafka-python client failed", exc_info=True)
