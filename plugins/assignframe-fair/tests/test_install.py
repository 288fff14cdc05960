"""Installing assignframe-fair alone makes ``fair`` available; uninstalling it removes it.

A real, isolated virtual environment (no system site-packages) gets only the codec, the core and
this distribution, installed from their local folders with pip: exactly what a user does, so the
entry point metadata, not a source checkout on sys.path, is what is tested.
"""

from __future__ import annotations

import json
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]

LIST_STRATEGIES = """
import json, assignframe
from assignframe.plugins import get_plugin_manager
print(json.dumps([assignframe.__file__, get_plugin_manager().strategy_names()]))
"""

KIP49_EXAMPLE = """
from assignframe import Cluster, GroupSubscription, Member
from assignframe.plugins import get_plugin_manager
topics = {"C1": "T1 T2 T3 T4 T5", "C2": "T1 T3 T5", "C3": "T1 T3 T5", "C4": "T1 T2 T3 T4 T5"}
members = {m: Member(m, tuple(ts.split())) for m, ts in topics.items()}
counts = {"T1": 2, "T2": 1, "T3": 2, "T4": 1, "T5": 2}
fair = get_plugin_manager().strategy("fair")
assignment = fair.assign(GroupSubscription(members, Cluster(counts)))
print(" ".join(str(tp) for tp in assignment.partitions_of("C1")))
"""


def _run(*command: str | Path, cwd: Path) -> str:
    # cwd away from the repository: `python -c` puts it first on sys.path, and the source tree
    # must not stand in for what pip installed.
    completed = subprocess.run(
        [str(part) for part in command], capture_output=True, text=True, timeout=900, cwd=cwd
    )
    assert completed.returncode == 0, f"{command} failed:\n{completed.stdout}\n{completed.stderr}"
    return completed.stdout


def _installed_strategies(python: Path) -> list[str]:
    output = _run(python, "-c", LIST_STRATEGIES, cwd=python.parent).splitlines()[-1]
    core_file, names = json.loads(output)
    assert Path(core_file).is_relative_to(python.parent.parent), "core not from the venv"
    return names


@pytest.mark.slow
def test_pip_install_adds_fair_and_uninstall_removes_it(tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(env_dir)
    python = env_dir / ("Scripts" if sys.platform == "win32" else "bin") / "python"
    pip = (python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check")

    _run(*pip, REPO / "codec", REPO, cwd=tmp_path)
    assert "fair" not in _installed_strategies(python)

    _run(*pip, REPO / "plugins" / "assignframe-fair", cwd=tmp_path)
    assert _installed_strategies(python) == ["fair"], "only the fair distribution was installed"
    assert _run(python, "-c", KIP49_EXAMPLE, cwd=tmp_path).split() == ["T2-0", "T3-0"]

    _run(python, "-m", "pip", "uninstall", "--yes", "--quiet", "assignframe-fair", cwd=tmp_path)
    assert "fair" not in _installed_strategies(python)
