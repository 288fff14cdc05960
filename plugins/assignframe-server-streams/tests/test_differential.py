"""streams:sticky against Kafka 4.3.1's own StickyTaskAssignor on generated Streams groups
(``ASSIGNFRAME_DIFFERENTIAL_EXAMPLES``, default 2,000): identical results, errors included."""

from __future__ import annotations

from assignframe import get_plugin_manager
from assignframe.testing.server_differential import differential_settings
from assignframe.testing.streams_differential import check_streams_against_java


def test_generated_groups_match_kafka_4_3(assignframe_java43_oracle):
    assignor = get_plugin_manager().streams_assignor("streams:sticky")
    compared = check_streams_against_java(assignor, assignframe_java43_oracle)
    assert compared >= differential_settings().max_examples
