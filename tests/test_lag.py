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


def test_committed_lag_is_unknown_where_the_broker_cannot_tell():
    from assignframe.lag import committed_lag

    assert committed_lag(120, 100) == 20
    assert committed_lag(100, 120) == 0  # a commit past the end (truncated log): no lag
    assert committed_lag(None, 100) is None  # end offset not read
    assert committed_lag(5, None) is None  # records, no commit: auto.offset.reset decides
    assert committed_lag(5, -1) is None  # OffsetFetch's "no offset"
    assert committed_lag(0, None) == 0  # nothing was ever written: nothing to consume
