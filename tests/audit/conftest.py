"""Shared fixtures for the audit tests: a small deterministic fleet and an audit context."""

from __future__ import annotations

import assignframe_codec as codec
import pytest

from assignframe.audit.fleet import write_fleet
from assignframe.audit.replay import AuditContext


def pytest_configure(config):
    config.addinivalue_line("markers", "spark: needs PySpark and Java (tox -e spark)")


@pytest.fixture(scope="session")
def context():
    return AuditContext.create()


@pytest.fixture(scope="session")
def small_fleet(tmp_path_factory):
    """120 small groups, with faults and a few malformed lines (JSON lines)."""
    path = tmp_path_factory.mktemp("fleet") / "fleet.jsonl"
    return write_fleet(path, 120, seed=11, max_members=8, max_partitions=40, malformed_rate=0.03)


def snapshot_row(**overrides):
    members = [
        {
            "member_id": "a",
            "subscription": {"hex": codec.encode_subscription(["t"], version=3).hex()},
            "assignment": {"hex": codec.encode_assignment([("t", 0), ("t", 1)], version=3).hex()},
        },
        {
            "member_id": "b",
            "subscription": {"hex": codec.encode_subscription(["t"], version=3).hex()},
            "assignment": {"hex": codec.encode_assignment([("t", 2)], version=3).hex()},
        },
    ]
    snapshot = {
        "group_id": "g",
        "generation": 4,
        "protocol": "range",
        "topic_partitions": {"t": 3},
        "members": members,
    }
    snapshot.update(overrides)
    return snapshot


@pytest.fixture
def make_snapshot():
    """Builds a two-member range group snapshot (decode schema), with overrides."""
    return snapshot_row
