"""The docs run: every shell block of README.md and docs/tutorial.md, exactly as written.

Each document's ``sh`` blocks run in order as one bash script (``set -euo pipefail``), each
document in a fresh virtualenv of its own that the blocks themselves create and fill:

* README.md "Using it" from the root of a fresh copy of the clone (the checkout is never written);
* docs/tutorial.md from an empty home directory outside the clone, which ``ASSIGNFRAME`` names,
  as the tutorial asks a reader to set it.

The README's two tox commands are the exception: they are what CI itself runs (``.ci/run`` and
the ``demo`` tox env), so this test checks they are exactly those, instead of running tox in tox.
Installing into fresh virtualenvs needs the package index (as tox does); it takes minutes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assignframe.testing import shared_path

ROOT = Path(__file__).resolve().parents[2]
README, TUTORIAL = ROOT / "README.md", ROOT / "docs" / "tutorial.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
#: Languages a reader would paste into a shell; the docs use ``sh`` for all of them.
SHELL_LANGUAGES = {"sh", "bash", "shell", "console", "zsh"}
#: Left behind by tools in a working tree; not part of a clone.
NOT_IN_A_CLONE = (".git", ".tox", ".venv", "__pycache__", "*.egg-info", ".*_cache", "build", "dist")


def blocks(path: Path, languages: set[str] = SHELL_LANGUAGES) -> list[str]:
    return [
        body for lang, body in FENCE.findall(path.read_text(encoding="utf-8")) if lang in languages
    ]


def is_tox_run(block: str) -> bool:
    return "python3 -m tox" in block


@pytest.mark.parametrize("doc", [README, TUTORIAL], ids=["README", "tutorial"])
def test_every_shell_block_is_sh(doc):
    """One way to mark a shell block, so none escapes the run below."""
    text = doc.read_text(encoding="utf-8")
    languages = {lang for lang, _ in FENCE.findall(text)}
    assert not languages & (SHELL_LANGUAGES - {"sh"}), languages
    prose = FENCE.sub("", text)
    assert "\n$ " not in prose and "\n    $ " not in prose, "a command prompt outside an sh block"
    indented = re.findall(r"\n\n((?:    \S.*\n)+)", prose)
    assert not indented, f"indented (unfenced) code: {indented[:1]}"
    assert blocks(doc)


def test_the_readme_tox_commands_are_what_ci_runs():
    tox_blocks = [b.strip() for b in blocks(README) if is_tox_run(b)]
    ci_line = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert tox_blocks == [
        'python3 -m pip install "tox>=4.11" "tox-uv>=1.13" && python3 -m tox -e demo',
        ci_line.replace(" --quiet", ""),
    ]
    tox_ini = (ROOT / "tox.ini").read_text(encoding="utf-8")
    assert "[testenv:demo]" in tox_ini and "commands = assignframe demo" in tox_ini


@pytest.fixture
def clone(tmp_path) -> Path:
    """A copy of the checkout's files, as a fresh clone has them."""
    copy = tmp_path / "assignframe"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(*NOT_IN_A_CLONE))
    return copy


def run_blocks(doc: Path, cwd: Path, home: Path, **env: str) -> subprocess.CompletedProcess:
    script = "set -euo pipefail\n" + "\n".join(b for b in blocks(doc) if not is_tox_run(b))
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("ASSIGNFRAME_", "VIRTUAL_ENV", "PYTHON", "TOX_"))
    }
    environment.update(
        HOME=str(home),
        # python3 is this interpreter (>= 3.10); the blocks make their own virtualenv from it.
        PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        **env,
    )
    home.mkdir(exist_ok=True)
    return subprocess.run(
        ["bash", "-c", script],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=3600,
    )


def _report(result: subprocess.CompletedProcess) -> str:
    out, err = result.stdout[-4000:], result.stderr[-4000:]
    return f"exit {result.returncode}\n--- stdout\n{out}\n--- stderr\n{err}"


@pytest.mark.slow
def test_readme_using_it_runs(clone, tmp_path):
    before = {p.name for p in clone.iterdir()}
    # the copy is not beside shared/ as a clone is: the demo's live stage finds its broker there
    result = run_blocks(README, clone, tmp_path / "home", ASSIGNFRAME_SHARED=str(shared_path(ROOT)))
    assert result.returncode == 0, _report(result)
    assert "fair" in result.stdout and "lag-sticky" in result.stdout  # `assignframe plugins`
    assert "(follow-up)" in result.stdout  # the cooperative replay's second round
    out = clone / "out"
    for made in ("snapshots.jsonl", "audit/summary.json", "audit/migration.csv", "audit.html",
                 "sim.html"):
        assert (out / made).stat().st_size > 0, made
    assert (out / "demo" / "report.html").stat().st_size > 100_000
    # everything written is in out/ (git ignores it) or the virtualenv: the clone stays clean
    assert {p.name for p in clone.iterdir()} - before <= {"out", ".venv"}
    assert "/out/" in (clone / ".gitignore").read_text().splitlines()


@pytest.mark.slow
def test_tutorial_runs_outside_the_clone(clone, tmp_path):
    home = tmp_path / "home"
    result = run_blocks(TUTORIAL, home, home, ASSIGNFRAME=str(clone))
    assert result.returncode == 0, _report(result)
    plugin = home / "leastloaded-work" / "assignframe-leastloaded"
    assert (plugin / "src" / "assignframe_leastloaded" / "__init__.py").is_file()
    assert "assignframe_leastloaded.LeastLoadedStrategy" in result.stdout  # `assignframe plugins`
    assert re.search(r"\d+ passed", result.stdout) and " failed" not in result.stdout
    assert not (clone / "plugins" / "assignframe-leastloaded").exists()  # nothing written there
