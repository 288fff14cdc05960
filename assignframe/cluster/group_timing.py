"""The reader's configs step: the heartbeat interval and session timeout each classic group would
run with once converted to the consumer protocol, which its migration prediction assumes
(:class:`~assignframe.kip848.timing.GroupTiming`).

One DescribeConfigs per coordinator (in batches of :data:`GROUPS_PER_CONFIGS_REQUEST` groups)
asks for the coordinator's own broker resource (``group.consumer.heartbeat.interval.ms``,
``group.consumer.session.timeout.ms``) and each of its classic groups' group resource (type 32,
``consumer.heartbeat.interval.ms``, ``consumer.session.timeout.ms``: KIP-848 group configs).
A group resource answers the value the group runs with: its own override (config source
``GROUP_CONFIG``), else the broker's. Which wins: the group's override, else the broker's value
(from the group resource or the broker resource), else Kafka's default, each value with its
source. A broker that cannot say (no DescribeConfigs, an authorization error, an error for the
resource, a failed request) leaves Kafka's defaults with the reason: never a notice of its own
(the pass's exit status is the groups'), never a crash.

The same requests ask each Streams group's resource for ``streams.num.standby.replicas`` (its
standby tasks per stateful task, KIP-1071: the group's override, else the broker's
``group.streams.num.standby.replicas``), which the audit's replay of the Streams task assignor
needs; not read, it stays None (unknown).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import assignframe_codec as codec

from ..errors import BrokerError
from ..kip848.timing import BROKER_CONFIG, GROUP_CONFIG, GroupTiming

__all__ = ["read_group_timings"]

#: group resources per DescribeConfigs request (each answer is two configs, ~100 bytes)
GROUPS_PER_CONFIGS_REQUEST = 1000
#: (heartbeat interval, session timeout) keys of the broker resource and of a group resource
BROKER_KEYS = ("group.consumer.heartbeat.interval.ms", "group.consumer.session.timeout.ms")
GROUP_KEYS = ("consumer.heartbeat.interval.ms", "consumer.session.timeout.ms")
#: a Streams group resource's key: standby replicas of each stateful task
STANDBY_KEY = "streams.num.standby.replicas"
#: DescribeConfigs' config source of a group's own value (``ConfigSource.GROUP_CONFIG``)
SOURCE_GROUP_CONFIG = 8

#: what one resource's answer gave: (value, source) per key (None: not read), and why a value
#: was not read (None when both were)
_Answer = tuple[list[tuple[int, str] | None], str | None]


def read_group_timings(run: Any, groups: dict[str, Any]) -> None:
    """Set ``timing`` of every described classic group and ``standby_replicas`` of every
    described Streams group (the reader's ``GroupRead``s, whose module imports this one: hence
    no type names here); ``run`` is the reader's pass."""
    by_node: dict[int, list[Any]] = {}
    for group in groups.values():
        if group.group_type in ("classic", "streams") and group.described is not None \
                and group.coordinator is not None:
            by_node.setdefault(group.coordinator, []).append(group)
    for node, classic in sorted(by_node.items()):
        for start in range(0, len(classic), GROUPS_PER_CONFIGS_REQUEST):
            _ask(run, node, classic[start:start + GROUPS_PER_CONFIGS_REQUEST])


def _ask(run: Any, node: int, batch: list[Any]) -> None:
    version = run.supported(node, "DescribeConfigs", quiet=True)
    if version is None:
        return _default(batch, f"broker {node} does not support DescribeConfigs")
    resources: list[tuple[int, str, tuple[str, ...]]] = [
        (codec.CONFIG_RESOURCE_BROKER, str(node), BROKER_KEYS)]
    resources += [(codec.CONFIG_RESOURCE_GROUP, g.group_id,
                   GROUP_KEYS if g.group_type == "classic" else (STANDBY_KEY,)) for g in batch]
    request = codec.describe_configs_request(resources, version)
    try:
        response = run.transport.send(node, "DescribeConfigsRequest", request, version)
    except (BrokerError, codec.CodecError) as exc:
        return _default(batch, str(exc))
    answers = {(r.resource_type, r.resource_name): r for r in response.results}
    broker = _values(answers.get((codec.CONFIG_RESOURCE_BROKER, str(node))), BROKER_KEYS,
                     BROKER_CONFIG)
    for group in batch:
        found = answers.get((codec.CONFIG_RESOURCE_GROUP, group.group_id))
        if group.group_type == "streams":
            group.standby_replicas = _standby_replicas(found)
        else:
            group.timing = _timing(_values(found, GROUP_KEYS, BROKER_CONFIG), broker)


def _standby_replicas(result: Any) -> int | None:
    """A Streams group's ``streams.num.standby.replicas`` (0 or more); None when not read."""
    if result is None or result.error_code:
        return None
    value = next((c.value for c in result.configs if c.name == STANDBY_KEY), None)
    return int(value) if value is not None and value.strip().isdigit() else None


def _values(result: Any, keys: tuple[str, ...], source: str) -> _Answer:
    """What one resource's result (None: not in the answer) gave of ``keys``; a value not the
    group's own is said to come from ``source``."""
    if result is None:
        return [None, None], "no answer for the resource"
    if result.error_code:
        return [None, None], codec.error_name(result.error_code)
    found: list[tuple[int, str] | None] = []
    problems = []
    configs = {c.name: c for c in result.configs}
    for key in keys:
        config = configs.get(key)
        value = config.value if config is not None else None
        if config is None or value is None or not value.strip().isdigit() or int(value) <= 0:
            problems.append(f"no {key}" if config is None else f"{key}={value!r}")
            found.append(None)
            continue
        found.append((int(value), GROUP_CONFIG
                      if config.config_source == SOURCE_GROUP_CONFIG else source))
    return found, "; ".join(problems) or None


def _timing(group: _Answer, broker: _Answer) -> GroupTiming:
    """The group's value, else the broker's, else Kafka's default (with why neither was read),
    for the heartbeat interval and the session timeout each."""
    (group_values, group_why), (broker_values, broker_why) = group, broker
    reasons = "; ".join(f"{what}: {why}" for what, why in
                        (("broker", broker_why), ("group", group_why)) if why)
    timing = GroupTiming.default(reasons)
    chosen = [g or b for g, b in zip(group_values, broker_values, strict=True)]
    if chosen[0] is not None:
        timing = replace(timing, heartbeat_interval_ms=chosen[0][0], heartbeat_source=chosen[0][1])
    if chosen[1] is not None:
        timing = replace(timing, session_timeout_ms=chosen[1][0], session_source=chosen[1][1])
    return timing


def _default(batch: list[Any], reason: str) -> None:
    """Kafka's defaults for the classic groups (a Streams group's standby replicas: unknown)."""
    for group in batch:
        if group.group_type == "classic":
            group.timing = GroupTiming.default(reason)
