"""Make the shared test helpers (support.py) importable under --import-mode=importlib."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


def pytest_terminal_summary(terminalreporter):
    from support import STATS

    if STATS:
        terminalreporter.section("assignframe-sticky vs Java (golden set)")
        for key in sorted(STATS):
            terminalreporter.write_line(f"{key}: {STATS[key]}")
