"""The reader's configs step (assignframe.cluster.group_timing) on answers a broker may give:
which value wins, and Kafka's defaults with the reason when nothing can be read (issue 31,
item 3). Requests and answers go through the codec's bytes, as on the wire; the live broker's
answers are tests/cluster/test_group_timing_live.py's, Tansu's refusal test_tansu_live.py's."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import assignframe_codec as codec
import pytest

from assignframe.cluster.api_support import error_code
from assignframe.cluster.group_timing import read_group_timings
from assignframe.cluster.transport import TransportError
from assignframe.kip848.timing import BROKER_CONFIG, GROUP_CONFIG, GroupTiming

BROKER, GROUP = codec.CONFIG_RESOURCE_BROKER, codec.CONFIG_RESOURCE_GROUP
VERSION = 4


@dataclass
class _Group:
    group_id: str
    group_type: str | None = "classic"
    coordinator: int | None = 1
    described: Any = "described"
    timing: GroupTiming | None = None


def _config(name: str, value: str | None, source: int) -> dict[str, Any]:
    return {"name": name, "value": value, "read_only": False, "config_source": source,
            "is_sensitive": False, "synonyms": [], "config_type": 3, "documentation": None}


def _result(kind: int, name: str, configs=(), error: int = 0) -> dict[str, Any]:
    return {"error_code": error, "error_message": None, "resource_type": kind,
            "resource_name": name, "configs": list(configs)}


@dataclass
class _Transport:
    """Answers DescribeConfigs with ``results`` (through the codec's bytes), or fails."""

    results: list[dict[str, Any]] = field(default_factory=list)
    failure: Exception | None = None
    asked: list[Any] = field(default_factory=list)

    def send(self, node: int, kind: str, request: Any, version: int) -> Any:
        self.asked.append(codec.decode(kind, codec.encode(kind, request, version), version))
        if self.failure is not None:
            raise self.failure
        body = codec.encode("DescribeConfigsResponse",
                            {"throttle_time_ms": 0, "results": self.results}, version)
        return codec.decode("DescribeConfigsResponse", body, version)


@dataclass
class _Run:
    transport: _Transport
    version: int | None = VERSION

    def supported(self, node: int, api: str, quiet: bool = False) -> int | None:
        assert api == "DescribeConfigs" and quiet  # a missing API is no notice of its own
        return self.version


def _broker(heartbeat: str = "500", session: str = "6000") -> dict[str, Any]:
    return _result(BROKER, "1", [_config("group.consumer.heartbeat.interval.ms", heartbeat, 4),
                                 _config("group.consumer.session.timeout.ms", session, 4)])


def _read(run: _Run, *groups: _Group) -> dict[str, _Group]:
    by_id = {g.group_id: g for g in groups}
    read_group_timings(run, by_id)
    return by_id


def test_one_request_per_coordinator_asks_the_broker_and_each_classic_group():
    transport = _Transport([_broker()])
    groups = _read(_Run(transport), _Group("a"), _Group("b"), _Group("c", "consumer"),
                   _Group("d", described=None))
    [request] = transport.asked
    asked = [(r.resource_type, r.resource_name, r.configuration_keys) for r in request.resources]
    assert asked == [
        (BROKER, "1", ("group.consumer.heartbeat.interval.ms",
                       "group.consumer.session.timeout.ms")),
        (GROUP, "a", ("consumer.heartbeat.interval.ms", "consumer.session.timeout.ms")),
        (GROUP, "b", ("consumer.heartbeat.interval.ms", "consumer.session.timeout.ms"))]
    # no group resource answered: the broker's values, said as the broker's
    assert groups["a"].timing == GroupTiming(500, 6000, BROKER_CONFIG, BROKER_CONFIG)
    assert groups["c"].timing is None and groups["d"].timing is None  # not classic / not read


def test_a_group_override_wins_and_a_group_answer_without_one_is_the_brokers():
    transport = _Transport([
        _broker(),
        _result(GROUP, "a", [_config("consumer.heartbeat.interval.ms", "1200", 8),  # its own
                             _config("consumer.session.timeout.ms", "6000", 5)]),
        _result(GROUP, "b", [_config("consumer.heartbeat.interval.ms", "500", 5),
                             _config("consumer.session.timeout.ms", "6000", 5)])])
    groups = _read(_Run(transport), _Group("a"), _Group("b"))
    assert groups["a"].timing == GroupTiming(1200, 6000, GROUP_CONFIG, BROKER_CONFIG)
    assert groups["a"].timing.source == (f"heartbeat interval: {GROUP_CONFIG}; "
                                         f"session timeout: {BROKER_CONFIG}")
    assert groups["b"].timing == GroupTiming(500, 6000, BROKER_CONFIG, BROKER_CONFIG)


def test_authorization_errors_leave_kafkas_defaults_with_the_reasons():
    transport = _Transport([
        _result(BROKER, "1", error=error_code("CLUSTER_AUTHORIZATION_FAILED")),
        _result(GROUP, "a", error=error_code("GROUP_AUTHORIZATION_FAILED"))])
    groups = _read(_Run(transport), _Group("a"))
    timing = groups["a"].timing
    assert (timing.heartbeat_interval_ms, timing.session_timeout_ms) == (5000, 45000)
    assert timing.source == ("Kafka default (configs not readable: broker: "
                             "CLUSTER_AUTHORIZATION_FAILED; group: GROUP_AUTHORIZATION_FAILED)")


@pytest.mark.parametrize(("run", "reason"), [
    (_Run(_Transport(), version=None), "broker 1 does not support DescribeConfigs"),
    (_Run(_Transport(failure=TransportError("DescribeConfigsRequest v4 to broker 1 failed: "
                                            "socket disconnected"))),
     "DescribeConfigsRequest v4 to broker 1 failed: socket disconnected"),
])
def test_a_broker_that_cannot_say_leaves_kafkas_defaults(run, reason):
    groups = _read(run, _Group("a"))
    assert groups["a"].timing == GroupTiming.default(reason)
    assert groups["a"].timing.as_dict() == {
        "heartbeat_interval_ms": 5000, "session_timeout_ms": 45000,
        "timing_source": f"Kafka default (configs not readable: {reason})"}


def test_a_value_that_is_not_a_positive_number_is_not_used():
    transport = _Transport([_broker(heartbeat="soon", session="0")])
    timing = _read(_Run(transport), _Group("a"))["a"].timing
    assert (timing.heartbeat_interval_ms, timing.session_timeout_ms) == (5000, 45000)
    assert timing.source == (
        "Kafka default (configs not readable: broker: group.consumer.heartbeat.interval.ms="
        "'soon'; group.consumer.session.timeout.ms='0'; group: no answer for the resource)")
