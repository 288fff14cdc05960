"""Run assignframe's contract suite (validity, determinism, codec round-trip, edge groups)."""

from assignframe.testing import StrategyContract


class TestRoundRobinContract(StrategyContract):
    strategy_name = "roundrobin"
