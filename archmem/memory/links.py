"""The wikilink grammar, and the titles and contents links point at: one place for both.

    [[Target]]               a link to a memory title, an element or a decision
    [[Target|shown text]]    the same, shown with the author's words

A target is trimmed; an empty one is no link. A link does not span lines. With nested
or unbalanced brackets the innermost ``[[…]]`` wins (``[[a [[b]] c]]`` links ``b``;
``[[[x]]]`` links ``x``). Links inside fenced code blocks and inline code spans are
code, not links. Titles are compared by ``normalize_title`` (NFKC, casefold, runs of
whitespace as one space), so ``[[header  LIMITS]]`` finds the memory "Header limits".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from archmem.errors import InvalidInputError
from archmem.escape import is_control as _is_control
from archmem.memory.types import MAX_CONTENT_CHARS, MAX_TITLE_CHARS, Link
from archmem.patterns import lazy
from archmem.values import Value

LinkKind = Literal["memory", "element", "decision"]
_ORDER: tuple[LinkKind, ...] = ("memory", "element", "decision")
_FENCE = lazy(r"^ {0,3}(`{3,}|~{3,})")
_ADR_NUMBER = lazy(r"^(?:adr)?[\s#_-]*0*(\d+)$")
_CONTROL_NAMES = {0: "NUL", 7: "BEL", 8: "BACKSPACE", 11: "VT", 12: "FF", 13: "CR", 27: "ESC", 127: "DEL"}


@dataclass(frozen=True, repr=False, eq=False)
class WikiLink(Value):
    """One ``[[target|shown]]`` in a text; ``start``/``end`` are offsets of the brackets."""

    target: str
    shown: str | None
    start: int
    end: int


# ---- Markdown code: where links (and backtick paths) are not --------------------


def fenced_ranges(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of fenced code blocks (```` ``` ```` or ``~~~``); an unclosed
    fence runs to the end of the text, as in CommonMark."""
    ranges: list[tuple[int, int]] = []
    offset, opened, fence = 0, -1, ""
    for line in text.splitlines(keepends=True):
        match = _FENCE.match(line)
        if opened < 0 and match:
            opened, fence = offset, match[1]
        elif opened >= 0 and match and match[1].startswith(fence) and not line.strip().strip(fence[0]):
            ranges.append((opened, offset + len(line)))
            opened = -1
        offset += len(line)
    if opened >= 0:
        ranges.append((opened, len(text)))
    return ranges


def code_spans(text: str) -> list[tuple[int, int, int]]:
    """(start, end, backticks) of inline code spans outside fenced blocks: a run of n
    backticks closed by the next run of exactly n (CommonMark)."""
    spans: list[tuple[int, int, int]] = []
    runs = [(m.start(), len(m[0])) for m in re.finditer(r"`+", mask_code(text, inline=False))]
    i = 0
    while i < len(runs):
        start, size = runs[i]
        close = next((j for j in range(i + 1, len(runs)) if runs[j][1] == size), None)
        if close is None:
            i += 1
            continue
        spans.append((start, runs[close][0] + size, size))
        i = close + 1
    return spans


def mask_code(text: str, *, inline: bool = True) -> str:
    """``text`` with fenced blocks (and inline spans) blanked, offsets and newlines kept."""
    ranges = fenced_ranges(text)
    if inline:
        ranges += [(start, end) for start, end, _ in code_spans(text)]
    chars = list(text)
    for start, end in ranges:
        for i in range(start, end):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


# ---- links ----------------------------------------------------------------------


def parse_links(text: str) -> list[WikiLink]:
    """Every wikilink of ``text`` in order (see the module docstring for the grammar)."""
    if "[[" not in text:
        return []  # most text: no code to mask (masking only blanks characters)
    masked = mask_code(text)
    links: list[WikiLink] = []
    pos = 0
    while (close := masked.find("]]", pos)) >= 0:
        start = masked.rfind("[[", pos, close)
        pos = close + 2
        if start < 0:
            continue
        inner = text[start + 2 : close]
        if "\n" in inner or "\r" in inner:
            continue
        target, bar, shown = inner.partition("|")
        target = target.strip()
        if target:
            links.append(WikiLink(target, shown.strip() or None if bar else None, start, close + 2))
    return links


def render_link(link: WikiLink | Link, resolved_label: str | None) -> str:
    """How a link reads in text output: ``[[shown]]``, else ``[[label]]`` of what it
    resolved to, else the literal target as written; never ``[[None]]``."""
    target = link.target if isinstance(link, WikiLink) else link.target_text
    label = link.shown or resolved_label or target or "?"
    return f"[[{label}]]"


def resolution_order() -> tuple[LinkKind, ...]:
    """What a target is looked up as, first match wins: a memory title, then an element
    (identifier or name), then a decision (``ADR-17``, ``ADR-017``, ``0017``, ``17`` or
    its title). A title can therefore shadow an element of the same name; that is on
    purpose, since the writer chose the title knowing the model."""
    return _ORDER


def resolve_link(
    target: str,
    *,
    titles: Mapping[str, str],
    elements: Mapping[str, str],
    decisions: Mapping[str, str],
) -> tuple[LinkKind, str] | None:
    """(kind, id) of what ``target`` names, or None while pending. Each mapping goes
    from a ``normalize_title`` key to an id (``element_keys``/``decision_keys`` build
    them); ``ADR 17``, ``adr17`` and ``ADR-00017`` all find decision 17."""
    key = normalize_title(target)
    if not key:
        return None
    for kind, mapping in zip(_ORDER, (titles, elements, decisions), strict=True):
        if key in mapping:
            return kind, mapping[key]
    number = _ADR_NUMBER.match(key)
    if number and str(int(number[1])) in decisions:
        return "decision", decisions[str(int(number[1]))]
    return None


def element_keys(element_id: str, name: str, *more: str) -> set[str]:
    """The keys an element is linked by: its identifier and its name (and any more)."""
    return {key for key in map(normalize_title, (element_id, name, *more)) if key}


def decision_keys(aliases: Iterable[str]) -> set[str]:
    """The keys of a decision, from ``archmem.model.adrs.decision_aliases(decision)``."""
    return {key for key in map(normalize_title, aliases) if key}


# ---- titles and contents --------------------------------------------------------


def normalize_title(title: str) -> str:
    """The key titles are compared by: NFKC, casefolded, whitespace collapsed, trimmed."""
    return " ".join(unicodedata.normalize("NFKC", title).casefold().split())


def validate_title(title: str) -> str:
    """The cleaned title (trimmed, NFC, runs of spaces as one), or ``InvalidInputError``:
    a title must be short, on one line and linkable as ``[[title]]``."""
    if not isinstance(title, str):
        raise InvalidInputError(f"a title must be text, not {type(title).__name__}")
    cleaned = re.sub(r" {2,}", " ", unicodedata.normalize("NFC", title).strip())
    if not cleaned:
        raise InvalidInputError("the title is empty", hint="give a short name, or leave the title out")
    if len(cleaned) > MAX_TITLE_CHARS:
        raise InvalidInputError(
            f"the title is {len(cleaned)} characters long; the limit is {MAX_TITLE_CHARS}",
            hint="keep the title a short name and put the details in the content",
        )
    for bad, what in (("[[", "'[['"), ("]]", "']]'"), ("|", "'|'")):
        if bad in cleaned:
            raise InvalidInputError(
                f"the title {cleaned!r} contains {what}, which would break [[{cleaned}]] links",
                hint="remove the brackets or the bar from the title",
            )
    if cleaned.isprintable():
        return cleaned  # no control character nor line break: the walk below says where one is
    for index, char in enumerate(cleaned):
        if char in "\n\r\u2028\u2029":
            raise InvalidInputError(
                "the title has a line break; a title is one line", hint="put the rest in the content"
            )
        if _is_control(char):
            raise InvalidInputError(f"the title has the control character {char_name(char)} at column {index + 1}")
    return cleaned


CONFLICT_MARKER = lazy(r"^(<{7}|>{7})(?: |$)", re.MULTILINE)
"""A line git writes around a merge conflict: a memory file holding one is refused, so no
content may hold one either (it could not be read back)."""


def conflict_marker(text: str) -> re.Match[str] | None:
    """The first ``CONFLICT_MARKER`` line of ``text``, looked for only where seven ``<``
    or ``>`` stand in a row (two substring searches; the line pattern tries every line)."""
    if "<<<<<<<" not in text and ">>>>>>>" not in text:
        return None
    return CONFLICT_MARKER.search(text)


def validate_content(content: str) -> str:
    """The cleaned content (``\\r\\n`` and ``\\r`` → ``\\n``, trailing whitespace off every
    line, blank lines at both ends off), or ``InvalidInputError`` saying what and where."""
    if not isinstance(content, str):
        raise InvalidInputError(f"content must be text, not {type(content).__name__}")
    if "\r" in content:
        content = content.replace("\r\n", "\n").replace("\r", "\n")
    cleaned = "\n".join([line.rstrip() for line in content.split("\n")]).strip("\n")
    if not cleaned.strip():
        raise InvalidInputError("the content is empty", hint="write what was learned")
    if len(cleaned) > MAX_CONTENT_CHARS:
        raise InvalidInputError(
            f"the content is {len(cleaned):,} characters long; the limit is {MAX_CONTENT_CHARS:,}",
            hint="a memory is a note, not a document: keep the lesson and link to the rest",
        )
    marker = conflict_marker(cleaned)
    if marker is not None:
        line_no = cleaned.count("\n", 0, marker.start()) + 1
        raise InvalidInputError(
            f"the content's line {line_no} reads as a git conflict marker ({marker.group(1)})",
            hint="indent the line: a memory file with such a line is refused as an unresolved merge",
        )
    if not _CONTROL.search(cleaned):
        return cleaned  # the common case, without the walk below that says where
    for line_no, line in enumerate(cleaned.split("\n"), start=1):
        for col, char in enumerate(line, start=1):
            if char != "\t" and _is_control(char):
                raise InvalidInputError(
                    f"the content has the control character {char_name(char)} at line {line_no}, column {col}",
                    hint="only newlines and tabs are allowed; remove the character (binary data does not belong in a memory)",
                )
    return cleaned


_CONTROL = lazy("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")
"""What ``is_control`` finds in content (Cc is exactly C0, DEL and C1; Cs the surrogates),
tabs and newlines aside: one regex over the whole text instead of a call a character,
which was 40% of reading a memory file."""


def char_name(char: str) -> str:
    """``U+001B (ESC)``: how an error names a character it refuses, never printing it."""
    code = ord(char)
    name = _CONTROL_NAMES.get(code) or unicodedata.name(char, "")
    return f"U+{code:04X}" + (f" ({name})" if name else "")
