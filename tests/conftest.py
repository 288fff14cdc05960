"""Fixtures shared by the core's tests.

The test strategies live in ``core_strategies.py``, importable by name (this directory is put on
sys.path) so that subprocesses and pickling find them too.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest_plugins = ("pytester",)

sys.path.insert(0, str(Path(__file__).parent))

from core_strategies import STRATEGIES_PLUGIN  # noqa: E402

from assignframe.plugins import PluginManager  # noqa: E402


# Short names for this project's own tests; the pytest plugin namespaces what it gives everyone.
@pytest.fixture
def pm(assignframe_isolated_pm: PluginManager) -> PluginManager:
    return assignframe_isolated_pm


@pytest.fixture(scope="session")
def shared_dir(assignframe_shared_dir: Path) -> Path:
    return assignframe_shared_dir


@pytest.fixture(scope="session")
def kafka_broker(assignframe_kafka_broker):
    return assignframe_kafka_broker


@pytest.fixture
def spm(pm: PluginManager) -> PluginManager:
    """The isolated ``pm`` with the test strategies registered (``pm`` unregisters them)."""
    pm.register(STRATEGIES_PLUGIN, name="test-strategies")
    return pm
