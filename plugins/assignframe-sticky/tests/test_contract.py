"""Run assignframe's contract suite (validity, determinism, codec round-trip, edge groups)."""

from assignframe.testing import StrategyContract


class TestStickyContract(StrategyContract):
    strategy_name = "sticky"


class TestCooperativeStickyContract(StrategyContract):
    strategy_name = "cooperative-sticky"
