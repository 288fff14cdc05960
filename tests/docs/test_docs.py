"""The docs agree with the code (datasette style): every hook has a section in docs/hooks.md
with its exact signature and a ``test_hook_<name>`` test; every CLI command and every Strategy
method is documented."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from assignframe import hookspecs
from assignframe.cli import COMMANDS
from assignframe.strategy import Strategy

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
TESTS = ROOT / "tests"

HOOKS = sorted(
    name
    for name, value in vars(hookspecs).items()
    if callable(value) and hasattr(value, f"{hookspecs.PROJECT_NAME}_spec")
)


def hook_signature(name: str) -> str:
    """``name(arg: Type, ...) -> Return`` exactly as written in hookspecs.py."""
    signature = inspect.signature(getattr(hookspecs, name))
    params = ", ".join(f"{p.name}: {p.annotation}" for p in signature.parameters.values())
    return f"{name}({params}) -> {signature.return_annotation}"


def sections(path: Path, level: str = "##") -> dict[str, str]:
    """heading text -> body, for headings of exactly ``level``."""
    text = path.read_text(encoding="utf-8")
    parts = re.split(rf"^{level} (.+)$", text, flags=re.MULTILINE)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts), 2)}


def test_hooks_are_found():
    assert HOOKS == [
        "after_assignment",
        "assign",
        "decode_user_data",
        "lag_source",
        "on_assignment",
        "register_strategies",
        "subscription_metadata",
    ]


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_is_documented_with_exact_signature(hook):
    documented = sections(DOCS / "hooks.md")
    assert hook in documented, f"docs/hooks.md has no '## {hook}' section"
    assert f"def {hook_signature(hook)}:" in documented[hook], (
        f"docs/hooks.md section {hook} lacks the exact signature: def {hook_signature(hook)}:"
    )


def test_no_stale_hook_sections():
    assert sorted(sections(DOCS / "hooks.md")) == HOOKS


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_has_a_test(hook):
    pattern = re.compile(rf"^def test_hook_{hook}\(", re.MULTILINE)
    assert any(pattern.search(p.read_text(encoding="utf-8")) for p in TESTS.rglob("test_*.py")), (
        f"no test_hook_{hook} in tests/"
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_cli_command_is_documented(command):
    assert f"assignframe {command}" in sections(DOCS / "cli.md")


STRATEGY_API = sorted(
    name
    for name, value in vars(Strategy).items()
    if not name.startswith("_") and (callable(value) or isinstance(value, property))
) + ["name", "protocols", "option_defaults"]


@pytest.mark.parametrize("member", sorted(set(STRATEGY_API)))
def test_strategy_member_is_documented(member):
    assert member in sections(DOCS / "strategy.md", "###"), f"docs/strategy.md: no '### {member}'"


def test_tutorial_uses_the_template():
    tutorial = (DOCS / "tutorial.md").read_text(encoding="utf-8")
    assert "plugins/_template" in tutorial and "StrategyContract" in tutorial
