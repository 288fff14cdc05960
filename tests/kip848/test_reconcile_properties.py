"""What every reconciliation step keeps, whatever the input (Kafka's coordinator relies on these):
a partition is never handed to a member while another holds it, a member only leaves its epoch
once nothing it owns must be revoked, and every change records where the member came from."""

from __future__ import annotations

from hypothesis import given, settings
from reconcile_inputs import reconcile_steps  # tests/ is on sys.path (conftest.py)

from assignframe.errors import FencedMemberEpochError
from assignframe.kip848.reconcile import ConsumerMemberState, owns_any, reconcile_member

UNREVOKED = ConsumerMemberState.UNREVOKED_PARTITIONS


@settings(max_examples=1000, deadline=None)
@given(reconcile_steps())
def test_a_step_never_hands_over_a_held_partition_nor_skips_a_revocation(step):
    member, heartbeat, _ = step
    try:
        after = reconcile_member(member, heartbeat)
    except FencedMemberEpochError:
        assert member.state is ConsumerMemberState.UNKNOWN and heartbeat.owned != frozenset()
        return
    if after is member:
        return
    assert after.previous_member_epoch == member.member_epoch
    gained = after.assigned.keys() - member.assigned.keys()
    for tp in gained:  # free, or this member's own partition coming back
        assert heartbeat.owner_epochs.get(tp, -1) == -1 or tp in member.pending_revocation
        assert after.assigned[tp] == heartbeat.target_epoch and tp in heartbeat.target
    for tp in after.assigned.keys() & member.assigned.keys():  # kept: assigned at the same epoch
        assert after.assigned[tp] == member.assigned[tp]
    if after.state is UNREVOKED:
        assert not gained and after.member_epoch == member.member_epoch
        if not after.pending_revocation:
            # Kafka moves a member to UNREVOKED_PARTITIONS only with partitions to revoke. A
            # member given in it with none (unreachable, generated for the comparison with
            # Java) that sent no owned partitions stays in it when its subscription changed and
            # nothing was left to revoke, as Java keeps it (CurrentAssignmentBuilder:
            # ownsRevokedPartitions is true for a null owned list, updateCurrentAssignment
            # keeps the state); test_reconcile_vs_java holds us to Java there
            assert member.state is UNREVOKED and not member.pending_revocation
            assert heartbeat.owned is None and heartbeat.subscription_changed
            return
        assert owns_any(heartbeat.owned, after.pending_revocation)
    elif after.member_epoch != member.member_epoch:  # moved on: nothing left to revoke
        assert not after.pending_revocation and after.member_epoch == heartbeat.target_epoch
        taken = member.assigned.keys() - after.assigned.keys()
        assert not taken or not owns_any(heartbeat.owned, taken)
