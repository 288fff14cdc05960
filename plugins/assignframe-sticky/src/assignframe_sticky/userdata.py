"""What sticky members remember and tell the leader: user data in the layouts Java reads.

``sticky`` (eager) members drop their partitions before every rebalance, so their previous
assignment and generation travel in the StickyAssignor user data (V1; V0 without a generation is
still read, and kafka-python 3's int16-version-prefixed form). ``cooperative-sticky`` members
keep their partitions and send them as the subscription's owned partitions; their user data is
only the int32 generation that subscriptions v0/v1 cannot carry (librdkafka and franz-go send
the sticky V1 layout instead, also accepted).

A :class:`Claim` is the leader's view of one member's previous ownership, whatever carried it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# The codec's user-data layouts load on first use (an attribute of the package), not when the
# strategy is registered: `assignframe plugins` and every command's start-up pay nothing for them.
import assignframe_codec as codec

from assignframe import CodecError, Member, TopicPartition, UserDataError

__all__ = [
    "Claim",
    "StickyMemory",
    "cooperative_claim",
    "cooperative_user_data",
    "decode_cooperative",
    "decode_sticky",
    "describe_cooperative",
    "describe_sticky",
    "sticky_claim",
    "sticky_user_data",
]

#: Java's ``AbstractStickyAssignor.DEFAULT_GENERATION``: "no generation known".
NO_GENERATION = -1


@dataclass(frozen=True)
class StickyMemory:
    """The eager ``sticky`` member's memory between rebalances (``MemberState.strategy_state``).

    :param partitions: the partitions of its last assignment, in assignment order
    :param generation: the generation of that assignment
    """

    partitions: tuple[TopicPartition, ...]
    generation: int


@dataclass(frozen=True)
class Claim:
    """One member's claim of previous ownership, as the leader reads it.

    :param generation: the generation the claim is from (``NO_GENERATION`` when unknown)
    :param groups: what it claims: items with ``topic`` and ``partitions`` (the decoded user
        data's own groups are used as they are: copying a million of them costs a second)
    """

    generation: int
    groups: Sequence[Any] = ()
    #: partitions claimed one by one (a cooperative subscription's owned partitions)
    flat: Sequence[TopicPartition] = ()


EMPTY_CLAIM = Claim(NO_GENERATION, ())


def sticky_user_data(state_memory: StickyMemory | None) -> bytes | None:
    """StickyAssignor V1 user data for a member's next subscription (None before any assignment)."""
    if state_memory is None:
        return None  # Java's subscriptionUserData returns null until onAssignment ran once
    pairs = [(tp.topic, tp.partition) for tp in state_memory.partitions]
    return codec.encode_sticky_user_data(pairs, state_memory.generation)


def cooperative_user_data(generation: int) -> bytes:
    """CooperativeStickyAssignor user data: the int32 generation (-1 before any assignment)."""
    return codec.encode_cooperative_user_data(generation)


def decode_sticky(user_data: bytes | None) -> Any:
    """Decode StickyAssignor user data; None for null or empty bytes.

    Java's V1, else Java's V0 (Java's own fallback), else kafka-python 3's form: an int16
    version (0 or 1) followed by that version's layout. Java cannot read the last one, but an
    assignframe leader can, so such members keep what they own.
    """
    if not user_data:
        return None
    data = bytes(user_data)
    try:
        return codec.decode_sticky_user_data(data)
    except CodecError as error:
        prefixed = _kafka_python_sticky(data)
        if prefixed is None:
            raise UserDataError(
                f"not StickyAssignor user data (V1, V0, or kafka-python's version-prefixed form):"
                f" {error}"
            ) from error
        return prefixed


@dataclass(frozen=True)
class PrefixedStickyUserData:
    """kafka-python 3's sticky user data: an int16 version, then Java's V0/V1 layout (which Java
    itself cannot read). Reads like the codec's sticky user data."""

    version: int
    generation: int | None
    previous_assignment: Any


def _kafka_python_sticky(data: bytes) -> Any:
    """kafka-python's int16-version-prefixed sticky user data, or None if it is not that."""
    version = int.from_bytes(data[:2], "big", signed=True) if len(data) >= 2 else -1
    if version not in (0, 1):
        return None
    try:
        inner = codec.decode_sticky_user_data(data[2:], version)
    except CodecError:
        return None
    return PrefixedStickyUserData(version, inner.generation, inner.previous_assignment)


def _pairs(groups: Any) -> list[list[Any]]:
    return [[group.topic, partition] for group in groups or () for partition in group.partitions]


def describe_sticky(decoded: Any) -> dict[str, Any] | None:
    """What ``assignframe decode`` shows of a sticky member's user data."""
    if decoded is None:
        return None
    if isinstance(decoded, PrefixedStickyUserData):
        layout = f"kafka-python sticky (int16 version prefix) V{decoded.version}"
    else:
        layout = f"sticky {decoded.layout}"
    return {
        "layout": layout,
        "generation": decoded.generation,
        "previous_assignment": _pairs(decoded.previous_assignment),
    }


_COOPERATIVE_LAYOUTS = {
    "java-generation": "cooperative-sticky generation (Java)",
    "sticky-v1": "cooperative-sticky in the sticky V1 layout (librdkafka)",
}


def describe_cooperative(decoded: Any) -> dict[str, Any] | None:
    """What ``assignframe decode`` shows of a cooperative-sticky member's user data."""
    if decoded is None:
        return None
    result: dict[str, Any] = {
        "layout": _COOPERATIVE_LAYOUTS.get(decoded.layout, decoded.layout),
        "generation": decoded.generation,
    }
    if decoded.previous_assignment is not None:
        result["previous_assignment"] = _pairs(decoded.previous_assignment)
    return result


def decode_cooperative(user_data: bytes | None) -> Any:
    """Decode cooperative user data; None for null, unreadable bytes or an empty buffer.

    Java reads an unreadable buffer as generation -1 rather than failing the rebalance, since the
    partitions themselves travel in the subscription; we do the same.
    """
    if not user_data:
        return None
    try:
        return codec.decode_cooperative_user_data(bytes(user_data))
    except CodecError:
        return None


def sticky_claim(member: Member) -> Claim:
    """An eager member's claim: previous assignment and generation from its user data."""
    decoded = member.decoded_user_data
    if decoded is None:
        decoded = decode_sticky(member.user_data)  # assign() called without the runner's decoding
    if decoded is None:
        return EMPTY_CLAIM
    generation = NO_GENERATION if decoded.generation is None else decoded.generation
    return Claim(generation, decoded.previous_assignment)


def cooperative_claim(member: Member) -> Claim:
    """A cooperative member's claim: owned partitions, generation from the subscription (v2+)
    or else from the user data (v0/v1 subscriptions)."""
    decoded = member.decoded_user_data
    if decoded is None and member.user_data:
        decoded = decode_cooperative(member.user_data)
    generation = member.generation
    if generation == NO_GENERATION and decoded is not None:
        generation = decoded.generation
    if member.subscription_version >= 1 or decoded is None:
        return Claim(generation, flat=member.owned_partitions)
    # subscription v0 has no owned partitions; sticky-V1-layout user data still carries them
    return Claim(generation, groups=decoded.previous_assignment or ())
