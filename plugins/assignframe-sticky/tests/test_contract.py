"""Run assignframe's contract suite (validity, determinism, codec round-trip, edge groups)."""

from hypothesis import given
from support import check_round

from assignframe import wire
from assignframe.testing import CONTRACT_SETTINGS, StrategyContract
from assignframe.testing.strategies import histories


class TestStickyContract(StrategyContract):
    strategy_name = "sticky"


class TestCooperativeStickyContract(StrategyContract):
    strategy_name = "cooperative-sticky"

    # The suite's version asks every round to assign every partition; under the cooperative
    # protocol a partition taken from one member is left unassigned in that round and assigned in
    # the follow-up (Java's CooperativeStickyAssignor does the same). Same checks otherwise.
    @CONTRACT_SETTINGS
    @given(history=histories())
    def test_rounds_survive_the_wire(self, history) -> None:
        runner = self.runner(history[0].cluster)
        for step in history:
            rebalance = runner.rebalance(step.consumers, cluster=step.cluster)
            assert rebalance.settled
            for round_ in rebalance.rounds:
                assert check_round(round_, cooperative=True) == []
                for member_id, data in round_.assignment_bytes.items():
                    sent = round_.assignment.assignments[member_id]
                    assert wire.decode_member_assignment(data).partitions == sent.partitions
            assert check_round(rebalance.final, cooperative=False) == []
