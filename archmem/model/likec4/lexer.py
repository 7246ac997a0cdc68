"""LikeC4 lexing: one source file → tokens with 1-based lines and columns.

LikeC4 is free-form (newlines are white space), so a token stream is all the parser
needs. What the lexer knows, as LikeC4's grammar does:

- ``//`` and ``/* … */`` comments;
- strings in ``'…'``, ``"…"``, ``'''…'''`` and ``\"\"\"…\"\"\"`` (multi-line, de-indented);
- references with sticky dots (``cloud.backend.api``, ``ui.*``, ``api._``) as one ``id``
  token, and a dot after white space (``customer .uses cloud``) as a ``dotkind``;
- arrows ``->``, ``<-``, ``<->`` and the kind arrow ``-[kind]->`` (as ``-[`` … ``]->``);
- ``#tag`` tokens; after ``link`` or ``icon`` a bare word up to white space (a URI or
  ``aws:lambda``), never read as a comment.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

from archmem.errors import ModelSyntaxError, SourceLocation

ID, STRING, DOTKIND, ARROW, TAG, RAW, PUNCT, NUMBER, EOF = (
    "id", "string", "dotkind", "arrow", "tag", "raw", "punct", "number", "eof",
)
_RAW_AFTER = frozenset({"link", "icon"})
_ID = re.compile(r"[_]*[A-Za-z][\w]*(?:-(?![>\[])\w+)*(?:\.(?:[_]*[A-Za-z][\w]*(?:-(?![>\[])\w+)*|\*\*?|_))*")
_NUMBER = re.compile(r"\d+(?:\.\d+)?%?")
_TAG = re.compile(r"#[\w][\w.\-]*")
_SPACE = re.compile(r"[ \t\r\n\ufeff]+")
_RAW = re.compile(r"\S+")
_ARROWS = ("<->", "-[", "]->", "->", "<-")
_ESCAPE = re.compile(r"\\(.)", re.S)
_ESCAPES = {"n": "\n", "t": "\t"}


@dataclass(slots=True)
class Token:
    """One token: its type, its text (a string's without quotes) and where it starts."""

    type: str
    text: str
    line: int
    column: int

    def is_word(self, word: str) -> bool:
        return self.type == ID and self.text == word

    def describe(self) -> str:
        if self.type == EOF:
            return "the end of the file"
        if self.type == STRING:
            return "a string"
        return repr(self.text)


def tokenize(text: str, file: str) -> list[Token]:
    """The tokens of one file, ending with an ``eof`` token; ``ModelSyntaxError`` for an
    unterminated string or comment."""
    tokens: list[Token] = []
    append = tokens.append
    pos, line, line_start, size = 0, 1, 0, len(text)
    while pos < size:
        char = text[pos]
        column = pos - line_start + 1
        if char in " \t\r\n\ufeff":
            end = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
            breaks = text.count("\n", pos, end)
            if breaks:
                line += breaks
                line_start = text.rfind("\n", pos, end) + 1
            pos = end
            continue
        if text.startswith("//", pos):
            end = text.find("\n", pos)
            pos = size if end < 0 else end
            continue
        if text.startswith("/*", pos):
            end = text.find("*/", pos + 2)
            if end < 0:
                raise ModelSyntaxError("a comment is never closed", location=SourceLocation(file, line, column),
                                       expected=["*/"])
            line += text.count("\n", pos, end)
            if "\n" in text[pos:end]:
                line_start = text.rfind("\n", pos, end) + 1
            pos = end + 2
            continue
        if tokens and tokens[-1].type == ID and tokens[-1].text in _RAW_AFTER and _raw_follows(text, pos):
            match = _RAW.match(text, pos)
            assert match is not None
            append(Token(RAW, match.group(), line, column))
            pos = match.end()
            continue
        if char in "'\"":
            quote = text[pos:pos + 3] if text.startswith(char * 3, pos) else char
            end = _string_end(text, pos + len(quote), quote)
            if end < 0:
                raise ModelSyntaxError("a string is never closed", location=SourceLocation(file, line, column),
                                       expected=[quote])
            raw = text[pos + len(quote):end]
            append(Token(STRING, _string_value(raw, triple=len(quote) == 3), line, column))
            breaks = raw.count("\n")
            if breaks:
                line += breaks
                line_start = pos + len(quote) + raw.rfind("\n") + 1
            pos = end + len(quote)
            continue
        match = _ID.match(text, pos)
        if match:
            append(Token(ID, match.group(), line, column))
            pos = match.end()
            continue
        if char == "." and pos + 1 < size and (text[pos + 1].isalpha() or text[pos + 1] == "_"):
            match = _ID.match(text, pos + 1)
            if match:
                append(Token(DOTKIND, match.group(), line, column))
                pos = match.end()
                continue
        if char == "#":
            match = _TAG.match(text, pos)
            if match:
                append(Token(TAG, match.group()[1:], line, column))
                pos = match.end()
                continue
        if char.isdigit():
            match = _NUMBER.match(text, pos)
            assert match is not None
            append(Token(NUMBER, match.group(), line, column))
            pos = match.end()
            continue
        for arrow in _ARROWS:
            if text.startswith(arrow, pos):
                append(Token(ARROW, arrow, line, column))
                pos += len(arrow)
                break
        else:
            append(Token(PUNCT, char, line, column))
            pos += 1
    append(Token(EOF, "", line, pos - line_start + 1))
    return tokens


def _raw_follows(text: str, pos: int) -> bool:
    """After ``link``/``icon``: a URI or icon name, not a string, ``=`` or a relationship."""
    char = text[pos]
    if char in "'\"={,;}" or text.startswith(("->", "-[", "<-"), pos):
        return False
    return not (char == "." and pos + 1 < len(text) and (text[pos + 1].isalpha() or text[pos + 1] == "_"))


def _string_end(text: str, start: int, quote: str) -> int:
    pos = start
    while True:
        end = text.find(quote, pos)
        if end < 0:
            return -1
        backslashes = 0
        while end - backslashes - 1 >= start and text[end - backslashes - 1] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            return end
        pos = end + 1


def _string_value(raw: str, *, triple: bool) -> str:
    if "\\" in raw:
        raw = _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), raw)
    if "\n" not in raw:
        return raw.strip() if triple else raw
    first, _, rest = raw.partition("\n")
    return (first.strip() + "\n" + textwrap.dedent(rest)).strip() if first.strip() else textwrap.dedent(rest).strip()
