"""Who owned what before this rebalance, resolved by generation (the KIP-341 rules).

A member's claim comes from the owned partitions of its subscription (cooperative members) or
from its user data (eager members send their previous assignment there, in the StickyAssignor V1
layout). A claim from a newer generation beats an older one; two claims of the same generation
cancel out, so neither member keeps the partition.
"""

from __future__ import annotations

from dataclasses import dataclass

import assignframe_codec as codec

from assignframe import CodecError, GroupSubscription, Member, TopicPartition, UserDataError


@dataclass(frozen=True)
class PreviousAssignment:
    """What a member's user data says it owned, and in which generation (-1 when unknown)."""

    partitions: tuple[TopicPartition, ...]
    generation: int


def encode_previous(partitions: tuple[TopicPartition, ...], generation: int) -> bytes:
    """User data carrying a member's previous assignment (StickyAssignor V1 layout)."""
    return codec.encode_sticky_user_data(
        [(tp.topic, tp.partition) for tp in partitions], generation
    )


def decode_previous(user_data: bytes | None) -> PreviousAssignment | None:
    """Read ``encode_previous`` bytes back; None for null or empty user data."""
    if not user_data:
        return None
    try:
        decoded = codec.decode_sticky_user_data(user_data)
    except CodecError as error:
        raise UserDataError(
            f"lag-sticky user data is not a previous assignment: {error}"
        ) from error
    partitions = tuple(
        TopicPartition(group.topic, p)
        for group in decoded.previous_assignment
        for p in group.partitions
    )
    generation = -1 if decoded.generation is None else decoded.generation
    return PreviousAssignment(partitions, generation)


def _claims_of(member: Member) -> tuple[tuple[TopicPartition, ...], int]:
    if member.owned_partitions:
        return member.owned_partitions, member.generation
    previous = member.decoded_user_data
    if isinstance(previous, PreviousAssignment):
        return previous.partitions, previous.generation
    return (), -1


def previous_owners(group: GroupSubscription) -> dict[TopicPartition, str]:
    """Partition -> the member that provably owned it last, for subscribed members only."""
    best: dict[TopicPartition, tuple[int, str | None]] = {}
    for member_id in sorted(group.members):
        member = group.members[member_id]
        partitions, generation = _claims_of(member)
        subscribed = set(member.topics)
        for partition in partitions:
            if partition.topic not in subscribed:
                continue
            held = best.get(partition)
            if held is None or generation > held[0]:
                best[partition] = (generation, member_id)
            elif generation == held[0]:
                best[partition] = (generation, None)  # same-generation conflict: nobody keeps it
    return {tp: owner for tp, (_, owner) in best.items() if owner is not None}
