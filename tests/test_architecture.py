"""The architecture, checked from the source: layers point down, decode parses no bytes, and the
built-in plugins live on the public API as a third party would (STYLE.md, "One truth")."""

from __future__ import annotations

import ast
from pathlib import Path

import assignframe_codec
import pytest
import tomllib

import assignframe

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "assignframe"
PLUGINS = sorted(p for p in (ROOT / "plugins").glob("assignframe-*") if (p / "src").is_dir())

#: The layers, lowest first: a module imports only from its own layer or lower ones
#: (codec <- root model <- plugin machinery... <- tools <- adapters <- CLI). The root's modules are
#: the public model, strategy and hook API, except those named in ROOT_LAYERS.
LAYERS = ("root", "classic", "plugins", "kip848", "rebalance", "replay", "view", "tool", "adapter",
          "cli")
CORE_PACKAGES = {"classic": "classic", "plugins": "plugins", "kip848": "kip848",
                 "rebalance": "rebalance", "replay": "replay"}
TOOLS = ("decode", "simulate", "audit", "report", "cluster", "testing")
ADAPTERS = ("kafka_python", "aiokafka")
#: Root modules and packages above the model: the snapshot is the tools' shared view of a group
#: (it reads member bytes through the classic wire mapping); aiokafka is an adapter's public path.
ROOT_LAYERS = {"snapshot": "view", "aiokafka": "adapter", "__main__": "cli"}
#: Modules of those packages in a lower layer than their package: the snapshot's schema (the
#: group-file reader in replay/ imports it; the package's ``__init__`` loads the rest lazily).
SUBMODULE_LAYERS = {"snapshot.schema": "root"}
#: The root keeps the public surface only (STYLE.md, "a package per concern").
MAX_ROOT_MODULES = 16
MAX_MODULE_LINES = 500
#: Core modules a plugin may import besides the names ``assignframe`` exports.
PUBLIC_MODULES = (
    "assignframe.javaorder",
    "assignframe.jsonview",
    "assignframe.movement",  # the one movement definition a strategy's tests measure with
    "assignframe.server_assignor",  # the server-assignor interface (strategy.py: the client one)
    "assignframe.streams_assignor",  # the Streams task-assignor interface (KIP-1071)
    "assignframe.testing",  # and its modules: the kit for strategy authors
)


def _imports(path: Path) -> list[tuple[str, tuple[str, ...], int]]:
    """(absolute module, imported names, line) for every import in ``path``, function-level too."""
    return _imports_of_text(path, path.read_text(encoding="utf-8"))


def _imports_of_text(path: Path, text: str) -> list[tuple[str, tuple[str, ...], int]]:
    tree = ast.parse(text)
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
        return "root"
    if ".".join(parts[1:3]) in SUBMODULE_LAYERS:
        return SUBMODULE_LAYERS[".".join(parts[1:3])]
    if parts[1] in ROOT_LAYERS:
        return ROOT_LAYERS[parts[1]]
    if parts[1] in CORE_PACKAGES:
        return CORE_PACKAGES[parts[1]]
    if parts[1] == "cli":
        return "cli"
    if parts[1] in TOOLS:
        return f"tool:{parts[1]}"
    if parts[1] in ADAPTERS:
        return "adapter"
    return "root"


def _rank(layer: str) -> int:
    return LAYERS.index(layer.split(":")[0])


def _module_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


SOURCES = sorted(PACKAGE.rglob("*.py"))
#: the codec distribution keeps the same size rule
CODEC_SOURCES = sorted((ROOT / "codec" / "src").rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_imports_a_higher_layer(path):
    here = _layer(_module_of(path))
    if _module_of(path) == "assignframe":
        return  # the package's face re-exports the public API from every layer
    for module, names, line in _imports(path):
        targets = [module] + [f"{module}.{n}" for n in names if module == "assignframe"]
        for target in targets:
            if not target.startswith("assignframe") or target == "assignframe":
                continue
            there = _layer(target)
            where = f"{path.relative_to(ROOT)}:{line} imports {target} ({here} -> {there})"
            assert _rank(there) <= _rank(here), where
            if here.startswith("tool:"):
                # the report never orchestrates the tools it shows
                assert not (here == "tool:report" and there.startswith("tool:")
                            and there != here), where


def test_the_root_keeps_the_public_surface_only():
    modules = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(modules) <= MAX_ROOT_MODULES, modules
    too_long = {
        str(p.relative_to(ROOT)): n
        for p in SOURCES + CODEC_SOURCES
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert too_long == {}


PACKAGES = sorted(p.parent for p in PACKAGE.glob("*/__init__.py"))


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_every_package_says_what_it_owns(package):
    """Each package's ``__init__`` opens with a paragraph: what it owns (STYLE.md)."""
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text("utf-8")))
    assert docstring and len(docstring.split()) >= 15, f"{package.name}/__init__.py"


BYTE_LEVEL_CALLS = {"unpack", "unpack_from", "iter_unpack", "pack", "pack_into", "from_bytes",
                    "to_bytes"}
#: (module, what): the only exception, with its reason: dpkt raises struct.error on packets it
#: cannot parse; pcap.py catches it and parses nothing with it.
ALLOWED_BYTE_LEVEL = {("pcap.py", "import struct")}


def _byte_level(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name == "struct" for a in node.names):
            found.add("import struct")
        elif isinstance(node, ast.ImportFrom) and node.module == "struct":
            found.add("import struct")
        elif isinstance(node, ast.Attribute) and node.attr in BYTE_LEVEL_CALLS:
            found.add(node.attr)
        names = [getattr(node, "name", None), getattr(node, "id", None),
                 getattr(node, "attr", None)]
        found.update("varint" for name in names if name and "varint" in name.lower())
    return found


def test_decode_parses_no_bytes_itself():
    """Every wire format is the codec's: decode reads pcaps, reassembles TCP, matches requests
    and builds timelines; no struct, no unpacking, no varints there."""
    offenders = {}
    for path in sorted((PACKAGE / "decode").rglob("*.py")):
        found = {
            what
            for what in _byte_level(ast.parse(path.read_text(encoding="utf-8")))
            if (path.name, what) not in ALLOWED_BYTE_LEVEL
        }
        if found:
            offenders[path.name] = sorted(found)
    assert offenders == {}
    assert not (PACKAGE / "decode" / "wire.py").exists()  # decode's own reader is gone


def test_the_checks_see_what_they_forbid(tmp_path):
    source = "import struct\nx = struct.unpack('>i', b)\ndef read_varint(r): ...\n"
    assert _byte_level(ast.parse(source)) == {"import struct", "unpack", "varint"}
    sample = PACKAGE / "report" / "_sample_for_test.py"
    imports = _imports_of_text(sample, "from ..audit import run_audit\nfrom .page import X\n")
    assert [module for module, _, _ in imports] == ["assignframe.audit", "assignframe.report.page"]
    assert _layer("assignframe.audit") == "tool:audit" and _layer("assignframe.cli.x") == "cli"
    assert _layer("assignframe.model") == "root" and _layer("assignframe.snapshot") == "view"
    assert _layer("assignframe.snapshot.schema") == "root"
    assert _layer("assignframe.snapshot.jsonform") == "view"
    assert _rank("rebalance") > _rank("plugins") > _rank("classic") > _rank("root")


def _plugin_imports():
    """Every import of every built-in plugin, its tests' included: they use the public API
    only, like a third party's."""
    for plugin in PLUGINS:
        for path in sorted((plugin / "src").rglob("*.py")) + sorted(plugin.glob("tests/**/*.py")):
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
            public = module in PUBLIC_MODULES or module.startswith("assignframe.testing.")
            assert public, f"{where} imports the private module {module}"
        elif module.startswith("assignframe_codec"):
            uses_codec = True
            assert module == "assignframe_codec", f"{where} reaches into {module}"
            private = [n for n in names if n not in assignframe_codec.__all__]
            assert not private, f"{where} imports {private}, not in assignframe_codec.__all__"
    if uses_codec:
        assert any(d.startswith("assignframe-codec") for d in declared), (
            f"{plugin.name} imports assignframe_codec without declaring assignframe-codec"
        )


CODEC = ROOT / "codec" / "src" / "assignframe_codec"


def _import_graph() -> dict[str, set[str]]:
    """module -> the core and codec modules it imports (function-level and type-only imports
    too: a circle of type names is still a circle). A package's ``__init__`` is left out: it
    re-exports its modules (the layer checks above cover what imports it)."""
    paths = {_module_of(p): p for p in [*SOURCES, *sorted(CODEC.rglob("*.py"))]}
    paths = {m.removeprefix("codec.src."): p for m, p in paths.items()}
    faces = {m for m, p in paths.items() if p.name == "__init__.py"}
    graph: dict[str, set[str]] = {m: set() for m in paths if m not in faces}
    for module in graph:
        path = paths[module]
        text = path.read_text(encoding="utf-8")
        for imported, names, _ in _imports_of_text(path, text):
            imported = imported.removeprefix("codec.src.")
            for target in [f"{imported}.{n}" for n in names] or [imported]:
                if target in graph and target != module:
                    graph[module].add(target)
                elif imported in graph and imported != module:
                    graph[module].add(imported)
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circles():
    """Layers point down inside the core and the codec too: no two modules import each other,
    not even for type names (STYLE.md)."""
    assert _circles(_import_graph()) == []


def test_the_circle_check_sees_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [["a", "b", "c"]]


#: Public names (classes, functions, UPPER_CASE constants) defined in more than one module.
#: Some repeat a shape on purpose; the rest are one idea named twice, or two ideas under one
#: name, left to rename (issue 33). The list only shrinks: a name newly defined twice fails, and
#: so does a name listed here that is no longer defined twice.
SHARED_NAMES = {
    # on purpose: hook implementations beside their specs, every command's entry points, each
    # adapter's assignor list
    "assign", "decode_user_data", "on_assignment", "subscription_metadata",
    "register", "run", "main", "assignors",
    # each testing kit's golden scenarios, read module-qualified by plugin tests
    # (golden.scenarios: classic; server_golden.scenarios: KIP-848)
    "scenarios",
}


def _public_definitions(path: Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        names.update(t.id for t in targets if isinstance(t, ast.Name) and t.id.isupper())
    return {n for n in names if not n.startswith("_")}


def test_one_name_per_idea():
    where: dict[str, list[str]] = {}
    for path in SOURCES:
        for name in _public_definitions(path):
            where.setdefault(name, []).append(str(path.relative_to(ROOT)))
    twice = {name: paths for name, paths in where.items() if len(paths) > 1}
    assert {n: p for n, p in twice.items() if n not in SHARED_NAMES} == {}
    assert SHARED_NAMES - set(twice) == set()  # renamed: take it off the list


#: Where a Kafka client library may be imported (docs/architecture.md, "adapters"): the
#: adapters, the live reader's network layer (kafka-python's client carries its requests, and
#: reads ``__consumer_offsets`` for classic generations), and the live demo's producer/consumers.
CLIENT_LIBRARIES = ("kafka", "aiokafka", "confluent_kafka")
CLIENT_IMPORTERS = ("assignframe.kafka_python", "assignframe.aiokafka",
                    "assignframe.cluster.transport", "assignframe.cluster.group_records",
                    "assignframe.cli.demo_live")


def test_only_the_adapters_and_the_live_network_layer_import_a_kafka_client():
    importers = {
        _module_of(path)
        for path in SOURCES
        for target, _, _ in _imports(path)
        if target.split(".")[0] in CLIENT_LIBRARIES
    }
    assert {m for m in importers if not m.startswith(CLIENT_IMPORTERS)} == set()
    # the scan sees function-level imports: the adapters' own are found
    assert {"assignframe.kafka_python", "assignframe.aiokafka.coordinator"} <= importers


_DOC_LAYERS = {"root": "root", "classic": "classic", "plugins": "plugins", "kip848": "kip848",
               "rebalance": "rebalance", "replay": "replay", "view": "view", "tools": "tool",
               "adapters": "adapter", "CLI": "cli"}


def _documented_layers() -> dict[str, str]:
    """``where`` entry -> layer, from the layer table of docs/architecture.md."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text.split("| layer | where | what it owns |")[1].split("\n\n")[0]
    found = {}
    for row in table.strip().splitlines()[1:]:
        layer, where = (cell.strip() for cell in row.strip("|").split("|")[:2])
        for entry in where.split(","):
            found[entry.strip().strip("`")] = _DOC_LAYERS[layer]
    return found


def test_the_documented_layer_table_is_the_one_checked():
    documented = _documented_layers()
    nested = {e: layer for e, layer in documented.items() if "/" in e.rstrip("/")}
    for entry in nested:  # a module of a package placed below its package's layer
        assert (PACKAGE / entry).is_file(), entry
        documented.pop(entry)
        module = "assignframe." + entry.removesuffix(".py").replace("/", ".")
        assert _layer(module).split(":")[0] == nested[entry], entry
    top = {p.name + ("/" if p.is_dir() else "") for p in PACKAGE.iterdir()
           if (p.suffix == ".py" and p.name != "__init__.py") or (p / "__init__.py").is_file()}
    assert top - set(documented) == set()  # every module and package of the root is placed
    assert set(documented) - top == set()  # and the table names nothing that is not there
    for entry, layer in documented.items():
        module = "assignframe." + entry.removesuffix(".py").removesuffix("/")
        assert _layer(module).split(":")[0] == layer, entry


def test_the_group_file_reader_loads_the_snapshot_schema_only():
    """replay/ sits below the snapshot's layer: reading a group file loads the schema module of
    the snapshot package and none of its other modules (its ``__init__`` loads them lazily),
    while every public name stays importable from ``assignframe.snapshot``."""
    import subprocess
    import sys

    script = (
        "import sys, assignframe.replay.groupfile\n"
        "print(sorted(m for m in sys.modules if m.startswith('assignframe.snapshot')))\n"
        "import assignframe.snapshot as s\n"
        "print(len({n: getattr(s, n) for n in s.__all__}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=True, cwd=ROOT)
    loaded, names = done.stdout.splitlines()
    assert loaded == "['assignframe.snapshot', 'assignframe.snapshot.schema']"
    assert names == "13"  # every name of its __all__ resolves


def test_decode_tests_mirror_its_packages():
    """decode is split by input and protocol (traffic, classic, kip848, offsets, views); its
    tests sit in the same places under tests/decode, so a change to one finds its tests."""
    packages = {p.parent.name for p in (PACKAGE / "decode").glob("*/__init__.py")}
    tests = ROOT / "tests" / "decode"
    mirrored = {p.name for p in tests.iterdir() if p.is_dir() and any(p.glob("test_*.py"))}
    assert packages == mirrored, (
        f"decode packages without tests/decode/<package>/test_*.py: {sorted(packages - mirrored)}; "
        f"test folders without a package: {sorted(mirrored - packages)}"
    )
