"""A consumer-protocol group stuck reconciling names the member that blocks it (issue 31: the
table said "unowned tasks-2/3; 1 idle" while the member at epoch 1 held them for 345 s)."""

from __future__ import annotations

from assignframe.cluster.inspection import _holding_back
from assignframe.model import Cluster, GroupAssignment, Member, MemberAssignment, TopicPartition
from assignframe.snapshot import GroupSnapshot, MemberInfo


def _tp(p: int) -> TopicPartition:
    return TopicPartition("tasks", p)


def test_the_member_holding_what_it_must_revoke_is_named():
    """m1 (epoch 1) still holds tasks-2 and tasks-3, which the target (epoch 2) gives m2; m2,
    holding nothing yet, is not the one to blame."""
    members = {m: Member(m, ("tasks",)) for m in ("m1", "m2")}
    snapshot = GroupSnapshot(
        "g", 2, "uniform", members,
        GroupAssignment({"m1": MemberAssignment(tuple(map(_tp, range(4)))),
                         "m2": MemberAssignment(())}),
        Cluster({"tasks": 4}), group_type="consumer", group_state="Reconciling",
        member_info={"m1": MemberInfo(client_id="rdkafka", member_epoch=1),
                     "m2": MemberInfo(client_id="rdkafka", member_epoch=2)},
        target=GroupAssignment({"m1": MemberAssignment((_tp(0), _tp(1))),
                                "m2": MemberAssignment((_tp(2), _tp(3)))}),
        target_epoch=2)
    assert _holding_back(snapshot) == ["member m1 (rdkafka, epoch 1) has not revoked tasks-2, "
                                       "tasks-3"]
