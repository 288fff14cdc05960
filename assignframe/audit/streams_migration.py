"""What a classic Kafka Streams application gains or risks moving to the Streams rebalance
protocol (KIP-1071), per group, as Apache Kafka 4.3 supports it.

A classic Kafka Streams group is a classic consumer group whose members elected the protocol
``stream`` (``StreamsPartitionAssignor.name()``). Kafka 4.3 moves such a group offline only
(docs/streams/developer-guide/streams-rebalance-protocol.md at 4.3.1, "Migration from Classic
Protocol"): every instance is stopped, the group empties (session timeout or an explicit leave),
and the instances restart with ``group.protocol=streams``; only the committed offsets carry over,
internal topics stay as they are. Online migration is not supported, nor static members
(``group.instance.id`` is refused), so a group with static members is "not supported" until they
are dynamic. Gains and losses are Kafka's own list for 4.3.
"""

from __future__ import annotations

from ..snapshot import GroupSnapshot

__all__ = ["GAINS", "RISKS", "STREAMS_CLASSIC_PROTOCOL", "is_classic_streams",
           "streams_migration"]

#: the protocol name Kafka Streams' classic assignor elects (StreamsPartitionAssignor.name())
STREAMS_CLASSIC_PROTOCOL = "stream"
#: what the Streams protocol brings (Kafka 4.3's documentation)
GAINS = ("broker-side sticky task assignment", "no group-wide synchronization barrier",
         "StreamsGroupDescribe and broker metrics per group")
#: what the move costs or does not support in Kafka 4.3
RISKS = ("offline only: every instance stopped until the group is empty",
         "no warm-up tasks or rack-aware (high-availability) assignor",
         "no regex source topics", "a significant topology change needs a new group")


def is_classic_streams(snapshot: GroupSnapshot) -> bool:
    return snapshot.group_type == "classic" and snapshot.protocol == STREAMS_CLASSIC_PROTOCOL


def streams_migration(snapshot: GroupSnapshot) -> str:
    """The verdict of moving a classic Kafka Streams group to ``group.protocol=streams``."""
    static = sorted(m.group_instance_id for m in snapshot.members.values()
                    if m.group_instance_id)
    if static:
        return (f"to streams protocol: not supported: {len(static)} static member(s) "
                f"({', '.join(static[:3])}{', ...' if len(static) > 3 else ''}): Kafka 4.3 "
                "refuses group.instance.id in Streams groups")
    return ("to streams protocol: offline only (Kafka 4.3: stop every instance, let the group "
            "empty, restart with group.protocol=streams; committed offsets kept); gains: "
            + ", ".join(GAINS) + "; risks: " + ", ".join(RISKS))
