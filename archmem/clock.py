"""The injectable clock and the one timestamp format archmem stores and exports.

Nothing deep inside archmem calls ``datetime.now()``: the ``Workspace`` holds a clock
(tests freeze it) and passes times down as values.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]

EARLIEST_TIME = datetime(1970, 1, 1, tzinfo=UTC)
LATEST_TIME = datetime(9999, 1, 1, tzinfo=UTC)
"""The times archmem keeps (a memory, a session, an accept): from the epoch, and a year
short of ``datetime``'s end, so a time read from a file survives conversion to UTC, the
fixed-width text it is written back as, and a little arithmetic."""


class TimeRangeError(ValueError):
    """A well-formed time outside ``EARLIEST_TIME`` .. ``LATEST_TIME``."""


def system_clock() -> datetime:
    return datetime.now(UTC)


def format_time(moment: datetime) -> str:
    """Fixed-width UTC text (``2026-11-29T19:47:23.123456Z``): sorts as it reads."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    utc = moment.astimezone(UTC)
    return (f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}"
            f".{utc.microsecond:06d}Z")  # not strftime: %Y is not zero-padded on every libc


def parse_time(text: str) -> datetime:
    """An ISO 8601 time (``Z`` or an offset; a naive time is taken as UTC) → aware UTC.

    Raises ``ValueError`` for anything else, and ``TimeRangeError`` (its message says
    the range) for a time outside ``EARLIEST_TIME`` .. ``LATEST_TIME``.
    """
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    out_of_range = f"out of range: archmem keeps times from {EARLIEST_TIME.year} to {LATEST_TIME.year - 1}"
    try:
        moment = moment.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00+01:00 falls in year 0 in UTC
        raise TimeRangeError(out_of_range) from None
    if not EARLIEST_TIME <= moment < LATEST_TIME:
        raise TimeRangeError(out_of_range)
    return moment


def parse_date(text: str) -> datetime | None:
    """``2025-01-01`` or an ISO time (UTC unless it says otherwise) as a moment; None
    when ``text`` is not written like a date at all."""
    import re

    text = text.strip()
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?", text):
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def age_in_words(then: datetime, now: datetime) -> str:
    """``just now``, ``5 minutes ago``, ``3 hours ago``, ``96 days ago``, ``2 years ago``."""
    seconds = (now - then).total_seconds()
    if seconds < 0:
        return "in the future"
    if seconds < 60:
        return "just now"
    for limit, size, unit in (
        (3600, 60, "minute"),
        (86400, 3600, "hour"),
        (86400 * 730, 86400, "day"),
    ):
        if seconds < limit:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''} ago"
    years = int(seconds // (86400 * 365))
    return f"{years} years ago"
