"""Group files: one group's subscriptions as JSON or YAML, for ``assignframe assign``.

Schema (docs/cli.md has the full description)::

    strategy: range                 # optional; --strategy overrides
    group_type: classic             # optional: classic (default) or consumer (KIP-848: the
                                    # strategy is a server assignor, server:uniform ...)
    options: {}                     # optional strategy options; --option k=v adds to them
    generation: 1                   # optional, the generation being created (default 1)
    partitions_per_topic: {t0: 3, t1: 2}
    partition_racks: {t0: [[r0], [r1], [r0, r1]]}   # optional (KIP-881)
    lags: {t0: [10, 0, 5]}          # optional, lag of each partition
    members:
      C0: {topics: [t0, t1], rack: r0, group_instance_id: null,
           owned_partitions: [[t0, 0]], generation: 1, user_data_hex: null}
      C1: {topics: [t0]}
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..classic.protocol import UserDataReader
from ..classic.wire import WIRE_VERSION
from ..errors import ScenarioError
from ..jsonview import load_yaml, loads
from ..model import GroupSubscription, Member, TopicPartition, count_error, group_size_error
from ..plugins.manager import PluginManager
from ..snapshot.schema import GROUP_SNAPSHOT_TYPES
from ..strategy import Strategy
from .scenario import cluster_of, lags_of

__all__ = ["GroupFile", "group_subscription", "read_group_file"]

_MEMBER_KEYS = {
    "topics",
    "rack",
    "group_instance_id",
    "owned_partitions",
    "generation",
    "user_data_hex",
}


@dataclass(frozen=True)
class GroupFile:
    """A parsed group file: the document and where it came from."""

    document: Mapping[str, Any]
    source: str

    @property
    def strategy(self) -> str | None:
        return self.document.get("strategy")

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.document.get("options") or {})

    @property
    def group_type(self) -> str:
        """``classic`` (a client strategy assigns) or ``consumer`` (the broker's assignor)."""
        return str(self.document.get("group_type") or "classic")


def read_group_file(path: str | os.PathLike[str], text: str | None = None) -> GroupFile:
    """Parse and check a group file (JSON, else YAML); ``text`` given = don't read ``path``."""
    source = str(path)
    try:
        content = text if text is not None else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"{source}: cannot read: {exc.strerror or exc}") from exc
    try:
        document = loads(content)
    except json.JSONDecodeError:
        try:
            document = load_yaml(content)
        except yaml.YAMLError as exc:
            raise ScenarioError(f"{source}: neither JSON nor YAML: {exc}") from exc
    _check(document, source)
    return GroupFile(document, source)


def _check(document: Any, source: str) -> None:
    def fail(field: str, problem: str) -> None:
        raise ScenarioError(f"{source}: {field}: {problem}")

    if not isinstance(document, dict):
        fail("<top level>", "expected an object")
    counts = document.get("partitions_per_topic")
    if not isinstance(counts, dict):
        fail("partitions_per_topic", "expected {topic: partition count}")
    for topic, n in counts.items():
        problem = count_error(n)
        if problem:
            fail(f"partitions_per_topic[{topic!r}]", problem)
    too_large = group_size_error(counts)
    if too_large:
        fail("partitions_per_topic", too_large)
    if not isinstance(document.get("options", {}) or {}, dict):
        fail("options", "expected an object")
    if document.get("group_type", "classic") not in GROUP_SNAPSHOT_TYPES:
        fail("group_type", f"expected one of {', '.join(GROUP_SNAPSHOT_TYPES)}")
    members = document.get("members")
    if not isinstance(members, dict):
        fail("members", "expected {member_id: {topics: [...]}}")
    for member_id, spec in members.items():
        if not isinstance(spec, dict) or not isinstance(spec.get("topics"), list):
            fail(f"members.{member_id}.topics", "expected a list of topic names")
        unknown = set(spec) - _MEMBER_KEYS
        if unknown:
            fail(
                f"members.{member_id}.{sorted(unknown)[0]}",
                f"unknown key (known: {sorted(_MEMBER_KEYS)})",
            )
        _check_owned(
            spec.get("owned_partitions", []), f"members.{member_id}.owned_partitions", fail
        )


def _check_owned(owned: Any, field: str, fail: Any) -> None:
    pairs_ok = isinstance(owned, list) and all(
        isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and isinstance(p[1], int)
        for p in owned
    )
    if not pairs_ok:
        fail(field, "expected [[topic, partition], ...]")


def group_subscription(
    group_file: GroupFile, strategy: Strategy | None, pm: PluginManager
) -> GroupSubscription:
    """The GroupSubscription a group file describes; user data is decoded through ``pm`` by
    ``strategy`` (None: a consumer-protocol group, which has no user data)."""
    document = group_file.document
    where = f"group file {group_file.source}"
    read = None if strategy is None else UserDataReader(pm, strategy, where)
    members = {
        member_id: _member(member_id, spec, read, group_file.source)
        for member_id, spec in document["members"].items()
    }
    return GroupSubscription(
        members,
        cluster_of(document["partitions_per_topic"], document.get("partition_racks")),
        generation=int(document.get("generation", 1)),
        options={**group_file.options, **(strategy.options if strategy else {})},
        lags=lags_of(document.get("lags")),
    )


def _member(
    member_id: str, spec: Mapping[str, Any], read: UserDataReader | None, source: str
) -> Member:
    """One member as the leader reads it: user data the strategy cannot read counts as none,
    with one warning (the leader's rule, :class:`~assignframe.classic.protocol.UserDataReader`)."""
    user_data_hex = spec.get("user_data_hex")
    try:
        sent = None if user_data_hex is None else bytes.fromhex(user_data_hex)
    except (TypeError, ValueError) as exc:
        raise ScenarioError(f"{source}: members.{member_id}.user_data_hex: not hex") from exc
    user_data, decoded = (sent, None) if read is None else read(member_id, sent, WIRE_VERSION)
    return Member(
        member_id=member_id,
        topics=tuple(spec["topics"]),
        owned_partitions=tuple(TopicPartition(t, p) for t, p in spec.get("owned_partitions", [])),
        generation=int(spec.get("generation", -1)),
        group_instance_id=spec.get("group_instance_id"),
        rack=spec.get("rack"),
        user_data=user_data,
        decoded_user_data=decoded,
    )
