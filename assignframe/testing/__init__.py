"""Test kit for strategy authors: the contract suite, hypothesis strategies, fixtures.

* :class:`StrategyContract`: subclass it and set ``strategy_name`` (see docs/tutorial.md);
* :mod:`assignframe.testing.strategies`: hypothesis strategies for clusters, groups, histories;
* :func:`shared_path`: where the golden vectors live (``$ASSIGNFRAME_SHARED`` or ``../shared``);
* :mod:`assignframe.testing.server_golden`: Java's recorded KIP-848 server-assignor calls, for
  checking a :class:`~assignframe.ServerAssignor` round by round;
* the pytest plugin (loaded automatically once assignframe is installed) provides the fixtures
  ``pm`` (isolated plugin manager: no entry points), ``assignframe_pm`` (installed plugins) and
  ``shared_dir``.

Importing this package imports pytest and hypothesis; the core never does.
"""

from __future__ import annotations

from .contract import CONTRACT_SETTINGS, StrategyContract
from .paths import SHARED_ENV, shared_path

__all__ = ["CONTRACT_SETTINGS", "SHARED_ENV", "StrategyContract", "shared_path"]
