"""The one timestamp text archmem stores and writes (``archmem.clock``): fixed width,
UTC, and read back as the same moment."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from archmem.clock import EARLIEST_TIME, LATEST_TIME, format_time, parse_time

MOMENTS = st.datetimes(min_value=EARLIEST_TIME.replace(tzinfo=None) + timedelta(days=1),
                       max_value=LATEST_TIME.replace(tzinfo=None) - timedelta(days=1))
OFFSETS = st.integers(min_value=-18 * 60 + 1, max_value=18 * 60 - 1).map(lambda m: timezone(timedelta(minutes=m)))


@given(MOMENTS, OFFSETS)
@settings(max_examples=500, deadline=None)
def test_a_time_is_written_as_fixed_width_utc_and_read_back(moment: datetime, offset: timezone) -> None:
    local = moment.replace(tzinfo=UTC).astimezone(offset)
    utc = local.astimezone(UTC)
    text = format_time(local)
    assert text == f"{utc.year:04d}-" + utc.strftime("%m-%dT%H:%M:%S.%fZ")
    assert len(text) == 27 and parse_time(text) == local


def test_a_naive_time_is_taken_as_utc() -> None:
    assert format_time(datetime(2026, 3, 1, 9, 5, 7, 42)) == "2026-03-01T09:05:07.000042Z"
