"""A two-member range group snapshot in the decode schema, for the audit tests.

A plain module (``tests/`` is on sys.path, see tests/conftest.py) because parametrize lists need
it at import time, where fixtures cannot reach.
"""

from __future__ import annotations

import assignframe_codec as codec


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


def fleet_groups(groups, seed, max_members=9, max_partitions=60):
    """The readable typed snapshots of a synthetic fleet (malformed rows left out)."""
    from assignframe.audit.synthetic import fleet_snapshots
    from assignframe.snapshot import MalformedSnapshot, read_snapshot

    snapshots = []
    for raw in fleet_snapshots(
        groups, seed=seed, max_members=max_members, max_partitions=max_partitions
    ):
        try:
            snapshots.append(read_snapshot(raw))
        except MalformedSnapshot:
            continue
    return snapshots
