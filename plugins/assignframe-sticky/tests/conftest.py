"""Make the shared test helpers (support.py) importable under --import-mode=importlib; Java's
own sticky assignors as a fixture; the golden summary."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session")
def java_sticky(tmp_path_factory):
    """Apache Kafka's StickyAssignor / CooperativeStickyAssignor in a running JVM."""
    from java_oracle import JavaStickyOracle

    oracle = JavaStickyOracle(tmp_path_factory.mktemp("java-sticky"))
    yield oracle
    oracle.close()


def pytest_terminal_summary(terminalreporter):
    from support import STATS

    if STATS:
        terminalreporter.section("assignframe-sticky vs Java (golden set)")
        for key in sorted(STATS):
            terminalreporter.write_line(f"{key}: {STATS[key]}")
