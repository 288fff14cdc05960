"""Who the sample fleet's members are: client libraries, ids and protocols as real fleets have
them, and the groups already on the consumer protocol.

Each group draws its client library (from those that can run the group's strategy: librdkafka
has no eager ``sticky``), and its members carry what a capture or a live read shows of them:
a client id (the library's default, ``consumer-<group>-<n>``, ``rdkafka``, ``kafka-python-2.0.2``,
``kgo``, or an application's own name, which identifies nothing), a host, and for the groups
"captured" the client software (ApiVersions) and the strategies offered. kafka-python members
send the subscription version kafka-python sends (v0, v1 for cooperative-sticky); members of
assignframe's kafka-python adapter send v3. One group in ten mixes in a kafka-python member, and
one in twenty runs the consumer protocol already (the broker's ``uniform`` assignor; some still
reconciling: a partition on its way from one member to another).

Draws come from their own random stream, so the groups' sizes, strategies and faults are those
of the same seed without them.
"""

from __future__ import annotations

import dataclasses
import random

import assignframe_codec as codec

from ..kip848.group import target_assignment
from ..model import GroupAssignment, Member, MemberAssignment
from ..plugins import PluginManager
from ..snapshot import GroupSnapshot, MemberInfo, MemberWire

__all__ = ["dress"]

#: (library, weight, client id default, client software, strategies it can run)
_LIBRARIES = (
    ("java", 50, "consumer-{group}-{n}", "apache-kafka-java 3.9.1", None),
    ("librdkafka", 20, "rdkafka", "confluent-kafka-python 2.6.1-rdkafka-2.6.1",
     ("range", "roundrobin", "cooperative-sticky")),
    ("kafka-python", 8, "kafka-python-2.0.2", "kafka-python 2.0.2",
     ("range", "roundrobin", "sticky")),
    ("adapter", 7, None, "kafka-python 3.0.12", None),
    ("franz-go", 5, "kgo", None, None),
    ("unknown", 10, None, None, None),
)
_APPS = ("billing", "orders", "search-indexer", "payments", "audit-log", "emailer", "ledger")
CONSUMER_PROTOCOL_SHARE = 0.05


def dress(
    snapshot: GroupSnapshot, rng: random.Random, pm: PluginManager
) -> GroupSnapshot:
    """``snapshot`` with its members' clients (or turned into a consumer-protocol group)."""
    if rng.random() < CONSUMER_PROTOCOL_SHARE:
        return _consumer_group(snapshot, rng, pm)
    library = _library(rng, snapshot.protocol)
    captured = rng.random() < 0.3  # a capture shows the software and the strategies offered
    app = rng.choice(_APPS)
    info, wire, members = {}, dict(snapshot.wire), dict(snapshot.members)
    mixed = rng.random() < 0.1 and len(snapshot.members) > 1 and snapshot.protocol != "sticky"
    for n, member_id in enumerate(snapshot.members, start=1):
        own = "kafka-python" if mixed and n == len(snapshot.members) else library
        info[member_id] = _member(own, snapshot, n, app, captured, rng)
        if own == "kafka-python":
            wire[member_id] = _kafka_python_bytes(wire[member_id], snapshot.protocol)
            members[member_id] = _as_sent(members[member_id], wire[member_id])
    return dataclasses.replace(snapshot, members=members, member_info=info, wire=wire)


def _as_sent(member: Member, wire: MemberWire) -> Member:
    """The member as its re-encoded subscription reads (fewer fields in v0 and v1)."""
    assert wire.subscription is not None
    sent = codec.decode_subscription(wire.subscription)
    owned = member.owned_partitions if sent.version >= 1 else ()
    return dataclasses.replace(member, owned_partitions=owned, generation=-1,
                               subscription_version=sent.version)


def _library(rng: random.Random, protocol: str | None) -> str:
    able = [(name, weight) for name, weight, _, _, runs in _LIBRARIES
            if runs is None or protocol in runs]
    return rng.choices([n for n, _ in able], [w for _, w in able])[0]


def _member(library: str, snapshot: GroupSnapshot, n: int, app: str, captured: bool,
            rng: random.Random) -> MemberInfo:
    _, _, default_id, software, _ = next(entry for entry in _LIBRARIES if entry[0] == library)
    if default_id and rng.random() < 0.6:
        client_id = default_id.format(group=snapshot.group_id, n=n)
    else:
        client_id = f"{app}-{n}"
    protocols: tuple[str, ...] = ()
    if captured and snapshot.protocol:
        protocols = ("range", "cooperative-sticky") if (
            library == "java" and snapshot.protocol == "range"
        ) else (snapshot.protocol,)
    return MemberInfo(
        client_id=client_id,
        client_host=f"/10.{rng.randint(0, 3)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
        client_software=software if (captured or library == "adapter") else None,
        protocols=protocols,
    )


def _kafka_python_bytes(wire: MemberWire, protocol: str | None) -> MemberWire:
    """The subscription as kafka-python itself sends it (v0; v1 with owned partitions for its
    cooperative-sticky)."""
    if wire.subscription is None:
        return wire
    sent = codec.decode_subscription(wire.subscription)
    version = 1 if protocol == "cooperative-sticky" else 0
    again = codec.encode_subscription(
        sent.topics,
        user_data=sent.user_data,
        owned_partitions=[(g.topic, p) for g in sent.owned_partitions or () for p in g.partitions]
        if version
        else (),
        version=version,
    )
    return dataclasses.replace(wire, subscription=again)


def _consumer_group(
    snapshot: GroupSnapshot, rng: random.Random, pm: PluginManager
) -> GroupSnapshot:
    """The same members and topics, on the consumer protocol with the broker's uniform assignor;
    one group in five is reconciling (a partition still held by its previous owner)."""
    asked = "range" if rng.random() < 0.2 else None
    target = target_assignment(snapshot.subscription(), None, asked or "uniform", pm)
    current = dict(target.assignments)
    behind: set[str] = set()
    owners = [m for m, a in current.items() if a.partitions]
    if len(owners) > 1 and rng.random() < 0.2:
        taker = rng.choice(owners)
        moving = current[taker].partitions[-1]
        givers = [m for m in owners if m != taker and moving.topic in snapshot.members[m].topics]
        if givers:  # the partition's previous owner still holds it: taker's target awaits it
            giver = rng.choice(givers)
            current[taker] = MemberAssignment(current[taker].partitions[:-1])
            current[giver] = MemberAssignment((*current[giver].partitions, moving))
            behind.add(giver)
    epoch = max(snapshot.generation, 2)
    java = rng.random() < 0.7
    members = {
        m: Member(m, member.topics, current[m].partitions, epoch, rack=member.rack)
        for m, member in snapshot.members.items()
    }
    info = {
        m: MemberInfo(
            client_id=f"consumer-{snapshot.group_id}-{n}" if java else "rdkafka",
            client_host=f"/10.9.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
            member_type="consumer",
            member_epoch=epoch - 1 if m in behind else epoch,
        )
        for n, m in enumerate(snapshot.members, start=1)
    }
    return dataclasses.replace(
        snapshot,
        protocol=asked,
        members=members,
        current=GroupAssignment(current),
        leader=None,
        wire={},
        group_type="consumer",
        group_state="Reconciling" if behind else "Stable",
        member_info=info,
        target=target,
        target_epoch=epoch,
        assignor=asked or "uniform",
        notes=(),
    )
