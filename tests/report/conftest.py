"""Report fixtures: a page built from small real results, and headless Chromium."""

from __future__ import annotations

import html
import json
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

    def screenshot(self, page: Path, out: Path, height: int = 2000) -> Path:
        self._run(f"--screenshot={out}", f"--window-size=1400,{height}", page.resolve().as_uri())
        return out

    def measure(self, page: Path) -> dict:
        """Open every <details>, then run :data:`PAGE_CHECKS` in the page; its JSON result."""
        checked = page.with_name(page.stem + ".checked.html")
        checked.write_text(
            page.read_text(encoding="utf-8").replace(
                "</body>", f"<script>{PAGE_CHECKS}</script></body>"
            )
        )
        dom = self._run(
            "--window-size=1400,2000",
            "--virtual-time-budget=10000",
            "--dump-dom",
            checked.resolve().as_uri(),
        ).stdout
        assert 'data-render="ok"' in dom, "the report's script failed"
        return json.loads(html.unescape(dom.split('<pre id="checks">')[1].split("</pre>")[0]))


#: Measures the rendered report the way a reader sees it (bounding boxes, colours, tick text).
PAGE_CHECKS = (Path(__file__).parent / "page_checks.js").read_text(encoding="utf-8")


@pytest.fixture
def browser(chromium, tmp_path):
    return Browser(chromium, tmp_path / "profile")
