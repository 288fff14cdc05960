"""Report fixtures: a page built from small real results, and headless Chromium."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def pytest_configure(config):
    config.addinivalue_line("markers", "chromium: renders the report in headless Chromium")


@pytest.fixture(scope="session")
def chromium():
    """The Chromium binary; missing = skip, or fail where ASSIGNFRAME_REQUIRE_CHROMIUM=1."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("ASSIGNFRAME_REQUIRE_CHROMIUM") == "1":
        pytest.fail("Chromium is required here (apt-get install -y chromium) but is not installed")
    pytest.skip("Chromium not installed (tox -e report runs this)")


class Browser:
    def __init__(self, binary: str, profile: Path) -> None:
        self.binary, self.profile = binary, profile

    def _run(self, *args: str) -> subprocess.CompletedProcess:
        command = [self.binary, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}", *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)

    def dom(self, page: Path) -> str:
        """The DOM after the page's scripts ran."""
        return self._run("--virtual-time-budget=5000", "--dump-dom", page.resolve().as_uri()).stdout

    def screenshot(self, page: Path, out: Path) -> Path:
        self._run(f"--screenshot={out}", "--window-size=1400,2000", page.resolve().as_uri())
        return out


@pytest.fixture
def browser(chromium, tmp_path):
    return Browser(chromium, tmp_path / "profile")
