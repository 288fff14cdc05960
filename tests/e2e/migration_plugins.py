"""A test strategy for the online-migration e2e tests, registered in a kafka-python member
process through ``member.py``'s ``plugins`` config key.

``assignment-user-data`` assigns like round robin and puts one byte of user data in every
member's Assignment: what a custom assignor does that the consumer protocol cannot carry, so
Kafka refuses to convert the group online (KAFKA-18134).
"""

from __future__ import annotations

from assignframe import GroupAssignment, GroupSubscription, MemberAssignment, Strategy, hookimpl

__all__ = ["PLUGIN", "AssignmentUserData"]


class AssignmentUserData(Strategy):
    """Round robin over the sorted members, with ``b"\\x01"`` as every Assignment's user data."""

    name = "assignment-user-data"
    option_defaults: dict = {}

    def assign(self, group: GroupSubscription) -> GroupAssignment:
        members = sorted(group.members)
        partitions: dict[str, list] = {m: [] for m in members}
        topics = sorted({t for m in group.members.values() for t in m.topics})
        every = [tp for t in topics for tp in group.cluster.partitions(t)]
        for index, tp in enumerate(every):
            partitions[members[index % len(members)]].append(tp)
        return GroupAssignment(
            {m: MemberAssignment(tuple(ps), user_data=b"\x01") for m, ps in partitions.items()}
        )


class _Plugin:
    @hookimpl
    def register_strategies(self, registry):
        registry.add(AssignmentUserData)


PLUGIN = _Plugin()
