"""Which client library each member runs, read from what it put on the wire, and what it can run.

A recommendation a group cannot use is worse than none: a Java or librdkafka consumer cannot run
``fair``. So each member's client is identified from evidence, strongest first (the first that
names a library wins, and the member's ``evidence`` says which):

1. the client software it announced (ApiVersions v3+, KIP-511: ``apache-kafka-java``,
   ``librdkafka`` or a wrapper naming ``rdkafka``, ``kafka-python``, ``aiokafka``, ``kgo``
   (franz-go), ``sarama``);
2. its client id, when that is a library's default (Java ``consumer-<group>-<n>``, librdkafka
   ``rdkafka``, kafka-python ``kafka-python-<version>``, aiokafka ``aiokafka-<version>``,
   franz-go ``kgo``, sarama ``sarama``); a classic member id is ``<client id>-<UUID>``, so the
   client id is read from the member id when the snapshot does not give it;
3. the shape of what it sent: user data in a layout the group's strategy attributes to a client
   (its ``describe_user_data`` names it: Java's bare cooperative-sticky generation,
   kafka-python's int16-prefixed sticky data; librdkafka's sticky V1 layout for
   cooperative-sticky, which franz-go shares), or Java's default strategy list ``range,
   cooperative-sticky``.

assignframe's adapters (:mod:`assignframe.kafka_python`, :mod:`assignframe.aiokafka`) send v3
subscriptions, which kafka-python and aiokafka never send themselves: such a member runs the
adapter, so any installed strategy (cooperative ones on kafka-python 3 only).

Nothing else is guessed. A member none of this identifies runs what it offers now (its JoinGroup
strategies, or the group's strategy) and ``range`` and ``roundrobin``, which every library listed
here ships; docs/audit.md has the table.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..plugins import PluginManager
from ..snapshot import GroupSnapshot
from ..strategy import Strategy

__all__ = [
    "LIBRARIES",
    "ClientLibrary",
    "GroupClients",
    "MemberClient",
    "identify_clients",
]

#: What every library below ships: what an unidentified member is assumed to run.
UNIVERSAL = frozenset({"range", "roundrobin"})


@dataclass(frozen=True)
class ClientLibrary:
    """A consumer library and what it can run.

    :param strategies: the classic strategies (protocol names) it ships
    :param default: its default strategy (the first of its default list)
    :param consumer_protocol: the first version speaking the consumer protocol (KIP-848) and how
        ready it is; None when it has none
    :param consumer_protocol_since: that version as numbers (None: none)
    :param adapter: assignframe's adapter that runs any installed strategy inside it, or None
    """

    key: str
    label: str
    strategies: frozenset[str]
    default: str
    consumer_protocol: str | None = None
    consumer_protocol_since: tuple[int, ...] | None = None
    adapter: str | None = None


LIBRARIES: dict[str, ClientLibrary] = {
    library.key: library
    for library in (
        ClientLibrary(
            "java",
            "Java",
            frozenset({"range", "roundrobin", "sticky", "cooperative-sticky"}),
            "range",
            "3.7 (GA in 4.0)",
            (3, 7),
        ),
        ClientLibrary(
            "librdkafka",
            "librdkafka",
            frozenset({"range", "roundrobin", "cooperative-sticky"}),
            "range",
            "2.4 (GA in 2.12)",
            (2, 4),
        ),
        ClientLibrary(
            "kafka-python",
            "kafka-python",
            frozenset({"range", "roundrobin", "sticky", "cooperative-sticky"}),
            "range",
            adapter="assignframe.kafka_python",
        ),
        ClientLibrary(
            "aiokafka",
            "aiokafka",
            frozenset({"range", "roundrobin", "sticky"}),
            "roundrobin",
            adapter="assignframe.aiokafka",
        ),
        ClientLibrary(
            "franz-go",
            "franz-go",
            frozenset({"range", "roundrobin", "sticky", "cooperative-sticky"}),
            "cooperative-sticky",
            "1.22 (opt-in)",
            (1, 22),
        ),
        ClientLibrary("sarama", "sarama", frozenset({"range", "roundrobin", "sticky"}), "range"),
    )
}

#: ApiVersions client software name -> library (a name containing "rdkafka" is librdkafka).
_SOFTWARE = {
    "apache-kafka-java": "java",
    "librdkafka": "librdkafka",
    "kafka-python": "kafka-python",
    "aiokafka": "aiokafka",
    "kgo": "franz-go",
    "franz-go": "franz-go",
    "sarama": "sarama",
}
#: Default client ids (KIP-511 aside, what each library calls itself unless configured).
_DEFAULT_CLIENT_IDS = (
    (re.compile(r"consumer-.+-\d+"), "java"),
    (re.compile(r"rdkafka"), "librdkafka"),
    (re.compile(r"kafka-python-[\d.]+"), "kafka-python"),
    (re.compile(r"aiokafka-[\d.]+"), "aiokafka"),
    (re.compile(r"kgo"), "franz-go"),
    (re.compile(r"sarama"), "sarama"),
)
_UUID_SUFFIX = re.compile(r"-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
#: A user data layout description naming its writer (the strategies' describe_user_data).
_LAYOUT_WRITERS = (("kafka-python", "kafka-python"), ("(java)", "java"))
#: Layouts more than one client writes: the shape names no client. Java's cooperative-sticky
#: user data is also what assignframe's kafka-python adapter writes (with the same v3
#: subscription), and a kafka-python member can never leave the classic protocol.
_SHARED_LAYOUTS = {"cooperative-sticky generation (java)":
                   "Java's cooperative-sticky user data, which assignframe's kafka-python "
                   "adapter writes too"}
_JAVA_DEFAULT_LIST = ("range", "cooperative-sticky")
#: Libraries whose adapter members cannot run cooperative strategies (no cooperative rebalance).
_EAGER_ONLY_ADAPTERS = {"aiokafka"}


_UNSET = object()


@dataclass(frozen=True)
class MemberClient:
    """What one member runs.

    :param library: a key of :data:`LIBRARIES`, or None when unidentified
    :param evidence: how it was identified (or why it could not be)
    :param version: the library's version as announced, when known
    :param adapter: True when the member runs assignframe's adapter in that library
    :param offered: the strategies it offers now (JoinGroup), or the group's strategy
    :param name: how people know the member: its client id when known, else its member id
    """

    library: str | None
    evidence: str
    version: tuple[int, ...] | None = None
    adapter: bool = False
    offered: tuple[str, ...] = ()
    name: str = ""

    @property
    def label(self) -> str:
        if self.library is None:
            return "unknown client"
        name = LIBRARIES[self.library].label
        return f"{name} with assignframe's adapter" if self.adapter else name


@dataclass(frozen=True)
class GroupClients:
    """Every member's client, and what the group as a whole can run."""

    members: Mapping[str, MemberClient]
    installed: Mapping[str, tuple[str, ...]]  # strategy -> its rebalance protocols
    _cannot_run: dict[str, str | None] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def describe(self) -> str:
        """``Java (3), kafka-python (1)``: who runs the group."""
        counts = Counter(c.label for c in self.members.values())
        return ", ".join(f"{label} ({n})" for label, n in counts.most_common())

    def default_strategy(self) -> tuple[str, str] | None:
        """The clients' default strategy and whose default it is, when every identified
        member's library has the same one (``("range", "Java")``)."""
        libraries = {LIBRARIES[c.library] for c in self.members.values() if c.library}
        defaults = {library.default for library in libraries}
        if len(defaults) != 1:
            return None
        return defaults.pop(), " and ".join(sorted(library.label for library in libraries))

    def cannot_run(self, strategy: str) -> str | None:
        """None when every member can run ``strategy``; else who cannot, and the adapter that
        would let them where one exists (worked out once per strategy: the recommendation
        asks for each candidate more than once)."""
        known = self._cannot_run.get(strategy, _UNSET)
        if known is _UNSET:
            known = self._cannot_run[strategy] = self._who_cannot_run(strategy)
        return known  # type: ignore[return-value]

    def _who_cannot_run(self, strategy: str) -> str | None:
        runs: dict[tuple[Any, ...], bool] = {}  # members of one kind run the same strategies
        clients = []
        for client in self.members.values():
            kind = (client.library, client.version, client.adapter, client.offered)
            can = runs.get(kind)
            if can is None:
                can = runs[kind] = self._runs(client, strategy)
            if not can:
                clients.append(client)
        if not clients:
            return None
        who = _members_phrase(clients)
        adapters = {_adapter_for(c, self._cooperative(strategy)) for c in clients}
        if None in adapters:
            return f"{who} cannot run it"
        return f"{who} would need assignframe's adapter ({', '.join(sorted(map(str, adapters)))})"

    def _runs(self, client: MemberClient, strategy: str) -> bool:
        if strategy in client.offered:
            return True
        if client.adapter:
            return strategy in self.installed and (
                not self._cooperative(strategy) or _runs_cooperative(client)
            )
        if client.library is None:
            return strategy in UNIVERSAL
        if strategy == "cooperative-sticky" and client.library == "kafka-python":
            return _runs_cooperative(client)
        return strategy in LIBRARIES[client.library].strategies

    def _cooperative(self, strategy: str) -> bool:
        return "cooperative" in self.installed.get(strategy, ()) and "eager" not in (
            self.installed.get(strategy, ())
        )

    def without_consumer_protocol(self) -> list[str]:
        """One phrase per library whose members cannot join a consumer-protocol group."""
        by_reason: dict[str, list[str]] = {}
        for client in self.members.values():
            reason = _no_consumer_protocol(client)
            if reason:
                by_reason.setdefault(reason, []).append(client.name)
        return [f"{reason} ({_first(names)})" for reason, names in by_reason.items()]

    def unidentified(self) -> list[str]:
        """Names of the members whose client is unknown."""
        return [c.name for c in self.members.values() if c.library is None]


def _adapter_for(client: MemberClient, cooperative: bool) -> str | None:
    """assignframe's adapter that would run a strategy in this member's library, if any."""
    if client.library is None or (cooperative and client.library in _EAGER_ONLY_ADAPTERS):
        return None
    return LIBRARIES[client.library].adapter


def _runs_cooperative(client: MemberClient) -> bool:
    """kafka-python rebalances cooperatively from 3.0 (its adapter too); aiokafka never."""
    if client.library == "aiokafka":
        return False
    return client.version is not None and client.version >= (3,)


def _no_consumer_protocol(client: MemberClient) -> str | None:
    if client.library is None:
        return None
    library = LIBRARIES[client.library]
    if client.adapter or library.consumer_protocol_since is None:
        return f"{client.label} has no consumer-protocol support"
    if client.version is not None and client.version < library.consumer_protocol_since:
        version = ".".join(map(str, client.version))
        since = library.consumer_protocol
        return f"{library.label} {version} predates the consumer protocol (since {since})"
    return None


def _members_phrase(clients: list[MemberClient]) -> str:
    labels = sorted({c.label for c in clients})
    return f"{' and '.join(labels)} member(s) {_first([c.name for c in clients])}"


def _first(names: list[str], shown: int = 3) -> str:
    """The first names (repeated ones once, counted: members often share a client id)."""
    counted = Counter(names)
    items = [f"{n} (x{counted[n]})" if counted[n] > 1 else n for n in dict.fromkeys(names)]
    more = f" and {len(items) - shown} more" if len(items) > shown else ""
    return ", ".join(items[:shown]) + more


#: A strategy instance by name (the audit keeps one per process: AuditContext.instance).
StrategyOf = Callable[[str], Strategy]


def identify_clients(
    snapshot: GroupSnapshot, pm: PluginManager, strategy_of: StrategyOf | None = None
) -> GroupClients:
    """Identify every member's client (see the module docstring for the evidence).

    :param strategy_of: where strategy instances come from (default: a new one each time)
    """
    installed = {  # what strategy_info() says of each, without building its StrategyInfo
        entry.name: tuple(p.value for p in entry.protocols) for entry in pm.registry.entries()
    }
    reader = _LayoutReader(pm, strategy_of or pm.strategy)
    members = {member_id: _identify(snapshot, member_id, reader) for member_id in snapshot.members}
    return GroupClients(members, installed)


def _identify(snapshot: GroupSnapshot, member_id: str, reader: _LayoutReader) -> MemberClient:
    info = snapshot.info(member_id)
    member = snapshot.members[member_id]
    offered = info.protocols or ((snapshot.protocol,) if snapshot.protocol else ())
    if snapshot.group_type == "consumer" and info.member_type != "classic":
        offered = ()  # a consumer-protocol member offers no client strategy
    client_id = info.client_id or _client_id_of(member_id)
    name = client_id or member_id
    found = (
        _by_software(info.client_software)
        or _by_client_id(client_id)
        or _by_shape(snapshot, member_id, reader)
    )
    if found is None:
        why = _shared_layout(snapshot, member_id, reader) or "nothing it sent names its client"
        return MemberClient(None, why, offered=offered, name=name)
    library, evidence, version = found
    adapter = library in ("kafka-python", "aiokafka") and member.subscription_version >= 3
    if adapter:
        evidence += f", subscription v{member.subscription_version} (only the adapter sends v3)"
    return MemberClient(library, evidence, version, adapter, offered, name)


Found = tuple[str, str, "tuple[int, ...] | None"]


@functools.lru_cache(maxsize=1024)  # members of a group, and groups, share their clients
def _by_software(software: str | None) -> Found | None:
    if not software:
        return None
    name, _, version = software.partition(" ")
    library = _SOFTWARE.get(name.lower()) or ("librdkafka" if "rdkafka" in software else None)
    if library is None:
        return None
    if library == "librdkafka" and "rdkafka-" in software:  # a wrapper: librdkafka's own version
        version = software.rsplit("rdkafka-", 1)[1]
    return library, f"client software {software!r}", _version(version)


@functools.lru_cache(maxsize=1024)
def _by_client_id(client_id: str | None) -> Found | None:
    if not client_id:
        return None
    for pattern, library in _DEFAULT_CLIENT_IDS:
        if pattern.fullmatch(client_id):
            version = client_id.rsplit("-", 1)[1] if library in ("kafka-python", "aiokafka") else ""
            return library, f"client id {client_id!r} (its default)", _version(version)
    return None


def _client_id_of(member_id: str) -> str | None:
    """A classic member id is ``<client id>-<UUID>`` (the coordinator makes it so)."""
    return member_id[: -37] if _UUID_SUFFIX.search(member_id) else None


def _by_shape(snapshot: GroupSnapshot, member_id: str, reader: _LayoutReader) -> Found | None:
    info, member = snapshot.info(member_id), snapshot.members[member_id]
    if info.protocols == _JAVA_DEFAULT_LIST:
        return "java", "strategies offered 'range, cooperative-sticky' (Java's default)", None
    layout = reader.layout(snapshot.protocol, member_id, member.user_data,
                           member.subscription_version)
    if layout.lower() in _SHARED_LAYOUTS:
        return None
    for needle, library in _LAYOUT_WRITERS:
        if needle in layout.lower():
            return library, f"user data layout {layout!r}", None
    return None


def _shared_layout(snapshot: GroupSnapshot, member_id: str, reader: _LayoutReader) -> str | None:
    """Why a member whose user data more than one client writes is not identified."""
    member = snapshot.members[member_id]
    layout = reader.layout(snapshot.protocol, member_id, member.user_data,
                           member.subscription_version)
    shared = _SHARED_LAYOUTS.get(layout.lower())
    return f"user data layout {layout!r}: {shared}" if shared else None


@dataclass(frozen=True)
class _LayoutReader:
    """Reads a member's user data through the group's strategy (its hooks) for its layout."""

    pm: PluginManager
    strategy_of: StrategyOf

    def layout(self, protocol: str | None, member_id: str, user_data: bytes | None,
               version: int) -> str:
        """The strategy's description of the user data layout ("" when there is none)."""
        if not user_data or not protocol or protocol not in self.pm.strategy_names():
            return ""
        strategy = self.strategy_of(protocol)
        try:
            described: Any = strategy.describe_user_data(
                self.pm.decode_user_data(strategy, member_id, user_data, version)
            )
        except Exception:  # bytes the strategy does not read tell nothing about the writer
            return ""
        return str(described.get("layout", "")) if isinstance(described, Mapping) else ""


def _version(text: str) -> tuple[int, ...] | None:
    numbers = re.match(r"(\d+)(?:\.(\d+))?(?:\.(\d+))?", text or "")
    if numbers is None:
        return None
    return tuple(int(n) for n in numbers.groups() if n is not None)
