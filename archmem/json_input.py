"""JSON from outside archmem, read with a depth limit.

``json.loads`` recurses once per nesting level, so ``"[" * 5000`` ends in a
``RecursionError`` (a traceback, or a server that stops answering). Every JSON archmem
reads from a client, a file or a server (MCP lines, ``archmem import``, the GitHub event
file and API answers, agent hook input) goes through ``load_json``: the nesting is
measured first, in one pass outside strings, and a value nested deeper than
``MAX_DEPTH`` is refused as a ``json.JSONDecodeError`` at the bracket that went too deep.
Callers already handle that error (with its line and column) for text that is not JSON.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 64
"""Far deeper than anything archmem reads (a GitHub event nests about six levels)."""

_PARTS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
"""A whole string (brackets inside it do not count) or one bracket."""


def load_json(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads(text)``, refusing a value nested deeper than ``max_depth``."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode(json.detect_encoding(text), "surrogatepass")
    check_depth(text, max_depth)
    try:
        return json.loads(text, parse_int=_int)
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # an int past Python's digit limit, a float json cannot hold
        found = _LONG_NUMBER.search(text)
        raise json.JSONDecodeError(f"a number too long to read ({exc})", text, found.start() if found else 0) from None


MAX_DIGITS = 100
"""No count, id or time archmem reads has more digits; Python refuses past 4,300 anyway."""
_LONG_NUMBER = re.compile(r"-?\d{%d,}" % (MAX_DIGITS + 1))


def _int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"{len(digits)} digits")
    return int(digits)


def check_depth(text: str, max_depth: int = MAX_DEPTH) -> None:
    """Raise ``json.JSONDecodeError`` at the first bracket past ``max_depth`` levels."""
    if text.count("[") + text.count("{") <= max_depth:
        return
    depth = 0
    for match in _PARTS.finditer(text):
        char = match.group()
        if char in "[{":
            depth += 1
            if depth > max_depth:
                raise json.JSONDecodeError(f"nested deeper than {max_depth} levels", text, match.start())
        elif char in "]}":
            depth -= 1
