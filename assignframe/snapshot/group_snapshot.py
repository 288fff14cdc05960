"""The snapshot's types: one group at one generation (:class:`GroupSnapshot`), who each member
is (:class:`MemberInfo`), the bytes a member was read from (:class:`MemberWire`), and the one
place a snapshot's validity and metrics come from (:func:`snapshot_metrics`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..metrics import RoundMetrics, round_metrics
from ..model import Cluster, GroupAssignment, GroupSubscription, Member, TopicPartition

__all__ = ["GroupSnapshot", "MemberInfo", "MemberWire", "snapshot_metrics"]


@dataclass(frozen=True)
class MemberWire:
    """The bytes one member's subscription and assignment were read from (None: not seen)."""

    subscription: bytes | None = None
    assignment: bytes | None = None


@dataclass(frozen=True)
class MemberInfo:
    """Who a member is, beyond what it subscribes to (None or empty: not known).

    Its rack and static instance id are the subscription's (:class:`~assignframe.model.Member`).

    :param client_id: the client id the member connects with
    :param client_host: where it connects from (``host`` or ``host:port``)
    :param client_software: the client library and version it announced (ApiVersions v3+)
    :param protocols: classic: the strategies it offered in JoinGroup, most preferred first
    :param member_type: ``"classic"`` or ``"consumer"``: in a consumer-protocol group, whether the
        member still speaks JoinGroup/SyncGroup (a mixed group) or ConsumerGroupHeartbeat
    :param member_epoch: consumer protocol: the member's epoch (behind the group epoch while it
        reconciles)
    """

    client_id: str | None = None
    client_host: str | None = None
    client_software: str | None = None
    protocols: tuple[str, ...] = ()
    member_type: str | None = None
    member_epoch: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "protocols", tuple(self.protocols))


@dataclass(frozen=True)
class GroupSnapshot:
    """A group at one generation: who subscribed to what, and who owns what now.

    :param group_id: the group
    :param generation: the generation the assignment belongs to (-1 when unknown)
    :param protocol: the group protocol (strategy name) the group elected, or None
    :param members: member_id -> the subscription as the leader read it
    :param current: member_id -> what the member owns after this generation
    :param cluster: partition counts (captured, or inferred from what members hold: see notes)
    :param lags: per-partition lag when known
    :param notes: what was inferred or missing, one sentence each
    :param leader: the leader's member id, when known
    :param wire: member_id -> the bytes the member's subscription/assignment were read from
    :param group_type: ``"classic"`` (JoinGroup/SyncGroup: ``protocol`` is the client strategy the
        group elected, ``generation`` the generation) or ``"consumer"`` (KIP-848: ``protocol`` is
        the server assignor members asked for, ``generation`` the group epoch, each member's
        ``owned_partitions`` what it reported owning)
    :param group_state: the state the coordinator reported (``Stable``, ``PreparingRebalance``,
        ``CompletingRebalance``, ``Empty``, ``Dead``; consumer protocol: ``Assigning``,
        ``Reconciling`` ...), None when not known
    :param member_info: member_id -> who the member is (:class:`MemberInfo`)
    :param target: consumer protocol: member_id -> its target assignment, which ``current``
        reaches as members reconcile; None when not known
    :param target_epoch: consumer protocol: the epoch of ``target`` (the assignment epoch)
    :param assignor: consumer protocol: the server assignor the coordinator reported running
        (ConsumerGroupDescribe); None when not reported
    :param observed_at: when the snapshot was observed (Unix seconds), None when not known
    """

    group_id: str
    generation: int
    protocol: str | None
    members: Mapping[str, Member]
    current: GroupAssignment
    cluster: Cluster
    lags: Mapping[TopicPartition, int] | None = None
    notes: tuple[str, ...] = ()
    leader: str | None = None
    wire: Mapping[str, MemberWire] = field(default_factory=dict, repr=False, compare=False)
    group_type: str = "classic"
    group_state: str | None = None
    member_info: Mapping[str, MemberInfo] = field(default_factory=dict)
    target: GroupAssignment | None = None
    target_epoch: int | None = None
    assignor: str | None = None
    observed_at: float | None = None

    def subscription(self) -> GroupSubscription:
        """The leader's view of this generation (the input a strategy would get)."""
        return GroupSubscription(self.members, self.cluster, max(self.generation, 1), {}, self.lags)

    def topics(self) -> tuple[str, ...]:
        """Every subscribed topic, sorted."""
        return tuple(sorted({t for m in self.members.values() for t in m.topics}))

    def partitions(self) -> tuple[TopicPartition, ...]:
        """Every partition of the subscribed topics the cluster has, in topic order."""
        return tuple(tp for t in self.topics() for tp in self.cluster.partitions(t))

    def info(self, member_id: str) -> MemberInfo:
        """What is known of who ``member_id`` is (an empty :class:`MemberInfo` when nothing)."""
        return self.member_info.get(member_id) or _UNKNOWN_MEMBER

    def reconciling(self) -> tuple[str, ...]:
        """Consumer protocol: members whose current assignment is not yet their target."""
        if self.target is None:
            return ()
        return tuple(
            m
            for m, target in self.target.assignments.items()
            if set(target.partitions) != set(self.current.partitions_of(m))
        )


_UNKNOWN_MEMBER = MemberInfo()


def snapshot_metrics(
    snapshot: GroupSnapshot, previous: GroupAssignment | None = None
) -> RoundMetrics:
    """Validity and metrics of the snapshot's assignment (kept/moved against ``previous``)."""
    return round_metrics(snapshot.subscription(), snapshot.current, previous, cooperative=True)
