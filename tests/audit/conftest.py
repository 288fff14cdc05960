"""Shared fixtures for the audit tests: a small deterministic fleet and an audit context."""

from __future__ import annotations

import pytest
from audit_snapshots import snapshot_row

from assignframe.audit.rerun import AuditContext
from assignframe.audit.synthetic import write_fleet


def pytest_configure(config):
    config.addinivalue_line("markers", "spark: needs PySpark and Java (tox -e spark)")


@pytest.fixture(scope="session")
def context():
    return AuditContext.create()


@pytest.fixture(scope="session")
def small_fleet(tmp_path_factory):
    """120 small groups, with faults and a few malformed lines (JSON lines)."""
    path = tmp_path_factory.mktemp("fleet") / "fleet.jsonl"
    return write_fleet(path, 120, seed=14, max_members=8, max_partitions=40, malformed_rate=0.03)


@pytest.fixture
def make_snapshot():
    """Builds a two-member range group snapshot (decode schema), with overrides."""
    return snapshot_row
