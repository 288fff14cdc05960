"""What listens at a bootstrap address, and why a connection failed, said so an operator knows
where to look: a name that does not resolve, a closed port, something that is not Kafka (an HTTP
port, a listener that never answers), a TLS listener asked in plain text, a SASL setting against
a PLAINTEXT listener, a refused password, a certificate not trusted, a timeout.

:func:`probe` is one plain socket per address before the client connects: it resolves the name,
connects, and (in plain text) sends the codec's ApiVersions v0 frame, which every Kafka broker
answers before any authentication. Nothing else is sent, except ``\\r\\n\\r\\n`` to a listener
that stays silent, which makes an HTTP server answer (it waits for the end of a request line);
the probe's connection is then closed. :func:`client_failure` turns what kafka-python logged
about a failed bootstrap into the same kind of sentence.
"""

from __future__ import annotations

import logging
import re
import socket
import struct
import time
from collections.abc import Mapping

import assignframe_codec as codec

__all__ = ["client_failure", "deciding_reason", "decided", "kafka_listener", "parse_bootstrap",
           "probe"]

log = logging.getLogger("assignframe.cluster")

#: correlation id of the probe's ApiVersions request (its answer starts with it)
_CORRELATION_ID = 0x61660001
#: seconds of silence after which the probe nudges a listener with an empty HTTP line
_NUDGE_AFTER = 1.0


def parse_bootstrap(text: str) -> list[tuple[str, int]]:
    """``host:port[,host:port]`` (``[v6]:port`` too) as (host, port) pairs.

    :raises ValueError: an address without a port, or a port that is not 1-65535 (the message
        names the address)
    """
    pairs = []
    for address in (a.strip() for a in text.split(",")):
        match = re.fullmatch(r"\[?([^\[\]]*?)\]?:([^:\]]*)", address)
        if not address or match is None or not match[1]:
            raise ValueError(f"expected HOST:PORT, got {address!r}")
        if not match[2].isdigit() or not 1 <= int(match[2]) <= 65535:
            raise ValueError(f"port {match[2]!r} of {address} is not a number 1-65535")
        pairs.append((match[1], int(match[2])))
    return pairs


def kafka_listener(bootstrap: str, security_protocol: str,
                   deadline: float) -> tuple[str | None, str | None]:
    """The first address of ``bootstrap`` where a broker answers as Kafka, and None; or None
    and ``cannot connect to HOST:PORT: WHY`` for each address, in one line.

    Each address is probed with an equal share of the time left (the last one with all of
    it), so a first address that is down or never answers cannot use up the whole deadline
    and leave none for a healthy second one."""
    tls = security_protocol.upper().endswith("SSL")
    failures = []
    addresses = parse_bootstrap(bootstrap)
    for index, (host, port) in enumerate(addresses):
        share = _left(deadline) / (len(addresses) - index)
        why = probe(host, port, min(deadline, time.monotonic() + share), tls)
        if why is None:
            return (f"[{host}]:{port}" if ":" in host else f"{host}:{port}"), None
        failures.append(f"{host}:{port}: {why}")
    return None, f"cannot connect to {'; '.join(failures)}"


def probe(host: str, port: int, deadline: float, tls: bool) -> str | None:
    """None when a Kafka broker answers at ``host:port`` (with ``tls``: when the port accepts a
    connection, the handshake being the client's); else why not, in words."""
    log.debug("probing %s:%d (%s)", host, port, "TLS: connect only" if tls else "ApiVersions v0")
    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return f"cannot resolve host name {host!r} ({exc.strerror}): check the host name or DNS"
    try:
        sock = socket.create_connection((host, port), timeout=_left(deadline))
    except ConnectionRefusedError:
        return "connection refused: nothing listens on that port (check the port and that the " \
               "broker runs)"
    except TimeoutError:
        return "no answer to the connection (timed out): a host that is down or a firewall"
    except OSError as exc:
        return f"cannot connect: {exc.strerror or exc}"
    with sock:
        return None if tls else _speaks_kafka(sock, deadline)


def _speaks_kafka(sock: socket.socket, deadline: float) -> str | None:
    request = codec.api_versions_request(0)
    sock.sendall(codec.encode_frame("ApiVersionsRequest", {
        "correlation_id": _CORRELATION_ID, "client_id": "assignframe-probe"}, request, 0))
    answer, closed = _read(sock, deadline)
    if len(answer) >= 8 and struct.unpack(">ii", answer[:8])[1] == _CORRELATION_ID:
        return None
    if answer.startswith((b"HTTP/", b"<!DOCTYPE", b"<html", b"<HTML")):
        return "an HTTP server answered, not Kafka (a web, REST or metrics port?): use the " \
               "broker's Kafka listener port"
    if answer[:1] in (b"\x15", b"\x16"):
        return "the listener speaks TLS: set security.protocol=SSL (or SASL_SSL) in " \
               "--command-config"
    if answer:
        return f"the listener answered, but not as Kafka does (first bytes {answer[:8].hex()})"
    if closed:
        return "the listener closed the connection without answering a Kafka request " \
               "(a TLS listener? set security.protocol=SSL; or not Kafka)"
    return "the listener accepted the connection but answered nothing before the deadline " \
           "(not a Kafka listener, or a broker that hangs)"


def _read(sock: socket.socket, deadline: float) -> tuple[bytes, bool]:
    """What the peer sends until 8 bytes, its close or the deadline; (bytes, closed)."""
    data, nudged, started = b"", False, time.monotonic()
    while len(data) < 8 and _left(deadline) > 0:
        if not nudged and time.monotonic() - started >= _NUDGE_AFTER:
            nudged = True
            try:
                sock.sendall(b"\r\n\r\n")  # ends an HTTP request line: an HTTP server answers
            except OSError:
                return data, True
        sock.settimeout(min(_left(deadline), 0.2) or 0.01)
        try:
            chunk = sock.recv(64)
        except TimeoutError:
            continue
        except OSError:
            return data, True
        if not chunk:
            return data, True
        data += chunk
    return data, False


def _left(deadline: float) -> float:
    return max(0.0, deadline - time.monotonic())


#: reasons that are the broker's own answer refusing this client (an error code it sent)
_REFUSALS = ("IllegalSaslState", "UnsupportedSaslMechanism", "SaslAuthenticationFailed")

#: how a bootstrap reason starts when the broker closed the connection right after the client's
#: SaslAuthenticate request, without an answer (``transport._BootstrapReasons``)
SASL_UNANSWERED = "SaslAuthenticate unanswered"


#: kafka-python's reasons for a failed bootstrap connection -> what to do about it
_CLIENT_REASONS = (
    ("IllegalSaslState", "the listener does not speak SASL (the broker answered SaslHandshake "
                         "with ILLEGAL_SASL_STATE): it is a PLAINTEXT listener; set "
                         "security.protocol=PLAINTEXT or use the broker's SASL listener port"),
    ("UnsupportedSaslMechanism", "the listener does not enable sasl.mechanism {mechanism} "
                                 "(UNSUPPORTED_SASL_MECHANISM): use one the broker enables "
                                 "(sasl.enabled.mechanisms)"),
    ("SaslAuthenticationFailed", "authentication failed for user {user} (sasl.mechanism "
                                 "{mechanism}): check the user name and password"),
    (SASL_UNANSWERED, "the broker closed the connection at the SASL authentication of user "
                      "{user} (sasl.mechanism {mechanism}) without an answer, as Kafka does "
                      "when authentication fails: check the user name and password"),
    ("CERTIFICATE_VERIFY_FAILED", "the broker's TLS certificate is not trusted by the CA file "
                                  "given (ssl.truststore.location / ssl.ca.location), or its "
                                  "host name does not match (CERTIFICATE_VERIFY_FAILED)"),
    ("WRONG_VERSION_NUMBER", "TLS handshake failed: the listener does not speak TLS; set "
                             "security.protocol=PLAINTEXT (or SASL_PLAINTEXT)"),
    ("Handshake failed", "TLS handshake failed: the listener closed the connection (it does "
                         "not speak TLS? set security.protocol=PLAINTEXT or SASL_PLAINTEXT)"),
    ("RequestTimedOut", "the broker did not answer within the timeout (--timeout)"),
)


def is_refusal(reason: str) -> bool:
    """Whether a bootstrap ``reason`` is the broker's own refusal (an error code it sent)."""
    return any(marker in reason for marker in _REFUSALS)


#: reasons that say the same at every try: the broker's refusals and a certificate or a TLS
#: version the client will never accept
_DECIDED_AT_ONCE = (*_REFUSALS, "CERTIFICATE_VERIFY_FAILED", "WRONG_VERSION_NUMBER")
#: reasons that may be one connection that broke (a reset, a broker restarting): they decide
#: when a second try fails the same way. A timeout or a refused port never decides: the
#: timeout is there for them.
_DECIDED_TWICE = (SASL_UNANSWERED, "Handshake failed")


def decided(tries: list[list[str]]) -> bool:
    """Whether the failed bootstrap tries so far (each try: the reasons kafka-python logged
    for it, which are often two lines saying one thing) already say why, so that trying again
    until the timeout would only repeat it: a reason of :data:`_DECIDED_AT_ONCE` in any try,
    or one of :data:`_DECIDED_TWICE` in two tries."""
    seen = [{marker for reason in reasons for marker in (*_DECIDED_AT_ONCE, *_DECIDED_TWICE)
             if marker in reason} for reasons in tries]
    return any(markers & set(_DECIDED_AT_ONCE) for markers in seen) or \
        any(sum(marker in markers for markers in seen) > 1 for marker in _DECIDED_TWICE)


def deciding_reason(reasons: list[str]) -> str:
    """Of the reasons kafka-python gave for its failed bootstrap tries (oldest first), the one
    that says why: the first refusal the broker sent, else the first authentication the broker
    closed the connection on, else the last reason.

    A refusal decides. After a failed authentication Kafka delays, then closes the
    connection, and often sends no refusal at all: with a wrong password on Kafka 4.1 the first
    try got SASL_AUTHENTICATION_FAILED and the next eight only "socket disconnected" after
    their SaslAuthenticate, the last a request timeout; under load even the first try can get
    no answer. The retries' "socket disconnected" or timeout says nothing about the cause.
    (kafka-python does not stop retrying after an authentication failure on this path: its
    connection's ``initialize`` closes with the error instead of raising it, so the manager's
    ``_auth_failures`` is never set.)"""
    for telling in (is_refusal, lambda reason: reason.startswith(SASL_UNANSWERED)):
        found = next((r for r in reasons if telling(r)), None)
        if found is not None:
            return found
    return reasons[-1]


def client_failure(reason: str, settings: Mapping[str, object]) -> str:
    """What a kafka-python bootstrap failure ``reason`` means (the reason itself when it is not
    one of the known ones)."""
    for marker, meaning in _CLIENT_REASONS:
        if marker in reason:
            return meaning.format(user=settings.get("sasl_plain_username", "?"),
                                  mechanism=settings.get("sasl_mechanism", "?"))
    return reason
