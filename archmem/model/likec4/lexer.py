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
from archmem.values import Record

ID, STRING, DOTKIND, ARROW, TAG, RAW, PUNCT, NUMBER, EOF = (
    "id", "string", "dotkind", "arrow", "tag", "raw", "punct", "number", "eof",
)
_RAW_AFTER = frozenset({"link", "icon"})
_RAW = re.compile(r"\S+")
_ESCAPE = re.compile(r"\\(.)", re.S)
_ESCAPES = {"n": "\n", "t": "\t"}


@dataclass(slots=True, repr=False, eq=False)
class Token(Record):
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


_IDENT = r"[_]*[A-Za-z]\w*(?:-(?![>\[])\w+)*"
_MASTER = re.compile(
    r"(?P<space>[ \t\r\n\ufeff]+)"
    r"|(?P<comment>//[^\n]*)"
    r"|(?P<block>/\*.*?\*/)"
    r"|(?P<long>'''(?:[^\\]|\\.)*?'''|\"\"\"(?:[^\\]|\\.)*?\"\"\")"
    r"|(?P<string>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
    rf"|(?P<id>{_IDENT}(?:\.(?:{_IDENT}|\*\*?|_))*)"
    rf"|(?P<dotkind>\.{_IDENT})"
    r"|(?P<tag>#\w[\w.\-]*)"
    r"|(?P<number>\d+(?:\.\d+)?%?)"
    r"|(?P<arrow><->|-\[|\]->|->|<-)"
    r"|(?P<punct>.)",
    re.S,
)
"""One token (or white space, or a comment) at a time; the last alternative takes any character."""
_TYPES = {"id": ID, "dotkind": DOTKIND, "tag": TAG, "number": NUMBER, "arrow": ARROW, "punct": PUNCT}
_MULTI_LINE = frozenset({"space", "block", "long", "string"})


def tokenize(text: str, file: str) -> list[Token]:
    """The tokens of one file, ending with an ``eof`` token; ``ModelSyntaxError`` for an
    unterminated string or comment."""
    tokens: list[Token] = []
    append = tokens.append
    pos, line, line_start, size = 0, 1, 0, len(text)
    match = _MASTER.match
    while pos < size:
        column = pos - line_start + 1
        if tokens and not text[pos].isspace() and _after_link(tokens) and _raw_follows(text, pos):
            raw = _RAW.match(text, pos)
            assert raw is not None
            append(Token(RAW, raw.group(), line, column))
            pos = raw.end()
            continue
        found = match(text, pos)
        assert found is not None
        kind, end = found.lastgroup, found.end()
        if kind == "punct" and (text[pos] in "'\"" or text.startswith("/*", pos)):
            _never_closed(text, pos, SourceLocation(file, line, column))
        if kind == "long":
            append(Token(STRING, _string_value(found.group()[3:-3]), line, column))
        elif kind == "string":
            append(Token(STRING, _string_value(found.group()[1:-1]), line, column))
        elif kind == "dotkind" or kind == "tag":
            append(Token(_TYPES[kind], found.group()[1:], line, column))
        elif kind in _TYPES:
            append(Token(_TYPES[kind], found.group(), line, column))
        if kind in _MULTI_LINE:
            breaks = text.count("\n", pos, end)
            if breaks:
                line += breaks
                line_start = text.rfind("\n", pos, end) + 1
        pos = end
    append(Token(EOF, "", line, pos - line_start + 1))
    return tokens


def _never_closed(text: str, pos: int, where: SourceLocation) -> None:
    if text.startswith("/*", pos):
        raise ModelSyntaxError("a comment is never closed", location=where, expected=["*/"])
    quote = text[pos] * 3 if text.startswith(text[pos] * 3, pos) else text[pos]
    raise ModelSyntaxError("a string is never closed", location=where, expected=[quote])


def _after_link(tokens: list[Token]) -> bool:
    """The last token is ``link`` or ``icon`` (or the ``:`` after one)."""
    last = tokens[-1]
    if last.type == PUNCT and last.text == ":" and len(tokens) > 1:
        last = tokens[-2]
    return last.type == ID and last.text in _RAW_AFTER


def _raw_follows(text: str, pos: int) -> bool:
    """After ``link``/``icon``: a URI or icon name, not a string, ``=`` or a relationship."""
    char = text[pos]
    if char in "'\"={,;}:" or text.startswith(("->", "-[", "<-"), pos):
        return False
    return not (char == "." and pos + 1 < len(text) and (text[pos + 1].isalpha() or text[pos + 1] == "_"))


def _string_value(raw: str) -> str:
    """A string's text as LikeC4 reads it: escapes applied, trimmed, a multi-line one de-indented."""
    if "\\" in raw:
        raw = _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), raw)
    if "\n" not in raw:
        return raw.strip()
    first, _, rest = raw.partition("\n")
    return (first.strip() + "\n" + textwrap.dedent(rest)).strip() if first.strip() else textwrap.dedent(rest).strip()
