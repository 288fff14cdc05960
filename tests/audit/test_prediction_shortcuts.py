"""The migration prediction's shortcuts give what the long way gives, on fleet groups: one
server spec for both assignors, the hand-over of a group whose members already own their
targets (the convergence is not played for it), and the hand-over worked out without playing
the convergence (:func:`~assignframe.kip848.group.predict_upgrade_handover`)."""

from __future__ import annotations

from audit_snapshots import fleet_groups

from assignframe.audit.migration import (
    NOTHING_TO_HAND_OVER,
    _converted,
    owns_its_target,
    predicted_handover,
)
from assignframe.kip848.convergence import ClientBehaviour
from assignframe.kip848.group import (
    DEFAULT_SERVER_ASSIGNORS,
    ConvertedGroup,
    converted_members,
    predict_handover,
    predict_upgrade_handover,
    server_spec,
    target_assignment,
    target_from_spec,
    topic_id,
)
from assignframe.model import GroupAssignment, MemberAssignment, TopicPartition
from assignframe.server_assignor import ServerMember


def _classic_groups(groups=150):
    for snapshot in fleet_groups(groups, seed=21, max_members=12, max_partitions=80):
        if snapshot.group_type == "classic":
            yield snapshot, _converted(snapshot)


def test_one_spec_serves_both_assignors_and_the_handover_shortcut_is_the_convergence(context):
    trivial = played = 0
    for snapshot, converted in _classic_groups():
        group, owned = converted.subscription(), converted.current
        spec = server_spec(group, owned)
        for assignor in DEFAULT_SERVER_ASSIGNORS:
            target = target_from_spec(group, spec, assignor, context.pm)
            assert target == target_assignment(group, owned, assignor, context.pm)
            if not owns_its_target(group, owned, target):
                played += 1
                continue
            epoch = max(snapshot.generation, 0)
            assert predicted_handover(group, owned, target, epoch) == NOTHING_TO_HAND_OVER
            members = converted_members(owned, group, epoch)
            convergence = predict_handover(group, members, owned, target, epoch + 1)
            assert (convergence.heartbeats, convergence.handovers, convergence.revoked) == (
                NOTHING_TO_HAND_OVER["heartbeats"], (), {}
            )
            trivial += 1
    assert trivial > 50 and played > 5, (trivial, played)


def test_a_member_that_joins_or_holds_another_target_is_played():
    for _, converted in _classic_groups(40):
        group, owned = converted.subscription(), converted.current
        if len(group.members) < 2 or owned.assignments.keys() != group.members.keys():
            continue
        assert owns_its_target(group, owned, owned)
        first = next(iter(group.members))
        fewer = GroupAssignment({m: a for m, a in owned.assignments.items() if m != first})
        assert not owns_its_target(group, fewer, owned)  # ``first`` joins
        other = TopicPartition("elsewhere", 0)
        moved = dict(owned.assignments)
        moved[first] = MemberAssignment((*owned.partitions_of(first), other))
        assert not owns_its_target(group, owned, GroupAssignment(moved))
        return
    raise AssertionError("no group with two members")


def test_the_upgrade_handover_worked_out_is_the_one_played(context, monkeypatch):
    import assignframe.kip848.group as kip848_group

    worked_out = []
    real = kip848_group.upgrade_handover

    def counted(*args):
        result = real(*args)
        worked_out.append(result is not None)
        return result

    monkeypatch.setattr(kip848_group, "upgrade_handover", counted)
    compared = 0
    for snapshot, converted in _classic_groups():
        group, owned = converted.subscription(), converted.current
        epoch = max(snapshot.generation, 0)
        spec = server_spec(group, owned)
        for assignor in DEFAULT_SERVER_ASSIGNORS:
            target = target_from_spec(group, spec, assignor, context.pm)
            for behaviour in (ClientBehaviour(), ClientBehaviour(45)):
                members = converted_members(owned, group, epoch)
                played = predict_handover(group, members, owned, target, epoch + 1, behaviour)
                quick = predict_upgrade_handover(group, owned, target, epoch, behaviour)
                assert quick.heartbeats == played.heartbeats
                assert sorted(quick.unowned_ms) == sorted(h.unowned_ms for h in played.handovers)
                assert quick.revoking_members == len(played.revoked)
                compared += 1
    assert compared > 200 and sum(worked_out) > compared // 2, (compared, sum(worked_out))


def test_the_converted_group_answers_as_the_functions_for_each_target(context):
    """ConvertedGroup (one set per member and target, shared by the 'owns its target' check
    and the hand-over) gives what owns_its_target and predict_upgrade_handover give."""
    owning = compared = 0
    for snapshot, converted in _classic_groups():
        group, owned = converted.subscription(), converted.current
        epoch = max(snapshot.generation, 0)
        spec = server_spec(group, owned)
        upgraded = ConvertedGroup(group, owned, epoch)
        targets = [target_from_spec(group, spec, a, context.pm) for a in DEFAULT_SERVER_ASSIGNORS]
        for target in [*targets, owned]:
            wanted = upgraded.wanted(target)
            owns = owns_its_target(group, owned, target)
            assert upgraded.owns(wanted) == owns
            owning += owns
            if owns:
                continue
            expected = predict_upgrade_handover(group, owned, target, epoch)
            assert upgraded.handover(target, wanted) == expected
            assert upgraded.handover(target) == expected
            compared += 1
    assert owning > 50 and compared > 5, (owning, compared)


def test_the_server_target_is_the_assignors_result_sorted(context):
    """_targets' adopted TopicPartitions (picked from each topic's shared tuple) are the
    result's partitions, sorted by topic and partition, for every member; the spec's currents
    are each member's owned partitions by topic, in the Assignment's order."""
    checked = 0
    for _, converted in _classic_groups():
        group, owned = converted.subscription(), converted.current
        spec = server_spec(group, owned)
        for member_id, member in spec.members.items():
            by_topic: dict[str, list[int]] = {}
            for tp in owned.partitions_of(member_id):
                if tp.partition < group.cluster.partitions_per_topic.get(tp.topic, 0):
                    by_topic.setdefault(tp.topic, []).append(tp.partition)
            assert member.current == tuple((topic_id(t), tuple(ps)) for t, ps in by_topic.items())
            assert member == ServerMember(
                member_id, member.topics, member.current, member.instance_id, member.rack
            )
        for assignor in DEFAULT_SERVER_ASSIGNORS:
            server = context.pm.server_assignor(assignor)
            result = server.assign_in_java_order(spec) or server.assign(spec)
            target = target_from_spec(group, spec, assignor, context.pm)
            names = {tid: t.name for tid, t in spec.topics.items()}
            for member_id in group.members:
                expected = sorted(
                    TopicPartition(names[tid], p)
                    for tid, ps in result.members.get(member_id, {}).items()
                    for p in ps
                )
                assert target.assignments[member_id] == MemberAssignment(tuple(expected))
                checked += 1
    assert checked > 500, checked
