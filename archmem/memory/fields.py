"""One-line text fields: a task, an author, a session's agent, a reason, a note.

Titles and contents have their own rules (``archmem.memory.links``). Every other text a
user gives is one line of at most ``MAX_LINE_CHARS`` characters, without control
characters: a task is printed as the heading of a briefing an agent reads as trusted
context, and an author or an agent is printed in every listing, so a line break
would forge a section and an escape sequence would reach a terminal. Secrets are the
other rule every field obeys (``archmem.memory.secrets.check_fields``).
"""

from __future__ import annotations

import unicodedata

from archmem.errors import InvalidInputError
from archmem.escape import is_control
from archmem.memory.links import char_name

MAX_LINE_CHARS = 2_000
"""A task is a sentence or a paragraph, not a document; an author is a short name."""
MAX_QUOTED_CHARS = 60
"""How much of its input an error quotes."""
_LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def clean_line(value: str | None, field: str, *, required: bool = False) -> str | None:
    """``value`` trimmed and NFC-normalized, None when empty (``InvalidInputError`` if
    ``required``), or ``InvalidInputError`` naming the field and the column of a line
    break or a control character, or the length over the limit."""
    if value is None:
        cleaned = ""
    elif not isinstance(value, str):
        raise InvalidInputError(f"the {field} must be text, not {type(value).__name__}")
    else:
        cleaned = unicodedata.normalize("NFC", value).strip()
    if not cleaned:
        if required:
            raise InvalidInputError(f"the {field} is empty")
        return None
    if len(cleaned) > MAX_LINE_CHARS:
        raise InvalidInputError(
            f"the {field} is {len(cleaned):,} characters long; the limit is {MAX_LINE_CHARS:,}",
            hint=f"say the {field} in a sentence or two",
        )
    if cleaned.isprintable():
        return cleaned  # no line break nor control character (each is unprintable): no walk to say where
    for column, char in enumerate(cleaned, start=1):
        if char in _LINE_BREAKS:
            raise InvalidInputError(
                f"the {field} has a line break ({char_name(char)}) at column {column}; it must be one line",
                hint=f"write the {field} on one line",
            )
        if is_control(char):
            raise InvalidInputError(f"the {field} has the control character {char_name(char)} at column {column}")
    return cleaned


def required_line(value: str | None, field: str) -> str:
    """``clean_line`` for a field that must be given (a session's task)."""
    cleaned = clean_line(value, field, required=True)
    assert cleaned is not None
    return cleaned


def quoted(raw: str) -> str:
    """Input as an error quotes it: as written (never a value built from it), cut short,
    in quotes with control characters escaped."""
    raw = raw.strip()
    return repr(raw if len(raw) <= MAX_QUOTED_CHARS else raw[: MAX_QUOTED_CHARS - 1] + "…")
