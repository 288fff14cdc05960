"""server:range against Kafka's own, on generated groups: identical results (the Java oracle).

Shrunk counter-examples are saved in java_differences.jsonl beside this file, and replayed.
"""

from __future__ import annotations

from assignframe.testing.server_differential import MatchesJava


class TestRangeMatchesJava(MatchesJava):
    assignor_name = "server:range"
