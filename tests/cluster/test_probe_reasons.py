"""When kafka-python's failed bootstrap tries already say why (cluster/probe.py ``decided``):
the transport stops trying at that point instead of waiting out ``--timeout``. The reasons are
the ones kafka-python 3.0.12 logs, as tests/cluster/test_security.py gets them from Kafka 4.1."""

from assignframe.cluster.probe import SASL_UNANSWERED, decided, deciding_reason

REFUSED = ("[Error 58] SaslAuthenticationFailed: Authentication failed during authentication "
           "due to invalid credentials with SASL mechanism PLAIN")
UNANSWERED = f"{SASL_UNANSWERED}: socket disconnected"
NOT_TLS = "Handshake failed: [SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:1006)"
UNTRUSTED = "Handshake failed: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed"
CLOSED_TLS = "Handshake failed: EOF occurred in violation of protocol (_ssl.c:992)"


def test_a_refusal_or_a_certificate_decides_at_once():
    for reason in (REFUSED, NOT_TLS, UNTRUSTED,
                   "[Error 34] IllegalSaslState: the listener", "UnsupportedSaslMechanism"):
        assert decided([reason]), reason
    assert decided(["socket disconnected", REFUSED])


def test_a_reason_that_may_be_one_broken_connection_decides_the_second_time():
    for reason in (UNANSWERED, CLOSED_TLS):
        assert not decided([reason]), reason
        assert decided([reason, "socket disconnected", reason]), reason


def test_what_a_retry_may_cure_never_decides():
    # a closed port, a timeout, a broker restarting: the timeout is there for these
    assert not decided([])
    assert not decided(["[Errno 111] Connection refused"] * 5)
    assert not decided(["socket disconnected", "Request timed out"] * 3)


def test_the_deciding_reason_is_still_the_one_said():
    assert deciding_reason(["socket disconnected", UNANSWERED, REFUSED]) == REFUSED
