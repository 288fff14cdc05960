"""A loopback Kafka-protocol responder for the cluster reader's paths no local broker serves:
share and streams groups, a coordinator that moves during a pass, an API a broker lacks.

Every response body is made by Apache Kafka's Java classes: the golden bodies of
``shared/golden/admin`` and ``shared/golden/kip848`` (their READMEs say how they were made).
Where a body must say something of this cluster (its brokers' ports, the group asked for, an
error code), the golden body is decoded through the codec, the fields named are replaced
(:func:`dataclasses.replace`), and the codec encodes it again; frames are the codec's
``encode_frame`` with the request's correlation id. No body byte is written by hand, and every
golden body used is first checked to re-encode to Java's bytes exactly.

:class:`LoopbackCluster` runs one :class:`_Node` per broker id (a listening socket on 127.0.0.1
and a thread per connection). What it answers is set by its attributes: ``groups`` (group id ->
type and the golden describe body), ``lacks`` (node -> API names left out of ApiVersions),
``coordinators`` (group id -> the node ids FindCoordinator answers, in turn, the last one kept)
and ``errors`` ((node, API, group id) -> error names answered in turn before the real answer).
``log`` lists every request received: (node, API, version, group ids it named).
"""

from __future__ import annotations

import json
import socket
import struct
import threading
from collections import defaultdict
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

import assignframe_codec as codec

from assignframe.cluster.api_support import error_code
from assignframe.testing.paths import shared_path

__all__ = ["GoldenGroup", "LoopbackCluster", "classic_group", "counts", "failures", "golden_body",
           "golden_line", "golden_lines", "kip848_group"]

#: The versions this responder answers (every one has golden bodies, and the reader's codec
#: speaks it): what its ApiVersions announces, less ``lacks``
VERSIONS = {"ApiVersions": (0, 4), "Metadata": (0, 12), "ListGroups": (5, 5),
            "FindCoordinator": (4, 6), "DescribeGroups": (5, 5), "ConsumerGroupDescribe": (1, 1),
            "ShareGroupDescribe": (1, 1), "StreamsGroupDescribe": (1, 1),
            "OffsetFetch": (8, 8), "ListOffsets": (1, 10)}
#: The group types' describe APIs (Kafka's names)
DESCRIBE = {"classic": "DescribeGroups", "consumer": "ConsumerGroupDescribe",
            "share": "ShareGroupDescribe", "streams": "StreamsGroupDescribe"}
#: ListGroups v5's protocol type of each type (the coordinator's: a classic consumer group's
#: is ``consumer``; the others' are their type's name)
PROTOCOL_TYPE = {"classic": "consumer", "consumer": "consumer", "share": "share",
                 "streams": "streams"}


@cache
def golden_lines() -> dict[tuple[str, int, str], dict[str, Any]]:
    lines: dict[tuple[str, int, str], dict[str, Any]] = {}
    root = shared_path(__file__) / "golden"
    for name in ("admin/codec.jsonl", "kip848/codec.jsonl"):
        with open(root / name, encoding="utf-8") as f:
            for text in f:
                line = json.loads(text)
                if line["kind"] == "api":
                    lines[(line["type"], line["version"], line["case"])] = line
    return lines


def golden_line(kind: str, version: int, case: str) -> dict[str, Any]:
    """The golden line of ``kind`` at ``version``, case ``case`` (KeyError when absent)."""
    return golden_lines()[(kind, version, case)]


def golden_body(kind: str, version: int, case: str) -> Any:
    """A golden body decoded through the codec, after checking that the codec encodes it back
    to Java's bytes exactly (so every adapted body starts from Java's own)."""
    data = bytes.fromhex(golden_line(kind, version, case)["hex"])
    body = codec.decode(kind, data, version)
    if codec.encode(kind, body, version) != data:
        raise AssertionError(f"{kind} v{version} {case}: the codec does not re-encode Java's bytes")
    return body


def _case_with(kind: str, version: int, collection: str) -> Any:
    """The first golden body of ``kind``/``version`` whose ``collection`` is not empty: the
    template whose elements adapted bodies are made of."""
    for case in ("rand_02", "rand_03", "rand_04", "rand_05", "rand_06", "rand_07", "rand_08",
                 "rand_09", "extremes_01"):
        if (kind, version, case) in golden_lines():
            body = golden_body(kind, version, case)
            if getattr(body, collection):
                return body
    raise LookupError(f"no golden {kind} v{version} with {collection}")


@dataclass
class GoldenGroup:
    """A group the responder knows: its type and the golden describe body's group (already
    named for this group, error 0), and its committed offsets' golden OffsetFetch group."""

    group_id: str
    group_type: str
    described: Any
    state: str = "Stable"
    offsets: Any = None


def classic_group(group_id: str = "orders-processor") -> GoldenGroup:
    """Java's Stable classic group (``real_classic_stable``: three sticky members, topics
    shipments and user-events) and its committed offsets (``real_offset_fetch_two_groups``)."""
    described = golden_body("DescribeGroupsResponse", 5, "real_classic_stable").groups[0]
    offsets = golden_body("OffsetFetchResponse", 8, "real_offset_fetch_two_groups").groups[0]
    return GoldenGroup(group_id, "classic", replace(described, group_id=group_id),
                       offsets=replace(offsets, group_id=group_id))


def kip848_group(group_type: str, group_id: str, case: str = "rand_06",
                 state: str = "Stable") -> GoldenGroup:
    """A consumer, share or streams group of the kip848 golden describe bodies (v1), its
    group-level error cleared, its id and state set: members, assignments and tasks are
    Java's as written."""
    kind = f"{DESCRIBE[group_type]}Response"
    described = golden_body(kind, 1, case).groups[0]
    described = replace(described, group_id=group_id, error_code=0, error_message=None,
                        group_state=state)
    return GoldenGroup(group_id, group_type, described, state)


@dataclass
class LoopbackCluster:
    """Brokers on 127.0.0.1 answering with Java's bytes (see the module's docstring)."""

    node_ids: tuple[int, ...] = (1,)
    groups: dict[str, GoldenGroup] = field(default_factory=dict)
    topics: dict[str, int] = field(default_factory=lambda: {"shipments": 3, "user-events": 6})
    lacks: dict[int, set[str]] = field(default_factory=dict)
    coordinators: dict[str, list[int]] = field(default_factory=dict)
    errors: dict[tuple[int, str, str], list[str]] = field(default_factory=dict)
    log: list[tuple[int, str, int, tuple[str, ...]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self.nodes = {node: _Node(self, node) for node in self.node_ids}

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.nodes[self.node_ids[0]].port}"

    def add(self, *groups: GoldenGroup) -> LoopbackCluster:
        for group in groups:
            self.groups[group.group_id] = group
        return self

    def requests(self, api: str) -> list[tuple[int, tuple[str, ...]]]:
        """(node, group ids) of every ``api`` request received, in order."""
        with self.lock:
            return [(node, ids) for node, name, _, ids in self.log if name == api]

    def close(self) -> None:
        for node in self.nodes.values():
            node.close()

    def __enter__(self) -> LoopbackCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ answers
    def answer(self, node: int, kind: str, version: int, body: Any) -> Any:
        api = kind.removesuffix("Request")
        ids = _group_ids(api, body)
        with self.lock:
            self.log.append((node, api, version, ids))
        return getattr(self, f"_{api}")(node, version, body)

    def _next_error(self, node: int, api: str, group_id: str) -> int:
        with self.lock:
            queued = self.errors.get((node, api, group_id))
            return error_code(queued.pop(0)) if queued else 0

    def _ApiVersions(self, node: int, version: int, body: Any) -> Any:
        base = _case_with("ApiVersionsResponse", version, "api_keys")
        template = base.api_keys[0]
        keys = tuple(replace(template, api_key=codec.api_key(api), min_version=low,
                             max_version=high)
                     for api, (low, high) in VERSIONS.items()
                     if api not in self.lacks.get(node, set()))
        if version < 3:
            return replace(base, error_code=0, api_keys=keys, throttle_time_ms=0)
        return replace(base, error_code=0, api_keys=keys, throttle_time_ms=0,
                       supported_features=(), finalized_features_epoch=-1,
                       finalized_features=(), zk_migration_ready=False)

    def _Metadata(self, node: int, version: int, body: Any) -> Any:
        base = _case_with("MetadataResponse", version, "topics")
        broker, topic = base.brokers[0], base.topics[0]
        partition = next(t.partitions[0] for t in _case_with(
            "MetadataResponse", version, "topics").topics if t.partitions)
        brokers = tuple(replace(broker, node_id=n, host="127.0.0.1", port=self.nodes[n].port,
                                rack=None) for n in self.node_ids)
        leader = self.node_ids[0]
        topics = tuple(replace(topic, error_code=0, name=name, is_internal=False, partitions=tuple(
            replace(partition, error_code=0, partition_index=i, leader_id=leader,
                    replica_nodes=(leader,), isr_nodes=(leader,), offline_replicas=())
            for i in range(count))) for name, count in self.topics.items())
        changes: dict[str, Any] = {"brokers": brokers, "topics": topics, "throttle_time_ms": 0}
        if version >= 1:
            changes["controller_id"] = leader
        if version >= 13:
            changes["error_code"] = 0
        return replace(base, **changes)

    def _ListGroups(self, node: int, version: int, body: Any) -> Any:
        base = golden_body("ListGroupsResponse", 5, "real_list_groups_classic_and_consumer")
        template = base.groups[0]
        listed = tuple(replace(template, group_id=g.group_id, group_state=g.state,
                               protocol_type=PROTOCOL_TYPE[g.group_type], group_type=g.group_type)
                       for g in self.groups.values() if self._coordinator_now(g.group_id) == node)
        return replace(base, groups=listed)

    def _coordinator_now(self, group_id: str) -> int:
        turns = self.coordinators.get(group_id)
        return turns[0] if turns else self.node_ids[0]

    def _FindCoordinator(self, node: int, version: int, body: Any) -> Any:
        base = _case_with("FindCoordinatorResponse", version, "coordinators")
        template = base.coordinators[0]
        found = []
        for key in body.coordinator_keys:
            code = self._next_error(node, "FindCoordinator", key)
            with self.lock:  # an error answer names no node and uses up no turn
                turns = self.coordinators.get(key)
                target = turns.pop(0) if turns and len(turns) > 1 and not code \
                    else self._coordinator_now(key)
            found.append(replace(template, key=key, node_id=target, host="127.0.0.1",
                                 port=self.nodes[target].port, error_code=code,
                                 error_message=None))
        return replace(base, throttle_time_ms=0, coordinators=tuple(found))

    def _describe(self, node: int, api: str, ids: tuple[str, ...], not_found: Any) -> Any:
        answered = []
        for group_id in ids:
            group = self.groups.get(group_id)
            code = self._next_error(node, api, group_id)
            if code or group is None or DESCRIBE[group.group_type] != api:
                # GROUP_ID_NOT_FOUND: Kafka's answer to a describe of another type's group
                code = code or error_code("GROUP_ID_NOT_FOUND")
                answered.append(replace(not_found, group_id=group_id, error_code=code))
            else:
                answered.append(group.described)
        return answered

    def _DescribeGroups(self, node: int, version: int, body: Any) -> Any:
        base = golden_body("DescribeGroupsResponse", 5, "real_group_authorization_failed")
        return replace(base, groups=tuple(self._describe(
            node, "DescribeGroups", tuple(body.groups), base.groups[0])))

    def _group_describe(self, node: int, api: str, version: int, body: Any) -> Any:
        base = golden_body(f"{api}Response", version, "min_00")
        template = _case_with(f"{api}Response", version, "groups").groups[0]
        empty = replace(template, members=(), error_message=None, group_state="Dead")
        return replace(base, groups=tuple(self._describe(node, api, tuple(body.group_ids),
                                                         empty)))

    def _ConsumerGroupDescribe(self, node: int, version: int, body: Any) -> Any:
        return self._group_describe(node, "ConsumerGroupDescribe", version, body)

    def _ShareGroupDescribe(self, node: int, version: int, body: Any) -> Any:
        return self._group_describe(node, "ShareGroupDescribe", version, body)

    def _StreamsGroupDescribe(self, node: int, version: int, body: Any) -> Any:
        return self._group_describe(node, "StreamsGroupDescribe", version, body)

    def _OffsetFetch(self, node: int, version: int, body: Any) -> Any:
        base = golden_body("OffsetFetchResponse", 8, "real_offset_fetch_two_groups")
        answered = []
        for asked in body.groups:
            group = self.groups.get(asked.group_id)
            code = self._next_error(node, "OffsetFetch", asked.group_id)
            if group is not None and group.group_type == "share" and not code:
                # Kafka's ShareGroup.validateOffsetFetch: "Group %s is not a consumer group."
                code = error_code("GROUP_ID_NOT_FOUND")
            if group is not None and group.offsets is not None and not code:
                answered.append(group.offsets)
            else:
                answered.append(replace(base.groups[1], group_id=asked.group_id, topics=(),
                                        error_code=code))
        return replace(base, groups=tuple(answered))

    def _ListOffsets(self, node: int, version: int, body: Any) -> Any:
        base = _case_with("ListOffsetsResponse", version, "topics")
        topic = base.topics[0]
        partition = next(t.partitions[0] for t in base.topics if t.partitions)
        topics = tuple(replace(topic, name=t.name, partitions=tuple(
            replace(partition, partition_index=p.partition_index, error_code=0, timestamp=-1,
                    offset=100_000) for p in t.partitions)) for t in body.topics)
        return replace(base, throttle_time_ms=0, topics=topics)


def _group_ids(api: str, body: Any) -> tuple[str, ...]:
    if api == "FindCoordinator":
        return tuple(body.coordinator_keys)
    if api == "DescribeGroups":
        return tuple(body.groups)
    if api in ("ConsumerGroupDescribe", "ShareGroupDescribe", "StreamsGroupDescribe"):
        return tuple(body.group_ids)
    if api == "OffsetFetch" and getattr(body, "groups", None):
        return tuple(g.group_id for g in body.groups)
    return ()


class _Node:
    """One broker: a listening socket and a thread per connection, frames in and out through
    the codec."""

    def __init__(self, cluster: LoopbackCluster, node_id: int) -> None:
        self.cluster, self.node_id = cluster, node_id
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.connections: list[socket.socket] = []
        self.failures: list[str] = []
        threading.Thread(target=self._accept, daemon=True,
                         name=f"responder-{node_id}").start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return  # closed
            self.connections.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            while True:
                head = _read(conn, 4)
                if head is None:
                    return
                frame = head + (_read(conn, struct.unpack(">i", head)[0]) or b"")
                try:
                    request = codec.decode_frame(frame)
                    kind = request.kind.removesuffix("Request") + "Response"
                    body = self.cluster.answer(self.node_id, request.kind, request.version,
                                               request.body)
                    reply = codec.encode_frame(
                        kind, {"correlation_id": request.header.correlation_id}, body,
                        request.version)
                except Exception as exc:  # said to the test through ``failures``; the
                    # connection is closed, as a broker closes it on a request it cannot read
                    self.failures.append(f"{type(exc).__name__}: {exc}")
                    return
                conn.sendall(reply)

    def close(self) -> None:
        self.server.close()
        for conn in self.connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()


def _read(conn: socket.socket, size: int) -> bytes | None:
    data = bytearray()
    while len(data) < size:
        try:
            chunk = conn.recv(size - len(data))
        except OSError:
            return None
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def failures(cluster: LoopbackCluster) -> list[str]:
    """What the responder could not answer (every test asserts none)."""
    return [f"node {n}: {f}" for n, node in cluster.nodes.items() for f in node.failures]


def counts(cluster: LoopbackCluster) -> dict[str, int]:
    """Requests received per API."""
    found: dict[str, int] = defaultdict(int)
    for _, api, _, _ in cluster.log:
        found[api] += 1
    return dict(found)
