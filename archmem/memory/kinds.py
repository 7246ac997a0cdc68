"""The four memory kinds as users type them: one parser for CLI, MCP and imports.

Accepted: the kinds themselves in any case, with ``-``, spaces or ``_`` between words,
and their plurals (``Pitfalls``, ``session-outcome``, ``session outcomes``). Nothing
else is guessed: ``gotcha`` or ``rule`` are refused, with the kind they probably meant
named in the error, because silently filing a memory under the wrong kind changes its
rank and how the briefing shows it.
"""

from __future__ import annotations

import re
from typing import cast

from archmem.errors import InvalidInputError, closest
from archmem.memory.types import MEMORY_KINDS, MemoryKind

_ACCEPTED: dict[str, MemoryKind] = {
    form: cast(MemoryKind, kind) for kind in MEMORY_KINDS for form in (kind, kind + "s")
}

_MEANT = {
    "gotcha": "pitfall", "gotchas": "pitfall", "warning": "pitfall", "trap": "pitfall",
    "bug": "pitfall", "caveat": "pitfall", "rule": "convention", "rules": "convention",
    "guideline": "convention", "standard": "convention", "policy": "convention",
    "fact": "note", "info": "note", "comment": "note", "outcome": "session_outcome",
    "session": "session_outcome", "summary": "session_outcome", "result": "session_outcome",
}  # fmt: skip
"""Words that suggest a kind in the error message but are never accepted as one."""


def parse_kind(text: str) -> MemoryKind:
    """The memory kind ``text`` names, or ``InvalidInputError`` listing the kinds."""
    key = re.sub(r"[\s_-]+", "_", str(text).strip().lower())
    if key in _ACCEPTED:
        return _ACCEPTED[key]
    suggestions = [_MEANT[key]] if key in _MEANT else closest(key, MEMORY_KINDS, n=1)
    message = f"unknown memory kind {str(text)!r}; the kinds are {', '.join(MEMORY_KINDS)}"
    if suggestions:
        message += f" (did you mean {suggestions[0]!r}?)"
    raise InvalidInputError(message)
