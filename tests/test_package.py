"""The package's public surface: sorted ``__all__`` that names real objects, in every module."""

from __future__ import annotations

import importlib

import pytest

import assignframe

CORE_MODULES = [
    "assignframe",
    "assignframe.classic.protocol",
    "assignframe.classic.wire",
    "assignframe.cli",
    "assignframe.errors",
    "assignframe.metrics",
    "assignframe.model",
    "assignframe.plugins",
    "assignframe.plugins.defaults",
    "assignframe.plugins.manager",
    "assignframe.plugins.sources",
    "assignframe.plugins.validation",
    "assignframe.kip848",
    "assignframe.kip848.chain",
    "assignframe.kip848.convergence",
    "assignframe.kip848.group",
    "assignframe.kip848.reconcile",
    "assignframe.kip848.validity",
    "assignframe.rebalance.bridge",
    "assignframe.rebalance.preferences",
    "assignframe.rebalance.rounds",
    "assignframe.rebalance.runner",
    "assignframe.registry",
    "assignframe.replay.classic",
    "assignframe.replay.groupfile",
    "assignframe.replay.scenario",
    "assignframe.replay.server",
    "assignframe.snapshot",
    "assignframe.strategy",
    "assignframe.testing",
    "assignframe.testing.contract",
    "assignframe.testing.paths",
    "assignframe.testing.strategies",
]


@pytest.mark.parametrize("name", CORE_MODULES)
def test_all_is_sorted_and_resolves(name):
    module = importlib.import_module(name)
    exported = module.__all__
    assert list(exported) == sorted(exported)
    for attribute in exported:
        assert hasattr(module, attribute), f"{name}.__all__ names missing {attribute}"


def test_public_entry_points_are_reexported():
    for name in ("GroupRunner", "Consumer", "replay_scenario", "read_scenarios",
                 "get_plugin_manager", "hookimpl", "StrategyRegistry", "balance_score"):
        assert name in assignframe.__all__
