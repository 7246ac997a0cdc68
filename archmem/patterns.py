"""Regular expressions compiled at first use, so a command pays only for the patterns it runs.

Compiling a pattern costs more than most commands' own work with it, and a module holds
patterns for every path through it: ``recall`` imports the YAML reader, the accept files
and the memory file checks, yet runs few of their patterns. ``lazy(...)`` takes what
``re.compile`` takes and answers as the compiled pattern does; it compiles on its first
use, and from then on each method is the pattern's own (no call in between: the readers
run these per line).
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, cast


class _LazyPattern:
    """Compiles on the first attribute asked for, and keeps each one asked for as its own."""

    def __init__(self, source: str | bytes, flags: int) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[Any] | None = None

    def __getattr__(self, name: str) -> Any:  # only for names not kept yet
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        value = getattr(self._compiled, name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"lazy({self._source!r})"


_MADE: list[_LazyPattern] = []


def lazy(source: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """``re.compile(source, flags)``, done when the pattern is first used."""
    pattern = _LazyPattern(source, flags)
    _MADE.append(pattern)
    return cast("re.Pattern[AnyStr]", pattern)


def compile_all() -> int:
    """Compile every pattern made so far (a process that forks workers does it once for
    all of them); how many were compiled now."""
    compiled = 0
    for pattern in _MADE:
        if pattern._compiled is None:
            try:
                pattern._compiled = re.compile(pattern._source, pattern._flags)
            except re.error:
                continue  # left to fail where it is used, as it would have
            compiled += 1
    return compiled
