"""The offset rule behind every lag (the lag-aware proposal's definition)."""

from __future__ import annotations

import pytest

from assignframe.lag import partition_lag


def test_committed_offset_gives_end_minus_committed():
    assert (
        partition_lag(end_offset=150, committed=100, beginning_offset=0, auto_offset_reset="latest")
        == 50
    )


def test_no_commit_with_latest_reset_is_no_lag():
    assert (
        partition_lag(
            end_offset=150, committed=None, beginning_offset=20, auto_offset_reset="latest"
        )
        == 0
    )


@pytest.mark.parametrize("reset", ["earliest", "none", "anything-else"])
def test_no_commit_with_any_other_reset_is_everything_available(reset):
    assert (
        partition_lag(end_offset=150, committed=None, beginning_offset=20, auto_offset_reset=reset)
        == 130
    )


def test_committed_past_the_end_is_no_lag_not_negative():
    assert (
        partition_lag(end_offset=10, committed=25, beginning_offset=0, auto_offset_reset="earliest")
        == 0
    )


def test_negative_committed_offset_means_no_commit():
    # Kafka reports -1 for "no committed offset" in some APIs.
    assert (
        partition_lag(
            end_offset=40, committed=-1, beginning_offset=10, auto_offset_reset="earliest"
        )
        == 30
    )
