"""Parametrize golden tests over Java's recorded range scenarios (shared/golden/assign.jsonl)."""

from __future__ import annotations

import pytest

from assignframe.testing import golden

ASSIGNOR = "range"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    golden.parametrize(metafunc, ASSIGNOR, start=__file__)


@pytest.fixture
def golden_scenarios():
    return golden.scenarios(ASSIGNOR, start=__file__)
