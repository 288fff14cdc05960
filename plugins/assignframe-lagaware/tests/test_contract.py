"""assignframe's contract suite for both lag strategies (with and without known lags)."""

from assignframe.testing import StrategyContract


class TestLagAwareContract(StrategyContract):
    strategy_name = "lag-aware"


class TestLagStickyContract(StrategyContract):
    strategy_name = "lag-sticky"
