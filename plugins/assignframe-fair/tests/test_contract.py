"""Run assignframe's contract suite (validity, determinism, codec round-trip, edge groups)."""

from assignframe.testing import StrategyContract


class TestFairContract(StrategyContract):
    strategy_name = "fair"
