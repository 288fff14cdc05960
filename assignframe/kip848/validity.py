"""Whether a server assignor's result is valid: the core's one check on the classic view.

:func:`validate_server_assignment` maps a :class:`~assignframe.server_assignor.ServerAssignment`
to topics by name and runs :func:`assignframe.metrics.validate_assignment` on it, with the two
rules the classic view cannot express (a share group's partition may go to several members; a
share partition ``isPartitionAssignable`` denies must not be assigned).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from ..javaorder import Uuid, java_string_key
from ..metrics import Validity, validate_assignment
from ..model import Cluster, GroupAssignment, GroupSubscription, Member, MemberAssignment
from ..model import TopicPartition as Partition
from ..server_assignor import SHARE_GROUP, ServerAssignment, ServerGroupSpec

__all__ = ["ServerValidity", "validate_server_assignment"]


@dataclass(frozen=True)
class ServerValidity:
    """What is wrong with a server assignor's result (nothing = valid).

    :param validity: the core's one check, :func:`assignframe.metrics.validate_assignment`, on the
        classic view of the group (topics by name; a topic id the metadata no longer has gets a
        name of its own that nobody subscribes to and the cluster lacks)
    :param share: a share group: a partition may go to several members, so double ownership is
        not a fault there
    :param uninitialized: share partitions assigned that ``isPartitionAssignable`` denies (the
        one rule the classic view cannot express); unassigned ones are not counted as unowned
    :param topic_ids: classic topic name -> topic id
    """

    validity: Validity
    share: bool
    uninitialized: tuple[Partition, ...]
    topic_ids: Mapping[str, Uuid]

    @property
    def is_valid(self) -> bool:
        return not self.problems()

    def problems(self, names: Mapping[Uuid, str] | None = None) -> tuple[str, ...]:
        """Each fault in words: per member (holdings it should not have), then per topic.

        :param names: topic id -> name, for ids the metadata no longer has (else ``?``)
        """
        names = names or {}
        checked = self.validity
        lines = [
            self._holding(m, topic, count, names, beyond=beyond)
            for beyond, holdings in ((False, checked.non_subscriber), (True, checked.unknown))
            for (m, topic), count in Counter((m, tp.topic) for m, tp in holdings).items()
        ]
        per_topic: dict[str, list[str]] = {}
        faults = [("assigned to nobody", checked.unowned), ("uninitialized", self.uninitialized)]
        if not self.share:
            faults.append(("assigned more than once", checked.double_owned))
        for fault, partitions in faults:
            for topic, count in Counter(tp.topic for tp in partitions).items():
                per_topic.setdefault(topic, []).append(_counted(fault, count, topic))
        for topic in sorted(per_topic, key=java_string_key):
            lines.extend(per_topic[topic])
        return tuple(dict.fromkeys(lines))  # a deleted topic's holding is non-subscribed too

    def _holding(
        self, member_id: str, topic: str, count: int, names: Mapping[Uuid, str], beyond: bool
    ) -> str:
        held = f"{member_id} holds {count} partition(s) of"
        topic_id = self.topic_ids[topic]
        if topic.startswith(_DELETED):
            return f"{held} deleted topic id {topic_id} ({names.get(topic_id, '?')})"
        if beyond:
            return f"{held} {topic} beyond its partition count"
        return f"{held} {topic} which it does not subscribe to"


_DELETED = "\x00deleted topic "  # no Kafka topic name starts with NUL


def _counted(fault: str, count: int, topic: str) -> str:
    if fault == "uninitialized":
        return f"{count} uninitialized partition(s) of {topic} assigned"
    return f"{count} partition(s) of {topic} {fault}"


def validate_server_assignment(
    group: ServerGroupSpec, assignment: ServerAssignment
) -> ServerValidity:
    """Check ``assignment`` through :func:`assignframe.metrics.validate_assignment`: every
    assignable partition of a subscribed topic goes to a subscriber, exactly one in a consumer
    group (at least one in a share group), and nobody holds partitions of topics they do not
    subscribe to or that do not exist."""
    classic = {topic_id: topic.name for topic_id, topic in group.topics.items()}
    for topics in assignment.members.values():
        for topic_id in topics:
            classic.setdefault(topic_id, f"{_DELETED}{topic_id}")
    subscription = GroupSubscription(
        {m: Member(m, member.topics) for m, member in group.members.items()},
        Cluster({topic.name: topic.partitions for topic in group.topics.values()}),
    )
    held = GroupAssignment(
        {
            m: MemberAssignment(tuple(Partition(classic[t], p) for t, p in pairs))
            for m in sorted(assignment.members, key=java_string_key)
            for pairs in (assignment.partitions_of(m),)
        }
    )
    validity = validate_assignment(subscription, held)
    denied = {Partition(classic[t], p) for t, p in group.unassignable}
    if denied:
        validity = dataclasses.replace(
            validity, unowned=tuple(tp for tp in validity.unowned if tp not in denied)
        )
    uninitialized = tuple(
        tp for held_by in held.assignments.values() for tp in held_by.partitions if tp in denied
    )
    return ServerValidity(
        validity,
        group.group_type == SHARE_GROUP,
        tuple(dict.fromkeys(uninitialized)),
        {name: topic_id for topic_id, name in classic.items()},
    )
