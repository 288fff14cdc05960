"""The ``sticky`` and ``cooperative-sticky`` strategies (Java's StickyAssignor and
CooperativeStickyAssignor, wire-compatible, so Java and Python members can share a group).

Both run the same pipeline: intern partitions as ids, resolve previous ownership by generation,
balance class loads, then (when racks or differing members make it a real choice) pick exactly
the balanced assignment with the most rack-local and then the most kept partitions, and deal
the rest. The cooperative one then withholds
every partition some other member may still own: it is revoked this round and assigned in the
follow-up round, so no partition is ever owned by two members at once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any

from assignframe import (
    GroupAssignment,
    GroupSubscription,
    Member,
    MemberAssignment,
    MemberState,
    RebalanceProtocol,
    Strategy,
    TopicPartition,
)

from .balance import Topology, plan_class_loads
from .movement import plan_members
from .ownership import Ownership, PartitionIndex, resolve_claims
from .planned import allocate_planned, partition_groups, split_off_rack
from .rack import RackInfo
from .realize import Allocation, allocate
from .userdata import (
    Claim,
    StickyMemory,
    cooperative_claim,
    cooperative_user_data,
    decode_cooperative,
    decode_sticky,
    describe_cooperative,
    describe_sticky,
    sticky_claim,
    sticky_user_data,
)

__all__ = ["CooperativeStickyStrategy", "StickyStrategy"]


def sticky_assign(
    group: GroupSubscription, claim_of: Callable[[Member], Claim], cooperative: bool
) -> GroupAssignment:
    """The whole pipeline; ``claim_of`` reads a member's previous ownership."""
    member_ids = sorted(group.members)
    # thousands of members usually share a handful of subscriptions: work per distinct one
    sharing: dict[tuple[str, ...], list[int]] = {}
    for member, member_id in enumerate(member_ids):
        sharing.setdefault(group.members[member_id].topics, []).append(member)
    index = PartitionIndex.of(group.cluster, sharing)
    position = index.position()
    subscribed = _subscribed_topic_indexes(sharing, len(member_ids), position)
    claims = [claim_of(group.members[m]) for m in member_ids]
    ownership = resolve_claims(index, claims, subscribed, track_claimants=cooperative)
    topology = Topology.of(subscribed, [position[t][2] for t in index.topics])
    held = _held_per_class(topology, ownership, index)
    loads = plan_class_loads(topology, held, _free_per_block(topology, held))
    racks = RackInfo(group, index, member_ids)
    if racks.enabled or (len(topology.members) > 1 and any(ownership.held)):
        # which balanced assignment is a real choice here: decide it exactly, per member
        # (one class without racks needs no choice: q + 1 to the biggest holders keeps most)
        groups, group_at = partition_groups(topology, index, racks)
        group_of = group_at.__getitem__
        held_per_group = _held_counts(ownership, group_at, len(member_ids))
        off_rack = None  # Java releases these before it keeps anything
        if racks.enabled:
            off_rack = split_off_rack(held_per_group, groups, racks.member_rack)
        plan = plan_members(topology, loads, groups, held_per_group, racks.member_rack, off_rack)
        allocation = allocate_planned(
            topology, plan, group_of, ownership, index, groups_are_blocks=not racks.enabled
        )
    else:
        allocation = allocate(topology, loads, ownership, index)
    if cooperative and ownership.claimant is not None:
        _withhold_claimed_elsewhere(allocation, ownership)
    return _to_group_assignment(member_ids, allocation, index.partition_objects())


def _held_counts(ownership: Ownership, group_at, members: int) -> list[dict[int, int]]:
    """Per member index, partition group -> how many it holds (a valid claim to)."""
    return [dict(Counter(map(group_at.__getitem__, ids))) for ids in ownership.held[:members]]


def _subscribed_topic_indexes(sharing, members: int, position) -> list[frozenset[int]]:
    """Per member, the indexes of its existing topics; one frozenset per distinct subscription
    (shared, so building classes later hashes each distinct set once)."""
    subscribed: list[frozenset[int]] = [frozenset()] * members
    for topics, sharers in sharing.items():
        indexes = frozenset(position[t][0] for t in topics if t in position)
        for member in sharers:
            subscribed[member] = indexes
    return subscribed


def _held_per_class(topology: Topology, ownership: Ownership, index: PartitionIndex):
    held: list[dict[int, int]] = [{} for _ in topology.members]
    for klass, members in enumerate(topology.members):
        blocks = topology.blocks_of[klass]
        counts = held[klass]
        for member in members:
            ids = ownership.held[member]
            if len(blocks) == 1:
                if ids:
                    counts[blocks[0]] = counts.get(blocks[0], 0) + len(ids)
                continue
            for pid in ids:
                block = topology.block_of_topic[index.topic_index(pid)]
                counts[block] = counts.get(block, 0) + 1
    return held


def _free_per_block(topology: Topology, held: list[dict[int, int]]) -> list[int]:
    free = list(topology.block_size)
    for counts in held:
        for block, count in counts.items():
            free[block] -= count
    return free


def _withhold_claimed_elsewhere(allocation: Allocation, ownership: Ownership) -> None:
    """Cooperative: drop every newly given partition that another member claims to own."""
    claimant = ownership.claimant
    assert claimant is not None
    for member, pieces in enumerate(allocation.given):
        allocation.given[member] = [
            [pid for pid in piece if claimant[pid] in (-1, member)] for piece in pieces
        ]


def _to_group_assignment(
    member_ids: Sequence[str], allocation: Allocation, partitions: tuple[TopicPartition, ...]
) -> GroupAssignment:
    """Each member's partitions in id order, i.e. grouped by topic: the wire groups partitions
    by topic anyway, so any other order would not survive SyncGroup unchanged."""
    lookup = partitions.__getitem__
    assignments = {}
    for member, member_id in enumerate(member_ids):
        kept, given = allocation.kept[member], allocation.given[member]
        if not kept and len(given) == 1 and type(given[0]) is range:
            piece = given[0]  # a fresh stride: already in order, and a C-level slice
            owned = partitions[piece.start : piece.stop : piece.step]
        else:
            owned = tuple(map(lookup, sorted(chain(kept, *given))))
        assignments[member_id] = MemberAssignment(owned)
    return GroupAssignment(assignments)


class StickyStrategy(Strategy):
    """Java's StickyAssignor (eager): balanced first, then as sticky as possible.

    Each member's previous assignment and generation travel in StickyAssignor V1 user data (V0
    accepted), so Java and Python members can share a group and either can lead.
    """

    name = "sticky"
    option_defaults: dict = {}
    protocols = (RebalanceProtocol.EAGER,)

    def assign(self, group: GroupSubscription) -> GroupAssignment:
        return sticky_assign(group, sticky_claim, cooperative=False)

    def subscription_user_data(self, topics: tuple[str, ...], state: MemberState) -> bytes | None:
        memory = state.strategy_state if isinstance(state.strategy_state, StickyMemory) else None
        return sticky_user_data(memory)

    def decode_user_data(self, user_data: bytes | None, subscription_version: int):
        return decode_sticky(user_data)

    def describe_user_data(self, decoded: Any) -> Any:
        return describe_sticky(decoded)

    def on_assignment(
        self, assignment: MemberAssignment, generation: int, state: MemberState
    ) -> MemberState:
        memory = StickyMemory(assignment.partitions, generation)
        return MemberState(assignment.partitions, generation, memory)


class CooperativeStickyStrategy(Strategy):
    """Java's CooperativeStickyAssignor: the sticky algorithm under the cooperative protocol.

    Ownership comes from the subscription's owned partitions and generation (v2+), or the int32
    generation user data for v0/v1 subscriptions (sticky-V1-layout user data from librdkafka and
    franz-go is read too). A partition moving between members is only revoked this round and
    assigned in the follow-up round.
    """

    name = "cooperative-sticky"
    option_defaults: dict = {}
    # most preferred last; Java offers COOPERATIVE first and falls back to EAGER
    protocols = (RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE)

    def assign(self, group: GroupSubscription) -> GroupAssignment:
        return sticky_assign(group, cooperative_claim, cooperative=True)

    def subscription_user_data(self, topics: tuple[str, ...], state: MemberState) -> bytes | None:
        return cooperative_user_data(state.generation)

    def decode_user_data(self, user_data: bytes | None, subscription_version: int):
        return decode_cooperative(user_data)

    def describe_user_data(self, decoded: Any) -> Any:
        return describe_cooperative(decoded)
