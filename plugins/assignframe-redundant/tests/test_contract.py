"""Run assignframe's contract suite (validity, determinism, codec round-trip, edge groups)."""

from assignframe.testing import StrategyContract


class TestRedundantContract(StrategyContract):
    strategy_name = "redundant"
