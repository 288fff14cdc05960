"""One read-only pass over a cluster: brokers, topics, groups, their members and offsets.

The order follows what each answer makes possible: ApiVersions (what each broker speaks),
Metadata (brokers and their racks, topics, partition leaders), ListGroups on every broker,
FindCoordinator for every group in batches, then per coordinator DescribeGroups (classic) and
ConsumerGroupDescribe (consumer protocol) in batches, OffsetFetch in batches, ListOffsets per
partition leader for the end offsets lag is measured against, and DescribeConfigs per
coordinator for the heartbeat interval and session timeout of its classic groups
(:mod:`.group_timing`).

Faults: NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE and COORDINATOR_LOAD_IN_PROGRESS are retried
(with the coordinator looked up again) until the deadline; GROUP_ID_NOT_FOUND from one describe
API means the group is of the other type; an API a broker lacks is said once (which API, which
broker) and the pass goes on without it. A group that could not be read keeps its problem
(:attr:`GroupRead.problems`): nothing downstream may show it as healthy.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import assignframe_codec as codec

from ..kip848.timing import GroupTiming
from ..model import TopicPartition
from ..snapshot.schema import GROUP_TYPES
from .api_support import API_VERSIONS_BOOTSTRAP, GROUPS_PER_REQUEST, ApiSupport, error_code
from .group_records import GroupMetadataLog, RecordedGroup, offsets_partition
from .group_timing import read_group_timings
from .share_offsets import read_share_offsets
from .transport import BrokerNode, Transport, TransportError

__all__ = ["ClusterRead", "GroupFilter", "GroupRead", "read_cluster"]

_RETRIABLE = {error_code(n) for n in ("NOT_COORDINATOR", "COORDINATOR_NOT_AVAILABLE",
                                      "COORDINATOR_LOAD_IN_PROGRESS")}
_NOT_FOUND = error_code("GROUP_ID_NOT_FOUND")
_DESCRIBE_API = {"classic": "DescribeGroups", "consumer": "ConsumerGroupDescribe",
                 "share": "ShareGroupDescribe", "streams": "StreamsGroupDescribe"}


@dataclass(frozen=True)
class GroupFilter:
    """Which groups a pass reads: ``pattern`` (one or more comma-separated items, each a plain
    group id, matched exactly, or a regular expression searched in the id), ``types``."""

    pattern: str | None = None
    types: tuple[str, ...] = GROUP_TYPES

    @property
    def items(self) -> tuple[str, ...]:
        """The comma-separated items (a comma inside ``{m,n}`` stays in its regex)."""
        if not self.pattern:
            return ()
        return tuple(i.strip() for i in re.split(r",(?![^{]*\})", self.pattern) if i.strip())

    @property
    def ids(self) -> tuple[str, ...]:
        """The items that are plain group ids: read even if ListGroups does not list them
        (some brokers list no groups, e.g. Tansu 0.6.0's ListGroups v0)."""
        return tuple(i for i in self.items if re.fullmatch(r"[\w.\-]+", i))

    def wants(self, group_id: str, group_type: str | None) -> bool:
        if self.items and group_id not in self.ids and not any(
                re.search(i, group_id) for i in self.items if i not in self.ids):
            return False
        return group_type is None or group_type in self.types


@dataclass
class GroupRead:
    """What the pass learnt of one group (``described`` is the codec's DescribedGroup)."""

    group_id: str
    group_type: str | None = None
    state: str | None = None
    protocol_type: str = ""
    coordinator: int | None = None
    described: Any = None
    committed: dict[TopicPartition, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    #: classic: the group's last GroupMetadataValue in __consumer_offsets (its generation)
    recorded: RecordedGroup | None = None
    #: False for a group asked for by id, or known from before (``known``), that ListGroups
    #: did not list
    listed: bool = True
    #: share groups: partition -> (start offset, lag) as DescribeShareGroupOffsets said (-1:
    #: unknown); None when not read (see share_offsets_error)
    share_offsets: dict[TopicPartition, tuple[int, int]] | None = None
    share_offsets_error: str | None = None
    #: classic: the heartbeat interval and session timeout it would run with once converted
    #: (DescribeConfigs; Kafka's defaults with the reason when not readable); None: not asked
    timing: GroupTiming | None = None
    #: Streams: the group's ``streams.num.standby.replicas`` (DescribeConfigs); None: not read
    standby_replicas: int | None = None


@dataclass
class ClusterRead:
    """Everything one pass read."""

    bootstrap: str
    observed_at: float
    brokers: dict[int, BrokerNode] = field(default_factory=dict)
    partitions: dict[str, int] = field(default_factory=dict)
    replica_racks: dict[TopicPartition, tuple[str, ...]] = field(default_factory=dict)
    end_offsets: dict[TopicPartition, int] = field(default_factory=dict)
    groups: list[GroupRead] = field(default_factory=list)
    #: what could not be read (exit 1 in inspect)
    notices: list[str] = field(default_factory=list)
    #: what was left unknown on purpose, e.g. generations not read within their budget (no
    #: exit status of its own)
    notes: list[str] = field(default_factory=list)


class _Pass:
    """The state of one pass: transport, deadline, what each broker speaks, notices said."""

    def __init__(self, transport: Transport, read: ClusterRead) -> None:
        self.transport, self.read = transport, read
        self.deadline = time.monotonic() + transport.timeout_s
        self.support: dict[int | str, ApiSupport] = {}
        self.said: set[tuple[str, int | str]] = set()
        self.leaders: dict[TopicPartition, int] = {}

    def supported(self, node: int | str, api: str, quiet: bool = False) -> int | None:
        """The version of ``api`` to use with ``node``; None (said once, unless ``quiet``:
        the caller says what it does without) when it has none."""
        support = self.support.get(node) or self._api_versions(node)
        version = support.version(api)
        if version is None and not quiet and (api, node) not in self.said:
            self.said.add((api, node))
            self.read.notices.append(f"broker {node} ({support.address}) does not support "
                                     f"{api}: what it answers is not read")
        return version

    def _api_versions(self, node: int | str) -> ApiSupport:
        version = API_VERSIONS_BOOTSTRAP
        request = codec.api_versions_request(version, client_software_name="assignframe",
                                             client_software_version=codec.__version__)
        response = self.transport.send(node, "ApiVersionsRequest", request, version)
        broker = self.read.brokers.get(node) if isinstance(node, int) else None
        support = ApiSupport(node, broker.address if broker else self.transport.bootstrap,
                             {k.api_key: (k.min_version, k.max_version)
                              for k in response.api_keys})
        self.support[node] = support
        return support

    def send(self, node: int | str, api: str, build: Callable[[int], Any]) -> Any | None:
        version = self.supported(node, api)
        if version is None:
            return None
        return self.transport.send(node, f"{api}Request", build(version), version)

    def backoff(self, attempt: int) -> bool:
        """Sleep before retry ``attempt``; False when the deadline leaves no time for it."""
        pause = min(1.0, 0.05 * 2 ** attempt)
        if time.monotonic() + pause >= self.deadline:
            return False
        time.sleep(pause)
        return True


def read_cluster(transport: Transport, wanted: GroupFilter = GroupFilter(),
                 group_log: GroupMetadataLog | None = None,
                 known: dict[str, str | None] | None = None) -> ClusterRead:
    """One pass over the cluster behind ``transport`` (see the module's docstring).

    :param group_log: where classic groups' generations are read (``__consumer_offsets``);
        None: they stay unknown
    :param known: groups to read even when ListGroups does not list them (id -> type, None:
        not known), so a group is said to be gone only when its coordinator says so: a broker
        that is not (yet) coordinator of a partition leaves its groups out of ListGroups
        without an error (Kafka 4.1 just after a restart); one its coordinator does not know
        either is :func:`~assignframe.cluster.inspection.absent` (gone)
    """
    read = ClusterRead(transport.bootstrap, time.time())
    run = _Pass(transport, read)
    _metadata(run)
    groups = _list_groups(run, wanted)
    for group_id, group_type in (known or {}).items():
        if group_id not in groups and wanted.wants(group_id, group_type):
            groups[group_id] = GroupRead(group_id, group_type, listed=False)
    _find_coordinators(run, groups)
    _describe(run, groups)
    if group_log is not None:
        _recorded(run, groups, group_log)
    _offsets(run, groups)
    read_share_offsets(run, groups)
    _end_offsets(run, groups)
    read_group_timings(run, groups)  # last: a broker may close the connection on it (Tansu)
    read.groups = sorted(groups.values(), key=lambda g: g.group_id)
    return read


# --------------------------------------------------------------------------- metadata
def _metadata(run: _Pass) -> None:
    node = run.transport.any_node()
    response = run.send(node, "Metadata", lambda v: codec.metadata_request(None, v))
    if response is None:
        raise TransportError(f"{run.transport.bootstrap}: the broker has no Metadata API")
    run.read.brokers = {b.node_id: BrokerNode(b.node_id, b.host, b.port, b.rack)
                        for b in response.brokers}
    if isinstance(node, int) is False and node in run.support:
        run.support[node].address = run.transport.bootstrap
    racks = {b.node_id: b.rack for b in response.brokers}
    for topic in response.topics:
        if topic.error_code or not topic.name:
            continue
        run.read.partitions[topic.name] = len(topic.partitions)
        for p in topic.partitions:
            replicas = tuple(r for r in (racks.get(n) for n in p.replica_nodes) if r)
            run.read.replica_racks[TopicPartition(topic.name, p.partition_index)] = replicas
    run.leaders = {TopicPartition(t.name, p.partition_index): p.leader_id
                   for t in response.topics if t.name for p in t.partitions}


# --------------------------------------------------------------------------- groups
def _list_groups(run: _Pass, wanted: GroupFilter) -> dict[str, GroupRead]:
    groups: dict[str, GroupRead] = {}
    for node in sorted(run.read.brokers):
        response = run.send(node, "ListGroups", lambda v: codec.list_groups_request(v))
        if response is None:
            continue
        if response.error_code:
            run.read.notices.append(f"ListGroups on broker {node}: "
                                    f"{codec.error_name(response.error_code)}")
            continue
        for listed in response.groups:
            group_type = _listed_type(listed, response.version)
            if wanted.wants(listed.group_id, group_type):
                groups[listed.group_id] = GroupRead(
                    listed.group_id, group_type, listed.group_state or None,
                    listed.protocol_type)
    for group_id in wanted.ids:
        if group_id not in groups:
            groups[group_id] = GroupRead(group_id, listed=False)
    return groups


def _listed_type(listed: Any, version: int) -> str | None:
    """ListGroups v5 names the type; before it a ``consumer`` protocol type is a classic
    group, and anything else (an empty group) is found out by describing it."""
    if version >= 5 and listed.group_type:
        return str(listed.group_type).lower()
    return "classic" if listed.protocol_type == "consumer" else None


def _find_coordinators(run: _Pass, groups: dict[str, GroupRead]) -> None:
    pending = [g for g in groups.values() if g.coordinator is None]
    attempt = 0
    while pending:
        node = run.transport.any_node()
        version = run.supported(node, "FindCoordinator")
        if version is None:
            raise TransportError(f"{run.transport.bootstrap}: no FindCoordinator API")
        for batch in _batches(pending, 1000 if version >= 4 else 1):
            keys = [g.group_id for g in batch]
            request = codec.find_coordinator_request(keys, version)
            response = run.transport.send(node, "FindCoordinatorRequest", request, version)
            for found in codec.coordinators(response, keys):
                group = groups[found.key]
                if found.error_code == 0:
                    group.coordinator = found.node_id
                elif found.error_code not in _RETRIABLE:
                    group.problems.append(f"FindCoordinator: {codec.error_name(found.error_code)}")
        pending = [g for g in pending if g.coordinator is None and not g.problems]
        attempt += 1
        if pending and not run.backoff(attempt):
            for group in pending:
                group.problems.append("no coordinator found before the deadline")
            return


def _describe(run: _Pass, groups: dict[str, GroupRead]) -> None:
    """Describe each group with its type's API; GROUP_ID_NOT_FOUND sends it to the other."""
    tried: dict[str, set[str]] = {g: set() for g in groups}
    for attempt in range(8):
        todo = [g for g in groups.values() if g.described is None and not g.problems
                and g.coordinator is not None]
        if not todo:
            return
        retry = False
        for group_type in GROUP_TYPES:
            chosen = [g for g in todo if (g.group_type or "classic") == group_type]
            for node, batch in _by_coordinator(chosen):
                retry |= _describe_batch(run, node, group_type, batch, tried)
        if retry and not run.backoff(attempt):
            break
    for group in groups.values():
        if group.described is None and not group.problems:
            group.problems.append("not described before the deadline")


def _describe_batch(run: _Pass, node: int, group_type: str, batch: list[GroupRead],
                    tried: dict[str, set[str]]) -> bool:
    api = _DESCRIBE_API[group_type]
    ids = [g.group_id for g in batch]
    if group_type == "classic":
        response = run.send(node, api, lambda v: codec.describe_groups_request(ids, v))
    else:
        response = run.send(node, api, lambda v: codec.group_describe_request(
            f"{api}Request", ids, v))
    by_id = {g.group_id: g for g in batch}
    if response is None:
        for group in batch:
            group.problems.append(f"broker {node} does not support {api}")
        return False
    retry = False
    for described in response.groups:
        found = by_id.get(described.group_id)
        if found is None:
            continue
        tried[found.group_id].add(group_type)
        retry |= _take(run, found, group_type, described, tried[found.group_id])
    return retry


def _take(run: _Pass, group: GroupRead, group_type: str, described: Any,
          tried: set[str]) -> bool:
    """Keep one described group; True when it must be asked again."""
    code = described.error_code
    if code in _RETRIABLE:
        group.coordinator = None
        _find_coordinators(run, {group.group_id: group})
        return True
    if code == _NOT_FOUND:
        other = {"classic": "consumer", "consumer": "classic"}.get(group_type)
        if other and other not in tried:
            group.group_type = other
            return True
        group.problems.append(f"{_DESCRIBE_API[group_type]}: GROUP_ID_NOT_FOUND")
        return False
    if code:
        group.problems.append(f"{_DESCRIBE_API[group_type]}: {codec.error_name(code)}")
        return False
    group.group_type, group.state, group.described = group_type, described.group_state, described
    return False


def _by_coordinator(groups: Iterable[GroupRead]) -> list[tuple[int, list[GroupRead]]]:
    by_node: dict[int, list[GroupRead]] = {}
    for group in groups:
        if group.coordinator is not None:
            by_node.setdefault(group.coordinator, []).append(group)
    return [(node, batch) for node in sorted(by_node)
            for batch in _batches(by_node[node], GROUPS_PER_REQUEST)]


def _batches(items: Sequence[Any], size: int) -> Iterable[list[Any]]:
    for start in range(0, len(items), size):
        yield list(items[start:start + size])


def _recorded(run: _Pass, groups: dict[str, GroupRead], group_log: GroupMetadataLog) -> None:
    """Each classic group's last GroupMetadataValue (read after the describe, so a Stable
    group's record is already written). The read has a budget of its own: a partition not read
    to its end in it leaves its groups' generations unknown, said in one note (the generation
    is optional: the rest of the pass stands); a read that fails is a notice."""
    classic = [g.group_id for g in groups.values() if g.group_type == "classic"]
    if not classic:
        return
    group_log.refresh(classic, run.read.partitions.get(codec.OFFSETS_TOPIC),
                      run.transport.listener)
    if group_log.problem:
        run.read.notices.append(f"{group_log.problem}: classic generations are unknown "
                                "(--generation-timeout 0 does not read them)")
    elif group_log.unread:
        partitions = run.read.partitions[codec.OFFSETS_TOPIC]
        unknown = [g for g in classic if offsets_partition(g, partitions) in group_log.unread]
        run.read.notes.append(
            f"classic generations unknown for {len(unknown)} of {len(classic)} group(s): "
            f"{len(group_log.unread)} partition(s) of {codec.OFFSETS_TOPIC} not read to their "
            f"end within {group_log.budget_s:g} s (--generation-timeout)")
    for group_id in classic:
        groups[group_id].recorded = group_log.recorded(group_id)


# --------------------------------------------------------------------------- offsets
def _offsets(run: _Pass, groups: dict[str, GroupRead]) -> None:
    """Committed offsets per coordinator in batches; a group whose coordinator moved since it
    was described (NOT_COORDINATOR, ...) is looked up again and asked again. Share groups are
    not asked: they commit no offsets, and Kafka answers OffsetFetch for one GROUP_ID_NOT_FOUND
    ("not a consumer group")."""
    todo = [g for g in groups.values() if g.coordinator is not None and g.group_type != "share"]
    for attempt in range(8):
        moved = [g for node, batch in _by_coordinator(todo) for g in _fetch(run, node, batch)]
        if not moved:
            return
        _find_coordinators(run, {g.group_id: g for g in moved})
        todo = [g for g in moved if g.coordinator is not None]
        if todo and not run.backoff(attempt):
            break
    for group in todo:
        group.problems.append("OffsetFetch: no coordinator answered before the deadline")


def _fetch(run: _Pass, node: int, batch: list[GroupRead]) -> list[GroupRead]:
    """OffsetFetch of ``batch`` from ``node``; the groups it is no longer coordinator of."""
    version = run.supported(node, "OffsetFetch")
    if version is None:
        return []
    moved = []
    for part in _batches(batch, GROUPS_PER_REQUEST if version >= 8 else 1):
        request = codec.offset_fetch_request({g.group_id: None for g in part}, version)
        response = run.transport.send(node, "OffsetFetchRequest", request, version)
        by_id = {g.group_id: g for g in part}
        for fetched in codec.offset_fetch_groups(response, part[0].group_id):
            group = by_id.get(fetched.group_id)
            if group is not None and fetched.error_code in _RETRIABLE:
                group.coordinator = None
                moved.append(group)
            else:
                _take_offsets(group, fetched)
    return moved


def _take_offsets(group: GroupRead | None, fetched: Any) -> None:
    if group is None:
        return
    if fetched.error_code:
        group.problems.append(f"OffsetFetch: {codec.error_name(fetched.error_code)}")
        return
    for topic in fetched.topics:
        for p in topic.partitions:
            if p.error_code == 0 and p.committed_offset >= 0:
                group.committed[TopicPartition(topic.name, p.partition_index)] = \
                    p.committed_offset


def _end_offsets(run: _Pass, groups: dict[str, GroupRead]) -> None:
    """End offsets (latest) of every partition a group committed to or subscribes to."""
    topics = {tp.topic for g in groups.values() for tp in g.committed}
    topics |= {t for g in groups.values() for t in _subscribed_topics(g)}
    by_leader: dict[int, dict[str, dict[int, int]]] = {}
    for tp, leader in run.leaders.items():
        if tp.topic in topics and leader >= 0:
            by_leader.setdefault(leader, {}).setdefault(tp.topic, {})[tp.partition] = -1
    for node, timestamps in sorted(by_leader.items()):
        response = run.send(node, "ListOffsets", _list_offsets(timestamps))
        if response is None:
            continue
        for topic in response.topics:
            for p in topic.partitions:
                if p.error_code == 0:
                    run.read.end_offsets[TopicPartition(topic.name, p.partition_index)] = \
                        p.offset if response.version >= 1 else max(p.old_style_offsets, default=-1)


def _list_offsets(timestamps: dict[str, dict[int, int]]) -> Callable[[int], Any]:
    return lambda version: codec.list_offsets_request(timestamps, version)


def _subscribed_topics(group: GroupRead) -> set[str]:
    described = group.described
    if described is None:
        return set()
    if group.group_type in ("consumer", "share"):
        return {t for m in described.members for t in m.subscribed_topic_names} | \
            {tp.topic for tp in group.share_offsets or {}}
    if group.group_type == "streams":
        return {t for s in (described.topology.subtopologies or ()) for t in s.source_topics} \
            if described.topology else set()
    topics: set[str] = set()
    if group.group_type == "classic" and described.protocol_type == "consumer":
        for member in described.members:
            try:
                topics.update(codec.decode_subscription(member.member_metadata).topics)
            except codec.CodecError:
                continue  # the snapshot says so, member by member
    return topics
