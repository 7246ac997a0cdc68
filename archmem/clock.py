"""The injectable clock and the one timestamp format archmem stores and exports.

Nothing deep inside archmem calls ``datetime.now()``: the ``Workspace`` holds a clock
(tests freeze it) and passes times down as values.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(timezone.utc)


def format_time(moment: datetime) -> str:
    """Fixed-width UTC text (``2026-11-29T19:47:23.123456Z``): sorts as it reads."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(text: str) -> datetime:
    """An ISO 8601 time (``Z`` or an offset; a naive time is taken as UTC) → aware UTC.

    Raises ``ValueError`` for anything else.
    """
    value = text.strip()
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


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
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


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
