"""The architecture, checked from the source: layers point down, decode parses no bytes, and the
built-in plugins live on the public API as a third party would (STYLE.md, "One truth")."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import assignframe_codec
import pytest

import assignframe

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "assignframe"
PLUGINS = sorted(p for p in (ROOT / "plugins").glob("assignframe-*") if (p / "src").is_dir())

#: Packages of the tools and the adapters, and the CLI on top (codec <- core <- tools/adapters <- CLI).
TOOLS = ("decode", "simulate", "audit", "report")
ADAPTERS = ("kafka_python", "aiokafka", "_bridge")
#: Core modules a plugin may import besides the names ``assignframe`` exports.
PUBLIC_MODULES = ("assignframe.javaorder", "assignframe.jsonview", "assignframe.testing")


def _imports(path: Path) -> list[tuple[str, tuple[str, ...], int]]:
    """(absolute module, imported names, line) for every import in ``path``, function-level too."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, (), node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            found.append((base, tuple(alias.name for alias in node.names), node.lineno))
    return found


def _layer(module: str) -> str:
    parts = module.split(".")
    if parts[0] != "assignframe" or len(parts) == 1:
        return "core"
    if parts[1] == "cli" or parts[1] == "__main__":
        return "cli"
    if parts[1] in TOOLS:
        return f"tool:{parts[1]}"
    if parts[1] in ADAPTERS:
        return "adapter"
    return "core"


def _module_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


SOURCES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_imports_a_higher_layer(path):
    here = _layer(_module_of(path))
    for module, names, line in _imports(path):
        targets = [module] + [f"{module}.{n}" for n in names if module == "assignframe"]
        for target in targets:
            if not target.startswith("assignframe"):
                continue
            there = _layer(target)
            where = f"{path.relative_to(ROOT)}:{line} imports {target}"
            assert not (there == "cli" and here != "cli"), where
            if here == "core":
                assert there == "core", where
            if here.startswith("tool:"):
                # a tool never imports an adapter, and the report never the tools it shows
                assert there != "adapter", where
                assert not (here == "tool:report" and there.startswith("tool:")
                            and there != here), where


def test_decode_parses_no_bytes_itself():
    """Every wire format is the codec's: no struct, no varints, no int.from_bytes in decode."""
    for path in sorted((PACKAGE / "decode").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for module, _, line in _imports(path):
            assert module != "struct", f"{path.relative_to(ROOT)}:{line} imports struct"
        for banned in ("from_bytes(", "unpack(", "unpack_from(", "varint"):
            assert banned not in text, f"{path.relative_to(ROOT)} uses {banned!r}"


def _plugin_imports():
    for plugin in PLUGINS:
        for path in sorted((plugin / "src").rglob("*.py")):
            for module, names, line in _imports(path):
                yield plugin, path, module, names, line


@pytest.mark.parametrize("plugin", PLUGINS, ids=lambda p: p.name)
def test_built_in_plugins_import_only_public_names(plugin):
    declared = tomllib.loads((plugin / "pyproject.toml").read_text())["project"]["dependencies"]
    uses_codec = False
    for owner, path, module, names, line in _plugin_imports():
        if owner != plugin:
            continue
        where = f"{path.relative_to(ROOT)}:{line}"
        if module == "assignframe":
            private = [n for n in names if n not in assignframe.__all__]
            assert not private, f"{where} imports {private}, not in assignframe.__all__"
        elif module.startswith("assignframe."):
            assert module in PUBLIC_MODULES, f"{where} imports the private module {module}"
        elif module.startswith("assignframe_codec"):
            uses_codec = True
            assert module == "assignframe_codec", f"{where} reaches into {module}"
            private = [n for n in names if n not in assignframe_codec.__all__]
            assert not private, f"{where} imports {private}, not in assignframe_codec.__all__"
    if uses_codec:
        assert any(d.startswith("assignframe-codec") for d in declared), (
            f"{plugin.name} imports assignframe_codec without declaring assignframe-codec"
        )
