"""Every range scenario of shared/golden/assign.jsonl, every round: our result == Java's.

Two paths: the strategy called directly on the subscriptions Java's leader saw, and the full
group runner (subscriptions encoded and decoded through the codec, the strategy found through
its entry point). Partitions per member must match Java's exactly, in Java's order.
"""

from __future__ import annotations

from assignframe.testing.golden import GoldenScenarios


class TestRangeGolden(GoldenScenarios):
    strategy_name = "range"
    # the kinds docs/strategies.md says are covered (public set: 70 range, 68 roundrobin)
    categories = ("static-members", "member-id-string-order", "unicode-topic-order", "large")
