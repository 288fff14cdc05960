"""A plugin found through a REAL installed distribution (pip install, entry point, metadata).

Two tiny distributions are built in a temporary directory and pip-installed into the running
environment for this module, then uninstalled. Their failure modes (an import error, a duplicate
strategy name) only switch on under an environment variable the tests set, so other processes
sharing this environment never see a broken plugin while the tests run.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from assignframe.errors import DuplicateStrategyError, PluginError
from assignframe.plugins import PluginManager

ALPHA = "assignframe-testplugin-alpha"
BETA = "assignframe-testplugin-beta"
OUR_ENTRY_POINTS = {"alpha-test", "broken-test", "beta-test"}

STRATEGY_MODULE = """
import os
from assignframe import GroupAssignment, Strategy, hookimpl

class {cls}(Strategy):
    name = {name}

    def assign(self, group):
        members = sorted(group.members)
        result = {{m: [] for m in members}}
        for topic in group.subscribed_topics():
            takers = [m for m in members if topic in group.members[m].topics]
            for tp in group.cluster.partitions(topic):
                result[takers[-1 - tp.partition % len(takers)]].append(tp)
        return GroupAssignment.from_partitions(result)

@hookimpl
def register_strategies(registry):
    registry.add({cls})
"""

BROKEN_MODULE = """
import os
if os.environ.get("AF_TEST_BREAK_IMPORT") == "1":
    import a_dependency_nobody_installed  # noqa: F401  (the failure under test)
"""


def write_distribution(
    root: Path, name: str, version: str, modules: dict[str, str], entry_points: dict[str, str]
) -> Path:
    project = root / name
    for module, source in modules.items():
        (project / module).mkdir(parents=True)
        (project / module / "__init__.py").write_text(textwrap.dedent(source))
    points = "\n".join(f'"{k}" = "{v}"' for k, v in entry_points.items())
    packages = ", ".join(f'"{m}"' for m in modules)
    (project / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""
            [build-system]
            requires = ["hatchling"]
            build-backend = "hatchling.build"

            [project]
            name = "{name}"
            version = "{version}"
            dependencies = []

            [project.entry-points.assignframe]
            """
        )
        + points
        + f"\n\n[tool.hatch.build.targets.wheel]\npackages = [{packages}]\n"
    )
    return project


def pip(*args: str) -> None:
    completed = subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True)
    assert completed.returncode == 0, completed.stdout + completed.stderr


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    root = tmp_path_factory.mktemp("dists")
    alpha = write_distribution(
        root,
        ALPHA,
        "0.0.1",
        {
            "af_test_alpha": STRATEGY_MODULE.format(cls="AlphaStrategy", name='"alpha-test"'),
            "af_test_broken": BROKEN_MODULE,
        },
        {"alpha-test": "af_test_alpha", "broken-test": "af_test_broken"},
    )
    duplicate_name = '"alpha-test" if os.environ.get("AF_TEST_DUPLICATE") == "1" else "beta-test"'
    beta = write_distribution(
        root,
        BETA,
        "0.0.2",
        {"af_test_beta": STRATEGY_MODULE.format(cls="BetaStrategy", name=duplicate_name)},
        {"beta-test": "af_test_beta"},
    )
    isolation = ["--no-build-isolation"] if importlib.util.find_spec("hatchling") else []
    pip("install", "--quiet", "--no-deps", *isolation, str(alpha), str(beta))
    importlib.invalidate_caches()
    try:
        yield
    finally:
        pip("uninstall", "--quiet", "--yes", ALPHA, BETA)
        importlib.invalidate_caches()


def env_enabling(*names: str, **extra: str) -> dict[str, str]:
    """os.environ with every other installed assignframe entry point disabled (other plugins
    installed next to the core must not change what these tests see)."""
    installed_names = {ep.name for ep in importlib.metadata.entry_points(group="assignframe")}
    others = sorted((installed_names | OUR_ENTRY_POINTS) - set(names))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AF_TEST_", "ASSIGNFRAME_"))}
    return {**env, "ASSIGNFRAME_DISABLE_PLUGINS": ",".join(others) or "none", **extra}


def cli(
    env: dict[str, str], *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "assignframe", *args],
        capture_output=True,
        text=True,
        env=env,
        input=stdin,
    )


def manager(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> PluginManager:
    """A fresh in-process manager seeing ``env`` (the test modules re-import under it)."""
    for module in [m for m in sys.modules if m.startswith("af_test_")]:
        monkeypatch.delitem(sys.modules, module)
    for key in [k for k in os.environ if k.startswith(("AF_TEST_", "ASSIGNFRAME_"))]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        if key.startswith(("AF_TEST_", "ASSIGNFRAME_")):
            monkeypatch.setenv(key, value)
    return PluginManager()


def test_plugins_command_lists_installed_distribution(installed):
    completed = cli(env_enabling("alpha-test", "beta-test"), "plugins", "--json")
    assert completed.returncode == 0, completed.stderr
    listed = {info["name"]: info for info in json.loads(completed.stdout)}
    assert listed["alpha-test"] == {
        "name": "alpha-test",
        "class": "af_test_alpha.AlphaStrategy",
        "plugin": "alpha-test",
        "distribution": ALPHA,
        "version": "0.0.1",
        "protocols": ["eager"],
    }
    assert listed["beta-test"]["distribution"] == BETA


def test_assign_command_runs_installed_strategy(installed, tmp_path):
    group = tmp_path / "group.yaml"
    group.write_text(
        "partitions_per_topic: {t: 3}\nmembers:\n  a: {topics: [t]}\n  b: {topics: [t]}\n"
    )
    completed = cli(
        env_enabling("alpha-test"), "assign", "--strategy", "alpha-test", "--json", str(group)
    )
    assert completed.returncode == 0, completed.stderr
    output = json.loads(completed.stdout)
    assert output["assignment"] == {"a": [["t", 1]], "b": [["t", 0], ["t", 2]]}
    assert output["metrics"]["validity"]["valid"] is True


def test_import_failure_names_entry_point_and_distribution(installed, monkeypatch):
    env = env_enabling("alpha-test", "broken-test", AF_TEST_BREAK_IMPORT="1")
    with pytest.raises(PluginError) as caught:
        manager(monkeypatch, env).strategy_names()
    message = str(caught.value)
    assert f"plugin 'broken-test' (distribution {ALPHA} 0.0.1)" in message
    assert "broken-test = af_test_broken" in message
    assert "ModuleNotFoundError: No module named 'a_dependency_nobody_installed'" in message


def test_import_failure_in_cli_is_one_line(installed):
    completed = cli(env_enabling("broken-test", AF_TEST_BREAK_IMPORT="1"), "plugins")
    assert completed.returncode == 1
    assert completed.stderr.count("\n") == 1 and "Traceback" not in completed.stderr
    assert completed.stderr.startswith("assignframe: error: plugin 'broken-test'")


def test_duplicate_names_both_distributions(installed, monkeypatch):
    env = env_enabling("alpha-test", "beta-test", AF_TEST_DUPLICATE="1")
    with pytest.raises(DuplicateStrategyError) as caught:
        manager(monkeypatch, env).strategy_names()
    message = str(caught.value)
    assert "'alpha-test'" in message
    assert (
        f"af_test_alpha.AlphaStrategy from plugin 'alpha-test' (distribution {ALPHA} 0.0.1)"
        in message
    )
    assert (
        f"af_test_beta.BetaStrategy from plugin 'beta-test' (distribution {BETA} 0.0.2)" in message
    )


def test_disable_by_name_skips_just_that_plugin(installed, monkeypatch):
    env = env_enabling("alpha-test", "beta-test")
    names = manager(monkeypatch, env).strategy_names()
    assert names == ("alpha-test", "beta-test")
    env["ASSIGNFRAME_DISABLE_PLUGINS"] += f",{BETA}"  # a distribution name works too
    assert manager(monkeypatch, env).strategy_names() == ("alpha-test",)


def test_disable_all(installed, monkeypatch):
    env = env_enabling("alpha-test", ASSIGNFRAME_DISABLE_PLUGINS="1")
    assert manager(monkeypatch, env).strategy_names() == ()


def test_trace_env_prints_hook_calls(installed):
    env = env_enabling("alpha-test", ASSIGNFRAME_TRACE_PLUGINS="1")
    completed = cli(env, "plugins", "--json")
    assert completed.returncode == 0
    assert "register_strategies" in completed.stderr
