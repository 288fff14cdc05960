"""When kafka-python's failed bootstrap tries already say why (cluster/probe.py ``decided``):
the transport stops trying at that point instead of waiting out ``--timeout``. The reasons are
the ones kafka-python 3.0.12 logs, as tests/cluster/test_security.py gets them from Kafka 4.1:
one failed try is often two lines (the connection's "Connection lost: R", then the manager's
"Bootstrap connection to N failed: R"), and counts once."""

import logging

from assignframe.cluster.probe import SASL_UNANSWERED, decided, deciding_reason
from assignframe.cluster.transport import _BootstrapReasons

REFUSED = ("[Error 58] SaslAuthenticationFailed: Authentication failed during authentication "
           "due to invalid credentials with SASL mechanism PLAIN")
UNANSWERED = f"{SASL_UNANSWERED}: socket disconnected"
NOT_TLS = "Handshake failed: [SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:1006)"
UNTRUSTED = "Handshake failed: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed"
RESET = "Handshake failed: [Errno 104] Connection reset by peer"
TIMED_OUT = "[Error 7] RequestTimedOutError: Request timed out after 2000 ms"


def test_a_refusal_or_a_certificate_decides_at_once():
    for reason in (REFUSED, NOT_TLS, UNTRUSTED,
                   "[Error 34] IllegalSaslState: the listener", "UnsupportedSaslMechanism"):
        assert decided([[reason]]), reason
    assert decided([["socket disconnected"], ["socket disconnected", REFUSED]])


def test_a_reason_that_may_be_one_broken_connection_decides_the_second_try():
    for reason in (UNANSWERED, RESET):
        assert not decided([[reason, reason]]), reason  # one try, said twice
        assert decided([[reason], ["socket disconnected"], [reason]]), reason


def test_what_a_retry_may_cure_never_decides():
    # a closed port, a timeout, a broker restarting: the timeout is there for these
    assert not decided([])
    assert not decided([["[Errno 111] Connection refused"]] * 5)
    assert not decided([[TIMED_OUT, TIMED_OUT]] * 3)


def test_the_deciding_reason_is_still_the_one_said():
    assert deciding_reason(["socket disconnected", UNANSWERED, REFUSED]) == REFUSED


def _log_one_try(reason: str) -> None:
    """What kafka-python 3.0.12 logs for one failed bootstrap try."""
    logging.getLogger("kafka.net.connection").warning(
        "<KafkaConnection node_id=bootstrap-0 host=127.0.0.1:9093 <handshake>>: "
        "Connection lost: %s", reason)
    logging.getLogger("kafka.net.manager").warning(
        "Bootstrap connection to bootstrap-0 failed: %s (backoff 0.05 secs)", reason)


def test_the_transport_counts_a_try_once_however_many_lines_say_it():
    """A connection reset in one TLS handshake is two log lines: not yet decided; the same
    failure at the next try is."""
    stops: list[str] = []
    with _BootstrapReasons() as reasons:
        reasons.on_decided = lambda: stops.append("stop")
        _log_one_try(RESET)
        assert stops == [] and reasons == [RESET, RESET]
        _log_one_try(RESET)
        assert stops == ["stop"]
        _log_one_try(RESET)
        assert stops == ["stop"]  # said once
