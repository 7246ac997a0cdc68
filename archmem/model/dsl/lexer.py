"""Structurizr DSL lexing: physical lines → logical statements → tokens.

The DSL is line oriented, so the lexer's job is to turn a file into *statements*: one
per logical line, each with the 1-based number of its first physical line (so errors and
``git blame`` point at what the user wrote), the number of its last physical line, and
its tokens with 1-based columns. What it handles, the way Structurizr's Java parser does:

- a UTF-8 byte order mark (also on included files);
- ``//`` and ``#`` comment lines, ``/* … */`` comment blocks, and a trailing `` // …``
  after the tokens of a statement (``#`` stays a token: ``background #ffffff``);
- ``\\`` at the end of a line joins the next line (its indentation dropped);
- ``\"\"\"`` text blocks, de-indented by their first line, as one token;
- ``"quoted strings"`` with ``\\"`` escapes; ``""`` is an empty (skipped) argument.

``${NAME}`` substitution happens later, in the parser, because constants are defined
while parsing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from archmem.errors import ModelError, ModelSyntaxError, SourceLocation
from archmem.values import Record

TEXT_BLOCK = '"""'
_TOKEN = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)"|(\S+)')
_SUBSTITUTION = re.compile(r"\$\{([a-zA-Z0-9_.-]+?)\}")


@dataclass(slots=True, repr=False, eq=False)
class Token(Record):
    """One token: its text (quotes removed), its column, and whether it was quoted."""

    text: str
    column: int
    quoted: bool = False

    def is_(self, keyword: str) -> bool:
        """An unquoted token equal to ``keyword``, ignoring case (DSL keywords are)."""
        return not self.quoted and self.text.lower() == keyword


@dataclass(slots=True, repr=False, eq=False)
class Statement(Record):
    """One logical line: where it is, and its tokens (never empty)."""

    file: str
    line: int
    end_line: int
    tokens: list[Token] = field(default_factory=list)
    dollar: bool = False
    """Whether a token may hold a ``${NAME}`` to substitute."""

    def at(self, column: int | None = None) -> SourceLocation:
        first = self.tokens[0].column if self.tokens else 1
        return SourceLocation(self.file, self.line, column or first)


def read_text(path: Path, encoding: str | None = None) -> tuple[str, list[str]]:
    """The file's text without a byte order mark, and any warning about its encoding.

    ``encoding=None`` reads UTF-8 and, for a file that is not UTF-8, falls back to
    ISO-8859-1 with a warning (the Java parser would silently mangle it instead).
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelError(f"cannot read {path}: {exc.strerror or exc}") from None
    warnings: list[str] = []
    if encoding is None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            warnings.append(
                f"{path}:{line}: the file is not UTF-8 (byte 0x{data[exc.start]:02x}); read it as ISO-8859-1"
            )
            text = data.decode("iso-8859-1")
    else:
        try:
            text = data.decode(encoding)
        except (UnicodeDecodeError, LookupError) as exc:
            raise ModelError(f"cannot decode {path} as {encoding}: {exc}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, warnings


def statements(text: str, file: str) -> list[Statement]:
    """Every statement of a DSL source, in order (comments and blank lines dropped)."""
    physical = text.split("\n")
    count = len(physical)
    result: list[Statement] = []
    index = 0
    comment_start = 0
    in_comment = False
    while index < count:
        raw = physical[index]
        number = index + 1
        index += 1
        stripped = raw.strip()
        if not stripped:
            continue
        if stripped[0] == "\ufeff":
            raw = raw.replace("\ufeff", "", 1)
            stripped = stripped[1:].strip()
            if not stripped:
                continue
        if in_comment:
            if stripped.endswith("*/"):
                in_comment = False
            continue
        head = stripped[0]
        if head == "#" or (head == "/" and stripped.startswith("//")):
            continue
        if head == "/" and stripped.startswith("/*"):
            if not (stripped.endswith("*/") and len(stripped) >= 4):
                in_comment, comment_start = True, number
            continue
        end = number
        buffer = raw.rstrip()
        if stripped[-1] == "\\":
            # `\` continuations: the next line is joined without its indentation
            while buffer.endswith("\\"):
                buffer = buffer[:-1]
                if index >= count:
                    break
                buffer += physical[index].strip()
                index += 1
                end = index
        block: str | None = None
        if buffer.endswith(TEXT_BLOCK):
            buffer = buffer[: -len(TEXT_BLOCK)]
            block, index = _text_block(physical, index, file, number, len(buffer) + 1)
            end = index
        tokens = tokenize(buffer, file, number)
        if block is not None:
            tokens.append(Token(block, len(buffer) + 1, True))
        if tokens:
            result.append(Statement(file, number, end, tokens, "${" in buffer or block is not None))
    if in_comment:
        raise ModelSyntaxError(
            "Unterminated /* comment (no closing */ before the end of the file)",
            location=SourceLocation(file, comment_start, 1),
        )
    return result


def _text_block(physical: list[str], index: int, file: str, line: int, column: int) -> tuple[str, int]:
    """The value of a ``\"\"\"`` text block opened just before ``physical[index]``.

    Lines are de-indented by the leading whitespace of the first one; the block ends at
    the first line ending with ``\"\"\"`` (whatever precedes the marker there is dropped).
    Returns the value and the index of the line after the block.
    """
    parts: list[str] = []
    indent = -1
    while index < len(physical):
        raw = physical[index].rstrip("\r")
        index += 1
        if raw.rstrip().endswith(TEXT_BLOCK):
            return "\n".join(parts), index
        if raw.lstrip().startswith(TEXT_BLOCK):
            raise ModelSyntaxError(
                'Unexpected tokens after the closing """ of a text block (a text block must end its statement)',
                location=SourceLocation(file, index, raw.index(TEXT_BLOCK) + 4),
            )
        if indent < 0:
            indent = len(raw) - len(raw.lstrip())
        parts.append(raw[indent:] if raw.strip() else "")
    raise ModelSyntaxError(
        'Unterminated text block (no closing """ before the end of the file)',
        location=SourceLocation(file, line, column),
    )


def tokenize(text: str, file: str = "", line: int = 0) -> list[Token]:
    """Split one logical line into tokens; a bare ``//…`` token ends the line."""
    tokens: list[Token] = []
    append = tokens.append
    for match in _TOKEN.finditer(text):
        quoted, bare = match.groups()
        if quoted is not None:
            if "\\" in quoted:
                quoted = quoted.replace('\\"', '"')
            append(Token(quoted, match.start() + 1, True))
            continue
        if bare[0] in '/"':
            if bare.startswith("//"):
                break
            if bare[0] == '"':
                raise ModelSyntaxError(
                    "Unterminated string (a quote is opened but never closed)",
                    location=SourceLocation(file, line, match.start() + 1),
                )
        append(Token(bare, match.start() + 1, False))
    return tokens


def substitute(text: str, lookup: dict[str, str], env: dict[str, str] | None) -> str:
    """``${NAME}`` → a constant/variable, else an environment variable, else kept as is."""
    if "${" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in lookup:
            return lookup[name]
        if env is not None and name in env:
            return env[name]
        return match.group(0)

    return _SUBSTITUTION.sub(replace, text)
