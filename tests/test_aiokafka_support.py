"""Which aiokafka versions assignframe.aiokafka accepts, and how it names a missing hook point.

Pure checks that need no aiokafka (this runs in the core env too); the installed aiokafka itself
is checked in tests/e2e/test_aiokafka.py."""

from __future__ import annotations

import pytest

from assignframe.aiokafka.support import (
    FIRST_UNSUPPORTED,
    OLDEST_SUPPORTED,
    aiokafka_version,
    hook_point_problems,
    version_problem,
)


@pytest.mark.parametrize(
    ("text", "version"),
    [("0.14.0", (0, 14, 0)), ("0.10.0", (0, 10, 0)), ("0.15.0rc1", (0, 15, 0)), ("1.2", (1, 2)),
     ("0.13.0.dev4", (0, 13, 0)), ("unknown", ())],
)  # fmt: skip
def test_version_text_is_read(text, version):
    assert aiokafka_version(text) == version


@pytest.mark.parametrize("text", ["0.10.0", "0.11.0", "0.12.0", "0.13.0", "0.14.0", "0.14.3"])
def test_tested_range_is_supported(text):
    assert version_problem(text) is None


@pytest.mark.parametrize("text", ["0.9.0", "0.8.1", "0.15.0", "0.15.0rc1", "1.0.0", "unknown"])
def test_anything_else_is_refused_naming_the_range(text):
    problem = version_problem(text)
    assert problem is not None
    assert f"aiokafka {text} is not supported" in problem
    assert ">=0.10.0,<0.15.0" in problem
    assert OLDEST_SUPPORTED == (0, 10, 0) and FIRST_UNSUPPORTED == (0, 15, 0)


def test_a_missing_or_changed_hook_point_is_named():
    """Checked on real standard-library code: a changed signature, a missing method, a missing
    class and a module that does not exist are each named with what was expected."""
    problems = hook_point_problems(
        {
            "json": {
                "JSONDecoder": {"decode": ("text",), "raw_decode": None, "gone": ()},
                "NoSuchClass": {"x": None},
            },
            "no_such_module_here": {"": {"x": None}},
        }
    )
    assert problems[0] == "json.JSONDecoder.decode: takes ('s', '_w'), expected ('text',)"
    assert problems[1:3] == ["json.JSONDecoder.gone: missing", "json.NoSuchClass: missing"]
    assert problems[3].startswith("no_such_module_here: cannot be imported")
    assert len(problems) == 4
