"""Numbers in words for people: ``1 file``, ``3 files``, ``1,204 lines``."""

from __future__ import annotations


def plural(count: int, word: str, plural_form: str | None = None) -> str:
    return f"{count:,} {word if count == 1 else (plural_form or word + 's')}"
