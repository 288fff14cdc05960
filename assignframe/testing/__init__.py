"""Test kit for strategy authors: the contract suite, hypothesis strategies, fixtures.

* :class:`StrategyContract`: subclass it and set ``strategy_name`` (see docs/tutorial.md);
* :mod:`assignframe.testing.strategies`: hypothesis strategies for clusters, groups, histories;
* :func:`shared_path`: where the golden vectors live (``$ASSIGNFRAME_SHARED`` or ``../shared``);
* :mod:`assignframe.testing.server_contract`: :class:`ServerAssignorContract`, the same for a
  :class:`~assignframe.ServerAssignor` (validity through the core's one check);
* :mod:`assignframe.testing.server_golden`: Java's recorded KIP-848 server-assignor calls, for
  checking a server assignor round by round (:class:`GoldenRounds`);
* :mod:`assignframe.testing.java_oracle` and :mod:`assignframe.testing.server_differential`:
  Kafka's group coordinator (``shared/java``) as a live oracle, and a server assignor checked
  against it on generated groups (:class:`MatchesJava`);
* :mod:`assignframe.testing.child`: :class:`~assignframe.testing.child.Child`, a child process
  whose output a test waits on with a deadline that fires, failing with its stack, stderr and the
  broker's log;
* the pytest plugin (loaded automatically once assignframe is installed) provides the fixtures
  ``assignframe_isolated_pm`` (isolated plugin manager: no entry points), ``assignframe_pm``
  (installed plugins), ``assignframe_shared_dir``, ``assignframe_kafka_broker`` and
  ``assignframe_java_oracle`` (one coordinator JVM per session), and, with pytest-timeout, a
  test that runs out of time reports its threads and children and kills them.

The contract kit needs pytest and hypothesis; it is imported when first named, so the test
brokers (:mod:`~assignframe.testing.kafka_node`, :mod:`~assignframe.testing.tansu`), which
``assignframe demo`` starts too, import without them. The core never imports this package.
"""

from __future__ import annotations

from typing import Any

from .paths import SHARED_ENV, shared_path

__all__ = ["CONTRACT_SETTINGS", "SHARED_ENV", "StrategyContract", "shared_path"]


def __getattr__(name: str) -> Any:
    if name in ("CONTRACT_SETTINGS", "StrategyContract"):
        from . import contract

        return getattr(contract, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
