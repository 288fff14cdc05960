"""Every range scenario and round of shared/golden/kip848/assign.jsonl: our result == Java's."""

from __future__ import annotations

from assignframe.testing.server_golden import GoldenRounds


class TestRangeGolden(GoldenRounds):
    assignor_name = "server:range"
    golden_counts = (84, 279)
