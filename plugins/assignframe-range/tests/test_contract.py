"""Run assignframe's contract suite (validity, determinism, codec round-trip, edge groups)."""

from assignframe.testing import StrategyContract


class TestRangeContract(StrategyContract):
    strategy_name = "range"
