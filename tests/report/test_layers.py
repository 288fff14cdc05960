"""The report draws what it is given: it imports none of the tools it shows (issue 13, item 7)."""

from __future__ import annotations

import ast
from pathlib import Path

import assignframe.report

REPORT = Path(assignframe.report.__file__).parent
TOOLS = ("audit", "simulate", "decode", "cli", "replay", "runner", "kafka_python", "aiokafka")


def _imported_modules(path: Path) -> set[str]:
    """Absolute names of everything ``path`` imports (relative imports resolved)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "assignframe" if node.level == 2 else "assignframe.report" if node.level else ""
            module = ".".join(x for x in (base, node.module) if x)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def test_the_report_imports_no_tool():
    offending = {
        f"{path.name}: {name}"
        for path in REPORT.glob("*.py")
        for name in _imported_modules(path)
        if name.split(".")[:2] in (["assignframe", tool] for tool in TOOLS)
    }
    assert not offending


def test_the_check_sees_an_upward_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from ..audit import run_audit\nfrom .page import ReportPage\n")
    assert _imported_modules(sample) == {
        "assignframe.audit.run_audit",
        "assignframe.report.page.ReportPage",
    }
